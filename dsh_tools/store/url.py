"""``open_store(url)``: a store from one configuration string."""

from __future__ import annotations

from typing import Final

from dsh_tools.store.memory import MemoryStore
from dsh_tools.call_store import CallStore
from dsh_tools.store.sqlite import SqliteStore
from dsh_tools.store.sqlite_files import sqlite_file

__all__ = ["ACCEPTED_URLS", "open_store"]

ACCEPTED_URLS: Final = '"memory:", "sqlite:///relative.db", "sqlite:////absolute.db", "postgresql://user@host/db"'


def open_store(url: str) -> CallStore:
    """``MemoryStore``, ``SqliteStore`` or ``PostgresStore`` by the URL's scheme; ``ValueError`` for anything else.

    A SQLite file is opened (created, upgraded or refused) at once; a
    PostgreSQL store connects on first use (``async with`` it to connect now).
    """
    if type(url) is not str:
        raise ValueError(f"a store URL is a str, one of {ACCEPTED_URLS}")
    if url == "memory:":
        return MemoryStore()
    file = sqlite_file(url)
    if file is not None:
        return SqliteStore(file)
    if url.startswith(("postgresql://", "postgres://")):
        from dsh_tools.store.postgres import PostgresStore

        return PostgresStore(url)
    raise ValueError(f"unsupported store URL {url[:80]!r}: use one of {ACCEPTED_URLS}")
