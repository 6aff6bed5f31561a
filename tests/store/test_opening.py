"""Opening stores: the URL forms, schema versions, and files or servers that cannot be used."""

from __future__ import annotations

import socket
import sqlite3
import time
from pathlib import Path

import pytest

from dsh_tools import boot
from dsh_tools.store import SCHEMA_VERSION, MemoryStore, PostgresStore, SqliteStore, StoreError, open_store

from store_kinds import sqlite_url


def test_the_url_forms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert type(open_store("memory:")) is MemoryStore
    monkeypatch.chdir(tmp_path)
    relative = open_store("sqlite:///relative.db")
    assert type(relative) is SqliteStore and (tmp_path / "relative.db").exists()
    absolute = open_store(f"sqlite:///{tmp_path / 'absolute.db'}")  # sqlite:////abs/path
    assert type(absolute) is SqliteStore and absolute.path == str(tmp_path / "absolute.db")
    assert type(open_store("postgresql://nobody@127.0.0.1:1/x")) is PostgresStore  # connects on first use


@pytest.mark.parametrize("url", ["", "memory", "sqlite://", "sqlite:///", "mysql://x", "file:calls.db", 7, None])
def test_anything_else_is_a_value_error_naming_the_accepted_forms(url: object) -> None:
    with pytest.raises(ValueError, match='"memory:", "sqlite:///relative.db", "sqlite:////absolute.db"'):
        open_store(url)  # type: ignore[arg-type]


def test_boot_takes_a_url_or_a_store(tmp_path: Path) -> None:
    ctx = boot(store=sqlite_url(tmp_path))
    assert type(ctx.tools.store) is SqliteStore
    mine = MemoryStore()
    assert boot(store=mine).tools.store is mine
    assert type(boot().tools.store) is MemoryStore
    with pytest.raises(TypeError, match="store must be a CallStore"):
        boot(store=42)  # type: ignore[arg-type]


def test_a_corrupt_file_is_a_clear_error_at_open(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="is not a usable dsh-tools store"):
        SqliteStore(path)


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    SqliteStore(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE dsh_schema SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="written by a newer dsh-tools"):
        SqliteStore(path)


def test_a_file_written_before_is_opened_again_with_its_records(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    SqliteStore(path)
    again = SqliteStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM dsh_schema").fetchall() == [(SCHEMA_VERSION,)]
    assert again.durable


def test_a_directory_that_cannot_hold_the_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open SQLite store"):
        SqliteStore(tmp_path / "missing" / "dir" / "calls.db")


async def test_an_unreachable_postgres_is_a_clear_error_within_its_bound() -> None:
    with socket.socket() as holder:  # a port nothing answers on: bound, never listening
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        store = PostgresStore(f"postgresql://nobody@127.0.0.1:{port}/db", connect_timeout=2)
        started = time.monotonic()
        with pytest.raises(StoreError, match="cannot reach PostgreSQL within 2 s"):
            await store.journal()
        assert time.monotonic() - started < 30  # bounded (a generous guard against a hang, not a speed test)


async def test_a_postgres_database_of_a_newer_version_is_refused(fresh_postgres: str) -> None:
    import psycopg

    async with PostgresStore(fresh_postgres):
        pass
    with psycopg.connect(fresh_postgres, autocommit=True) as db:
        db.execute("UPDATE dsh_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="written by a newer dsh-tools"):
        async with PostgresStore(fresh_postgres):
            pass


def test_a_version_table_without_a_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    SqliteStore(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM dsh_schema")
    with pytest.raises(StoreError, match="has a dsh_schema table without a version"):
        SqliteStore(path)


def test_an_older_file_is_upgraded_through_each_migration_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dsh_tools.store import sql

    path = tmp_path / "calls.db"
    SqliteStore(path)
    monkeypatch.setattr(sql, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setattr(sql, "MIGRATIONS", {SCHEMA_VERSION: ("CREATE TABLE dsh_added (x INTEGER)",)})
    SqliteStore(path)
    SqliteStore(path)  # already upgraded: the migration does not run again (it would fail: the table exists)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM dsh_schema").fetchall() == [(SCHEMA_VERSION + 1,)]
        assert db.execute("SELECT count(*) FROM dsh_added").fetchone() == (0,)
