"""Where the store suites keep a store of each kind, and what a child process that opens one is given.

One place for them: a test asks for a kind (``"memory"``, ``"sqlite"``,
``"postgres"``) and gets its location, URL or store from here, instead of
spelling the SQLite file and the PostgreSQL database again. The fixtures
built on these (``store``, ``url``) are in ``conftest.py``.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path
from typing import Final, Literal, TypeAlias

import pytest

from dsh_tools.store import CallStore, MemoryStore, PostgresStore, SqliteStore

__all__ = ["DURABLE", "KINDS", "Kind", "child_env", "corrupt", "location", "sqlite_path", "sqlite_url", "store_of", "url_of"]

Kind: TypeAlias = Literal["memory", "sqlite", "postgres"]
KINDS: Final[tuple[Kind, ...]] = ("memory", "sqlite", "postgres")
DURABLE: Final[tuple[Kind, ...]] = ("sqlite", "postgres")
"""The kinds that outlive their process (another process, or a restart, reads what one wrote)."""


def sqlite_path(tmp_path: Path) -> Path:
    """The SQLite file of a test's store."""
    return tmp_path / "calls.db"


def sqlite_url(tmp_path: Path) -> str:
    """The URL of that file, as ``boot(store=...)``, ``open_store`` and the CLI's ``--store`` take it."""
    return f"sqlite:///{sqlite_path(tmp_path)}"


def location(kind: Kind, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Where a durable store of ``kind`` lives for one test: its SQLite file, or a fresh PostgreSQL database's DSN."""
    if kind == "sqlite":
        return str(sqlite_path(tmp_path))
    if kind == "postgres":
        dsn: str = request.getfixturevalue("fresh_postgres")
        return dsn
    raise ValueError(f"a {kind} store has no location")


def url_of(kind: Kind, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """The URL of a durable store of ``kind`` for one test (a PostgreSQL DSN is its URL)."""
    return sqlite_url(tmp_path) if kind == "sqlite" else location(kind, tmp_path, request)


def store_of(kind: Kind, tmp_path: Path, request: pytest.FixtureRequest) -> CallStore:
    """A store of ``kind`` for one test, not yet opened (``async with``, or ``boot(store=...)``, opens it)."""
    if kind == "memory":
        return MemoryStore()
    where = location(kind, tmp_path, request)
    return SqliteStore(where) if kind == "sqlite" else PostgresStore(where)


def corrupt(kind: Kind, where: str, statement: str, params: tuple[object, ...]) -> None:
    """Change a stored row behind the store's back, as a hand edit, a disk fault or an older build would (``?`` placeholders)."""
    if kind == "sqlite":
        with sqlite3.connect(where) as db:
            db.execute(statement, params)
    else:
        import psycopg

        with psycopg.connect(where, autocommit=True) as db:
            db.execute(statement.replace("?", "%s").encode(), params)


def child_env(tmp_path: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a child process: this one's, its ``sys.path`` as ``PYTHONPATH`` (it imports what the tests do),
    ``BODY_LOG`` in ``tmp_path`` when given (the test processes log each body that runs there), and ``extra``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    if tmp_path is not None:
        env["BODY_LOG"] = str(tmp_path / "bodies.log")
    return {**env, **extra}
