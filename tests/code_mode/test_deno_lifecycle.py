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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from deno_support import runtimes  # noqa: F401  # the fixture

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.deno._process import SandboxProcess
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest, CodeRunResult
from dsh_tools.json_values import JsonValue

DEADLINE_S = 20.0
"""Only a bound on polling: each state is normally reached within a fraction of it."""


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


# -- 13. a pooled process that died while it waited ------------------------------------


async def test_a_pooled_process_killed_while_waiting_is_not_handed_to_a_run(runtimes: list[DenoCodeRuntime]) -> None:
    # issue 24 #13: the dead process was handed out and the run reported "killed: out of memory".
    rt = DenoCodeRuntime(pool_size=1)
    runtimes.append(rt)
    await rt.warm()
    (pid,) = rt.live_pids
    os.kill(pid, signal.SIGKILL)
    # Blocking, without a loop turn: asyncio has not heard of the death yet, as when the OOM killer strikes.
    poll(lambda: gone(pid), "dead")
    result = await rt.run(CodeRunRequest("return 1 + 1", ()))
    assert result.error is None, result.error
    assert result.value == 2
    assert pid not in rt.live_pids


def sessions_given(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pid of every process a run session is started on, in order."""
    from dsh_tools.code_mode.deno import runtime as runtime_module
    from dsh_tools.code_mode.deno._run import RunSession

    given: list[int] = []

    class Spied(RunSession):
        def __init__(self, process: SandboxProcess, *args: Any) -> None:
            given.append(process.pid)
            super().__init__(process, *args)

    monkeypatch.setattr(runtime_module, "RunSession", Spied)
    return given


async def test_a_pooled_process_killed_right_before_a_run_is_never_handed_to_it(
    runtimes: list[DenoCodeRuntime], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 34 #17 (pool_kill9): for about 10 ms after the kill the process still read as alive in
    # /proc (running or sleeping, SIGKILL only pending), was handed out, and the run failed "killed".
    given = sessions_given(monkeypatch)
    rt = DenoCodeRuntime(pool_size=1)
    runtimes.append(rt)
    for _ in range(3):
        await rt.warm()
        await apoll(lambda: len(rt.live_pids) == 1, "the earlier run's process reaped, one in the pool")
        (pid,) = rt.live_pids
        os.kill(pid, signal.SIGKILL)  # and at once, no waiting for the kernel to finish it
        result = await rt.run(CodeRunRequest("return 1 + 1", ()))
        assert result.error is None, result.error
        assert result.value == 2
        assert pid not in given, "the killed process was handed to the run"


async def test_a_process_killed_after_checkout_before_it_reads_its_program_is_replaced(
    runtimes: list[DenoCodeRuntime], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check at checkout cannot see a kill that comes after it: a process that dies before it
    # has read its program never ran any of it, so the run goes to a fresh process.
    given = sessions_given(monkeypatch)
    rt = DenoCodeRuntime(pool_size=1)
    runtimes.append(rt)
    await rt.warm()
    pool = rt._pool  # noqa: SLF001 - the one seam between the check and the run
    take = pool.take
    killed: list[int] = []

    async def take_then_kill() -> SandboxProcess:
        process = await take()
        if not killed:
            killed.append(process.pid)
            os.kill(process.pid, signal.SIGKILL)
        return process

    monkeypatch.setattr(pool, "take", take_then_kill)
    calls: list[JsonValue] = []

    async def note(args: JsonValue) -> JsonValue:
        calls.append(args)
        return "noted"

    request = CodeRunRequest("return await ns.note({ n: 1 })", [CodeBindingNamespace("ns", {"note": note})])
    result = await rt.run(request)
    assert result.error is None, result.error
    assert result.value == "noted" and calls == [{"n": 1}]  # the program ran once, on the second process
    assert given[0] == killed[0] and len(given) == 2 and given[1] != killed[0]


# -- 14. the cap on processes ---------------------------------------------------------


async def test_runs_past_max_processes_queue_and_past_max_queued_runs_fail_clearly(
    runtimes: list[DenoCodeRuntime],
) -> None:
    # issue 24 #14: 20 concurrent runs made 22 processes; nothing bounded them.
    from dsh_tools import CodeRuntimeBusyError

    rt = DenoCodeRuntime(pool_size=2, max_processes=2, max_queued_runs=1)
    runtimes.append(rt)
    release = asyncio.Event()
    entered: list[int] = []

    async def hold(args: JsonValue) -> JsonValue:
        entered.append(1)
        await release.wait()
        return None

    request = CodeRunRequest("await ns.hold({}); return 'done'", [CodeBindingNamespace("ns", {"hold": hold})])
    first = asyncio.ensure_future(rt.run(request))
    second = asyncio.ensure_future(rt.run(request))
    await apoll(lambda: len(entered) == 2, "both runs holding a process")
    third = asyncio.ensure_future(rt.run(request))
    await apoll(lambda: rt.queued_runs == 1, "the third run queued")
    assert len(rt.live_pids) == 2, "no process beyond the cap, not even to top the pool up"
    with pytest.raises(CodeRuntimeBusyError, match="max_processes, max_queued_runs"):
        await rt.run(request)
    assert len(rt.live_pids) <= 2
    release.set()
    results = await asyncio.gather(first, second, third)
    assert [r.value for r in results] == ["done"] * 3, [r.error for r in results]
    assert rt.queued_runs == 0


async def test_a_queued_run_whose_signal_aborts_resolves_as_aborted(runtimes: list[DenoCodeRuntime]) -> None:
    from dsh_tools import AbortController

    rt = DenoCodeRuntime(pool_size=0, max_processes=1)
    runtimes.append(rt)
    release = asyncio.Event()

    async def hold(args: JsonValue) -> JsonValue:
        await release.wait()
        return None

    busy = asyncio.ensure_future(
        rt.run(CodeRunRequest("await ns.hold({})", [CodeBindingNamespace("ns", {"hold": hold})]))
    )
    await apoll(lambda: len(rt.live_pids) == 1, "the first run holding the only process")
    controller = AbortController()
    queued = asyncio.ensure_future(rt.run(CodeRunRequest("return 1", (), controller.signal)))
    await apoll(lambda: rt.queued_runs == 1, "the second run queued")
    controller.abort("changed my mind")
    result = await queued
    assert result.error is not None and result.error.kind == "abort" and "changed my mind" in result.error.message
    assert rt.queued_runs == 0
    release.set()
    assert (await busy).error is None


@pytest.mark.parametrize("name", ["max_processes", "max_queued_runs"])
def test_the_caps_are_checked(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        DenoCodeRuntime(**{name: -1})


# -- 15. a runtime dropped without dispose() ---------------------------------------------


async def test_a_runtime_dropped_without_dispose_kills_its_pooled_processes() -> None:
    # issue 24 #15: its pooled processes lived on until the host exited.
    import gc

    rt = DenoCodeRuntime(pool_size=2)
    await rt.warm()
    pids = rt.live_pids
    assert len(pids) == 2
    del rt
    gc.collect()
    await apoll(lambda: all(gone(pid) for pid in pids), "gone after the runtime was collected")
    gc.collect()  # what the finalizer let go (its processes' transports) goes while this loop can close it
    await asyncio.sleep(0)


# -- issue 23: dispose() while a run's process is still starting -------------------------


async def test_dispose_while_the_runs_process_starts_resolves_the_run_as_aborted() -> None:
    # issue 23: run() raised RuntimeError("the Deno sandbox process did not start").
    rt = DenoCodeRuntime(pool_size=0)
    run = asyncio.ensure_future(rt.run(CodeRunRequest("return 1", ())))
    while not rt.live_pids:  # every loop turn: the first one after the spawn, long before Deno has loaded
        await asyncio.sleep(0)
    (pid,) = rt.live_pids
    await asyncio.wait_for(rt.dispose(), 10)
    result: CodeRunResult = await run
    assert result.error is not None and result.error.kind == "abort"
    assert "disposed" in result.error.message
    assert gone(pid)
