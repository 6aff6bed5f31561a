"""Fixtures of the inspector suites (imported by the tests that use them): a store file, an agent process with one parked call, and ``dsh-tools inspect`` on it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'calls.db'}"


@pytest.fixture
def parked_agent(store_url: str) -> Iterator[subprocess.Popen[str]]:
    agent = subprocess.Popen([sys.executable, str(HERE / "agent_for_inspector.py"), store_url], stdout=subprocess.PIPE, text=True)
    assert agent.stdout is not None
    assert agent.stdout.readline().startswith("parked ")
    yield agent
    agent.kill()
    agent.wait(timeout=30)


@contextmanager
def serving_inspector(store_url: str) -> Iterator[str]:
    """``dsh-tools inspect`` on ``store_url`` in a process of its own, while the block runs: its URL (with the token)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "dsh_tools.cli", "inspect", "--store", store_url, "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("dsh-tools inspector: http://127.0.0.1:"), line
        yield line.split(": ", 1)[1].strip()
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def inspector_url(store_url: str) -> Iterator[str]:
    with serving_inspector(store_url) as url:
        yield url
