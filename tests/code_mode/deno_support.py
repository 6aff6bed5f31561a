"""What the Deno runtime suites share (imported by name: a fixture is found where it is imported)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import pytest

from dsh_tools.code_mode.deno import DenoCodeRuntime


@pytest.fixture
async def runtimes() -> AsyncIterator[list[DenoCodeRuntime]]:
    """Runtimes a test makes; afterwards each is disposed and none of its processes is left."""
    made: list[DenoCodeRuntime] = []
    yield made
    pids: set[int] = set()
    for rt in made:
        pids |= rt.live_pids
        await asyncio.wait_for(rt.dispose(), 10)
    assert all(not os.path.exists(f"/proc/{pid}") for pid in pids)
