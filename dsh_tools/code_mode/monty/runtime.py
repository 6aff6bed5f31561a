"""``MontyCodeRuntime``: Code Mode programs as Python, in Monty's sandboxed interpreter.

Why Monty (measured on the 2-core development machine; ``docs/code-mode.md``
has the table): its interpreter denies files, network, environment and
processes by construction (there is no ``socket`` or ``subprocess`` module,
``open`` and ``os`` reach a host handler that refuses), enforces execution
time, heap and recursion limits itself, and runs in a pool of worker
processes the host can kill. An empty program costs about half a
millisecond; Pyodide in Deno costs 6-8 s of CPU and 200 MB to load, and
CPython under bubblewrap 20-150 ms per start and needs a filesystem view
to import its own standard library.

Each run checks a fresh interpreter session out of the worker pool (no
state of an earlier run survives: the tests check it), feeds
the bindings' prelude, then the program itself (so its line numbers are its
own). Every binding call suspends the interpreter and reaches the host's
``_dsh_call``, which checks what the program sent (it is a hostile peer like
the Deno pipe) before handing it to the bridge's binding. Budgets: the
interpreter's own execution-time limit is ``compute_ms`` (it counts only
while the program runs, not while it waits for tools), heap is
``max_heap_mb``, the wall clock ``max_wall_ms`` is the host's (cancelling
the feed kills its worker), logs and the completion value are capped here.

Replay: ``random`` is seeded with ``CodeRunRequest.seed``; the clock is
routed to the host (``os_policy`` ``call_host``) so that ``time.time()``,
``time.monotonic()``, ``datetime.now()`` and ``date.today()`` answer a rerun
with the first run's reads, in order (``CodeRunResult.clock``).
"""

from __future__ import annotations

import asyncio
import keyword
import os
import time
from pathlib import Path
from typing import Any, Final

from dsh_tools.code_mode.deno._run import abort_message
from dsh_tools.code_mode.monty._run import MontyRun
from dsh_tools.code_mode.runtime import CodeRunFailure, CodeRunRequest, CodeRunResult
from dsh_tools.code_mode.slots import DISPOSED, Slots, SlotsClosed, unless_aborted
from dsh_tools.signals import AbortSignal

__all__ = ["MontyCodeRuntime"]

_QUIESCENCE_S: Final = 5.0
"""The longest ``dispose()`` waits for the pool's workers to be gone."""


class MontyCodeRuntime:
    """The Python :class:`~dsh_tools.code_mode.runtime.CodeRuntime` (extra ``dsh-tools[python]``).

    ``compute_ms`` bounds the program's execution time (the interpreter's
    clock, which stops while the program waits for a tool), ``max_wall_ms``
    the whole run; both end as a ``timeout`` failure. ``max_heap_mb`` caps
    the interpreter's heap (a ``MemoryError`` the program cannot outlive),
    ``max_log_bytes`` the captured ``print`` output, ``max_value_bytes`` the
    JSON completion value (beyond it the value becomes a string holding its
    head and a ``truncated`` marker), ``max_calls`` and ``max_arg_bytes`` the
    binding calls (past them a call raises ``ValueError`` in the program).
    ``pool_size`` workers are kept started for the next runs.

    At most ``max_processes`` runs hold a worker at once; a run that finds
    them all busy waits for one, in arrival order, and past
    ``max_queued_runs`` waiting runs ``run`` raises
    :class:`~dsh_tools.errors.CodeRuntimeBusyError` at once: the rule of
    the Deno runtime (:mod:`dsh_tools.code_mode.slots`). The wall clock of
    a run starts when it holds its worker, not while it waits for one.

    The completion value is the returned value as JSON (tuples as lists);
    anything JSON cannot hold becomes its ``repr``.
    """

    def __init__(
        self,
        *,
        compute_ms: int = 60_000,
        max_wall_ms: int = 600_000,
        max_log_bytes: int = 65_536,
        max_value_bytes: int = 32_768,
        max_heap_mb: int = 512,
        max_calls: int = 10_000,
        max_arg_bytes: int = 4 << 20,
        pool_size: int = 1,
        max_processes: int = 8,
        max_queued_runs: int = 64,
    ) -> None:
        for label, value in (
            ("compute_ms", compute_ms),
            ("max_wall_ms", max_wall_ms),
            ("max_log_bytes", max_log_bytes),
            ("max_value_bytes", max_value_bytes),
            ("max_heap_mb", max_heap_mb),
            ("max_calls", max_calls),
            ("max_arg_bytes", max_arg_bytes),
            ("max_processes", max_processes),
        ):
            if type(value) is not int or value <= 0:
                raise ValueError(f"{label} must be a positive int, got {value!r}")
        for label, value in (("pool_size", pool_size), ("max_queued_runs", max_queued_runs)):
            if type(value) is not int or value < 0:
                raise ValueError(f"{label} must be an int >= 0, got {value!r}")
        self.compute_ms, self.max_wall_ms = compute_ms, max_wall_ms
        self.max_log_bytes, self.max_value_bytes = max_log_bytes, max_value_bytes
        self.max_heap_mb, self.max_calls, self.max_arg_bytes = max_heap_mb, max_calls, max_arg_bytes
        self._pool_size, self._max_processes = min(pool_size, max_processes), max_processes
        self._slots = Slots(max_processes, max_queued_runs)
        self._pool: Any = None
        self._starting: asyncio.Task[Any] | None = None
        self._runs: set[asyncio.Task[CodeRunResult]] = set()
        self._disposed = False

    @property
    def language(self) -> str:
        return "python"

    @property
    def isolation(self) -> str:
        return "process"

    @property
    def disposed(self) -> bool:
        return self._disposed

    @property
    def queued_runs(self) -> int:
        """Runs waiting for a worker because ``max_processes`` are busy."""
        return self._slots.queued

    @property
    def live_pids(self) -> frozenset[int]:
        """Pids of the Monty worker processes this host process has right now."""
        return _worker_pids()

    async def warm(self) -> None:
        """Start the worker pool now (optional: the first run does it too)."""
        await self._started()

    async def _started(self) -> Any:
        if self._disposed:
            raise RuntimeError("MontyCodeRuntime is disposed")
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        return await asyncio.shield(self._starting)

    async def _start(self) -> Any:
        from pydantic_monty import AsyncMonty

        # Each run is a fresh session: no state of an earlier run survives in the interpreter. The
        # worker process itself is reused (recycling it after every run, max_checkouts_per_worker=1,
        # measured as a SIGABRT at interpreter exit in about one process in ten with pydantic-monty 1.4).
        # Monty's own cap is ours: the slots admit no more checkouts than it has workers for, so no run
        # waits inside Monty, where neither its signal nor the queue bound could reach it.
        pool = AsyncMonty(
            min_processes=self._pool_size,
            max_processes=self._max_processes,
            request_timeout=self.max_wall_ms / 1000 + 5,
        )
        await pool.__aenter__()
        self._pool = pool
        return pool

    async def run(self, request: CodeRunRequest, /) -> CodeRunResult:
        """Run one program; every program outcome is a result, never an exception."""
        names = [ns.global_name for ns in request.bindings]
        if len(set(names)) != len(names) or not all(_is_global_name(n) for n in names):
            raise ValueError(f"binding namespaces need distinct identifier global names, got {names!r}")
        pool = await self._started()
        signal = request.signal
        if signal is not None and signal.aborted:
            return CodeRunResult((), None, CodeRunFailure("abort", abort_message(signal.reason)))
        try:
            holding = await unless_aborted(self._slots.take(), signal, lambda _: self._slots.give_back())
        except SlotsClosed:
            return CodeRunResult((), None, CodeRunFailure("abort", DISPOSED))
        if not holding:
            assert signal is not None  # only a signal stops the wait without raising
            return CodeRunResult((), None, CodeRunFailure("abort", abort_message(signal.reason)))
        try:
            if self._disposed:  # while this run was handed its slot
                return CodeRunResult((), None, CodeRunFailure("abort", DISPOSED))
            run = MontyRun(self, request)
            task = asyncio.ensure_future(run.execute(pool))
            self._runs.add(task)
            task.add_done_callback(self._runs.discard)
            return await _bounded(task, self.max_wall_ms / 1000, signal, run)  # the wall clock starts here
        finally:
            self._slots.give_back()

    async def dispose(self) -> None:
        """Stop in-flight runs and the pool, and wait until every worker is gone (idempotent).

        Runs in flight, and runs still waiting for a worker, resolve as ``abort`` failures.
        """
        self._disposed = True
        self._slots.close(DISPOSED)
        for task in list(self._runs):
            task.cancel()
        await asyncio.gather(*self._runs, return_exceptions=True)
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.__aexit__(None, None, None)
            await _quiescent()


async def _quiescent() -> None:
    """Wait (at most ``_QUIESCENCE_S``) until no worker process is left, then a little more.

    pydantic-monty 1.4 replaces a killed worker in the background; a process
    that exits while that is still in flight can abort (SIGABRT) in native
    code at interpreter exit. Waiting here for the workers to be gone, and
    for the pool's own threads to settle, makes ``dispose()`` the point after
    which nothing of the runtime runs.
    """
    deadline = time.monotonic() + _QUIESCENCE_S
    while _worker_pids() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)


async def _bounded(
    task: asyncio.Task[CodeRunResult], wall_s: float, signal: AbortSignal | None, run: MontyRun
) -> CodeRunResult:
    """The run's result, or a ``timeout``/``abort`` failure after cancelling it (which kills its worker)."""
    stopped: list[CodeRunFailure] = []

    def stop(reason: object) -> None:
        if not stopped:
            stopped.append(CodeRunFailure("abort", abort_message(reason)))
            task.cancel()

    follow = signal.add_listener(stop) if signal is not None else None
    try:
        try:
            done, _ = await asyncio.wait({task}, timeout=wall_s)
        except asyncio.CancelledError:  # the caller's: the run ends with it, and its worker before its slot
            task.cancel()
            await asyncio.wait({task}, timeout=_QUIESCENCE_S)
            raise
        if not done:
            stopped.append(CodeRunFailure("timeout", f"the run exceeded its wall-clock budget of {wall_s * 1000:.0f} ms"))
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    finally:
        if follow is not None:
            follow()
    if not stopped and task.cancelled():  # not by us, nor by our caller (that raises above): by dispose()
        stopped.append(CodeRunFailure("abort", DISPOSED))
    if stopped:
        return CodeRunResult(run.logs.entries, None, stopped[0], tuple(run.clock))
    return task.result()


def _is_global_name(name: object) -> bool:
    return (
        type(name) is str and name.isascii() and name.isidentifier() and not keyword.iskeyword(name)
        and not name.startswith("_")
    )


def _worker_pids() -> frozenset[int]:
    """Children of this process whose command is Monty's worker binary."""
    me = str(os.getpid())
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        command, _, rest = stat.partition(" (")[2].rpartition(") ")
        if rest.split(" ", 2)[1] == me and command.startswith("monty"):
            pids.add(int(entry.name))
    return frozenset(pids)
