"""A store of each in-process kind for the thread suites (PostgreSQL and other processes: tests/store)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from dsh_tools.store import CallStore, MemoryStore, SqliteStore


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[CallStore]:
    made: CallStore = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "calls.db")
    async with made:
        yield made
