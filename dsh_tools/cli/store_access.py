"""Opening the ``--store URL`` of the store commands, with every failure a usage error.

A store that cannot be reached (a PostgreSQL server that is down, a file
that is not a store) is one clean line and exit status 2, never a
traceback: :func:`store_session` connects before the command does anything
and turns a :class:`~dsh_tools.store.StoreError` raised anywhere inside it
into a :class:`CliError` on one line (psycopg's messages span several).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from dsh_tools.cli.errors import CliError
from dsh_tools.store import CallStore, StoreError, open_store

__all__ = ["opened_store", "store_session"]


def opened_store(url: str) -> CallStore:
    """The store at ``url``; ``CliError`` naming the problem for a bad URL or an unusable file."""
    try:
        return open_store(url)
    except (ValueError, StoreError) as error:
        raise CliError(_one_line(error)) from None


@asynccontextmanager
async def store_session(url: str) -> AsyncIterator[CallStore]:
    """The store at ``url``, connected now and closed after; a ``StoreError`` inside is a one-line ``CliError``."""
    store = opened_store(url)
    try:
        async with store:  # PostgreSQL connects here: an unreachable server fails before anything is printed
            yield store
    except StoreError as error:
        raise CliError(_one_line(error)) from None


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
