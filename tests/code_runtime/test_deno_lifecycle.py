"""The runtime's processes over their whole life: host death, a dead pooled process, the cap, dropping, disposing.

* A host killed by SIGKILL takes its Deno processes with it (a parent-death
  signal set at spawn), even while a program spins and never looks up.
* A pooled process that died while it waited is never handed to a run.
* ``max_processes`` caps the processes of one runtime; runs past it queue, and
  past ``max_queued_runs`` a run resolves with a clear error at once.
* A runtime dropped without ``dispose()`` kills its processes when collected.
* ``dispose()`` while a run's process is still starting resolves the run with
  an ``abort`` failure instead of raising.

Waiting is done by polling an observable state with a bounded deadline, never
by a fixed sleep.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult

DEADLINE_S = 20.0
"""Only a bound on polling: each state is normally reached within a fraction of it."""


@pytest.fixture
async def runtimes() -> AsyncIterator[list[DenoCodeRuntime]]:
    """Runtimes a test makes; afterwards each is disposed and none of its processes is left."""
    made: list[DenoCodeRuntime] = []
    yield made
    pids: set[int] = set()
    for rt in made:
        pids |= rt.live_pids
        await asyncio.wait_for(rt.dispose(), 10)
    assert all(gone(pid) for pid in pids)


def state(pid: int) -> str | None:
    """The process's state letter from /proc, ``None`` once it no longer exists."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def gone(pid: int) -> bool:
    return state(pid) in (None, "Z", "X")


def cpu_ms(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def poll(condition: Callable[[], bool], what: str) -> None:
    """Wait (blocking, without yielding to the loop) until ``condition()``; fail past the deadline."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"still not {what} after {DEADLINE_S} s")
        time.sleep(0.01)


async def apoll(condition: Callable[[], bool], what: str) -> None:
    """Like :func:`poll`, but lets the event loop run meanwhile."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"still not {what} after {DEADLINE_S} s")
        await asyncio.sleep(0.01)


# -- 12. the host dies ---------------------------------------------------------------

_HOST = textwrap.dedent(
    """
    import asyncio, sys
    from dsh_tools.code_mode.deno import DenoCodeRuntime
    from dsh_tools.code_mode.runtime import CodeRunRequest

    async def main() -> None:
        rt = DenoCodeRuntime(pool_size=0)
        run = asyncio.ensure_future(rt.run(CodeRunRequest("for (;;) {}", ())))
        while not rt.live_pids:
            await asyncio.sleep(0.01)
        print(*rt.live_pids, flush=True)
        await run

    asyncio.run(main())
    """
)


def test_a_host_killed_by_sigkill_takes_its_spinning_deno_process_with_it() -> None:
    # issue 24 #12: the orphan ran on until RLIMIT_CPU (about a minute with the default budget).
    host = subprocess.Popen([sys.executable, "-c", _HOST], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        (pid,) = map(int, host.stdout.readline().split())
        poll(lambda: cpu_ms(pid) >= 300, "spinning")  # the program runs: the harness no longer looks up
        host.send_signal(signal.SIGKILL)
        host.wait()
        poll(lambda: gone(pid), "gone after its host died")
    finally:
        host.kill()
        host.wait()
