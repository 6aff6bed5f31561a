"""Opening the ``--store URL`` of the store commands, with every failure a usage error."""

from __future__ import annotations

from dsh_tools.cli.errors import CliError
from dsh_tools.store import CallStore, StoreError, open_store

__all__ = ["opened_store"]


def opened_store(url: str) -> CallStore:
    """The store at ``url``; ``CliError`` naming the problem for a bad URL or an unusable file."""
    try:
        return open_store(url)
    except (ValueError, StoreError) as error:
        raise CliError(str(error)) from None
