"""``CliError``: a user-facing failure; the CLI prints its message and exits 2.

Its own module so that building the parser (``dsh-tools --help``) and every
command can name it without importing the loader and the registry behind it.
"""

from __future__ import annotations

__all__ = ["CliError"]


class CliError(Exception):
    """A user-facing failure: the CLI prints the message and exits with status 2."""
