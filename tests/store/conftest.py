"""Fixtures for the store suites: a store of each kind, fresh per test, and one PostgreSQL server per session."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from dsh_tools.store import CallStore, MemoryStore, PostgresStore, SqliteStore

from postgres_server import fresh_database, postgres_server


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    with postgres_server() as dsn:
        yield dsn


@pytest.fixture
def fresh_postgres(postgres_dsn: str) -> Iterator[str]:
    """A database of its own for one test (so tests never see each other's rows)."""
    yield fresh_database(postgres_dsn)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[CallStore]:
    kind = request.param
    made: CallStore
    if kind == "memory":
        made = MemoryStore()
    elif kind == "sqlite":
        made = SqliteStore(tmp_path / "calls.db")
    else:
        made = PostgresStore(request.getfixturevalue("fresh_postgres"))
    async with made:
        yield made
