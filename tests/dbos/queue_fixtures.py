"""Fixtures of the queue suite: a store URL of each kind, and worker processes serving it (``conftest`` provides them)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cluster import Cluster


def _postgres_server() -> Any:
    """The store suites' PostgreSQL helper (``tests/store/postgres_server.py``), started the same way."""
    loaded = sys.modules.get("postgres_server")
    if loaded is None:
        spec = importlib.util.spec_from_file_location("postgres_server", Path(__file__).parents[1] / "store" / "postgres_server.py")
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules["postgres_server"] = loaded
        spec.loader.exec_module(loaded)
    return loaded


@pytest.fixture(scope="session")
def queue_postgres() -> Iterator[str]:
    with _postgres_server().postgres_server() as dsn:
        yield dsn


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A store URL (a fresh SQLite file, or a fresh PostgreSQL database) and a folder for the bodies' log."""
    folder = tmp_path_factory.mktemp(f"queues-{request.param}")
    if request.param == "sqlite":
        yield f"sqlite:///{folder / 'calls.db'}", folder
    else:
        yield _postgres_server().fresh_database(request.getfixturevalue("queue_postgres")), folder


@pytest.fixture(scope="module")
def cluster(backend: tuple[str, Path]) -> Iterator[Cluster]:
    """Three workers serving queue "work" of the backend's store (the tests set the queue's options)."""
    from dsh_tools.dbos import QueueOptions, configure

    url, folder = backend
    configure(url, queues={"work": QueueOptions()}).close()  # the system database and the queue, before any worker
    made = Cluster(url, "work", folder)
    try:
        made.start(3)
        yield made
    finally:
        made.close()
