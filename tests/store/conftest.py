"""Fixtures for the store suites: a store of each kind, fresh per test, a durable store's URL, and one PostgreSQL server per session.

Where each kind of store lives is said once, in ``store_kinds``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from dsh_tools.store import CallStore

from postgres_server import fresh_database, postgres_server
from store_kinds import DURABLE, KINDS, store_of, url_of


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    with postgres_server() as dsn:
        yield dsn


@pytest.fixture
def fresh_postgres(postgres_dsn: str) -> Iterator[str]:
    """A database of its own for one test (so tests never see each other's rows)."""
    yield fresh_database(postgres_dsn)


@pytest.fixture(params=KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[CallStore]:
    """An open store of each kind."""
    async with store_of(request.param, tmp_path, request) as made:
        yield made


@pytest.fixture(params=DURABLE)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a durable store of each kind, for processes (and ``boot``, ``open_store``, the CLI) to open."""
    return url_of(request.param, tmp_path, request)
