"""``DenoCodeRuntime``: Code Mode programs as real TypeScript in a Deno sandbox.

Isolation is per process: every run gets a fresh ``deno`` process with no
permission at all, which no earlier run touched and which is killed when the
run ends, so no state survives between runs. The trusted side is the host:
``harness.js`` (the process's main module) loads the program as a TypeScript
blob module (Deno strips its types) and relays bindings, but it shares the
isolate with the program, so the host checks everything it says and enforces
every budget itself, from a watchdog thread. Start-up latency is hidden by a
pool of pre-started processes that have only loaded the harness.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Final

import orjson

from dsh_tools.code_mode.deno._pool import ProcessPool
from dsh_tools.code_mode.deno._process import Budgets, Limits, SandboxProcess, prepare_sandbox_dir
from dsh_tools.code_mode.deno._run import MAX_CLOCK_READS, RunSession, abort_message
from dsh_tools.code_mode.deno._watchdog import Watchdog
from dsh_tools.code_mode.runtime import CodeRunFailure, CodeRunRequest, CodeRunResult
from dsh_tools.code_mode.slots import DISPOSED, SlotsClosed, unless_aborted
from dsh_tools.errors import CodeRuntimeBusyError
from dsh_tools.signals import AbortSignal

__all__ = ["DenoCodeRuntime"]

_DIR_PREFIX: Final = "dsh-deno-"
_ATTEMPTS: Final = 3
"""Processes one run tries when each dies before it reads the program (killed while pooled)."""
_CPU_BACKSTOP_S: Final = 2
"""Seconds of CPU beyond ``compute_ms`` (and start-up) at which the kernel kills a process
the watchdog somehow missed."""


class DenoCodeRuntime:
    """The shipped :class:`~dsh_tools.code_mode.runtime.CodeRuntime` backend.

    ``compute_ms`` bounds the CPU time of the run's process, ``max_wall_ms``
    its lifetime; both end in SIGKILL and a ``timeout`` failure (as does the
    kernel's CPU limit, a SIGXCPU about two seconds of CPU later, should the
    host's watchdog miss the process). Logs are capped at ``max_log_bytes``
    (each entry costs its bytes plus one) and the
    JSON completion value at ``max_value_bytes`` (beyond that the value becomes
    a string holding its head and a ``truncated`` marker). ``max_heap_mb``
    caps V8's old space; resident memory above twice that plus 256 MB
    (ArrayBuffers live outside the V8 heap) also kills the process, as
    ``worker-exit``.

    A run may make at most ``max_calls`` binding calls, each with at most
    ``max_arg_bytes`` of JSON arguments holding at most ``max_arg_values``
    values (the host's work per call grows with both), and the arguments of
    calls not yet answered may total at most ``max_queued_bytes``; a call over
    a bound rejects in the program with a ``RangeError``.

    ``pool_size`` processes are kept started and loaded, ready for the next
    runs (0: every run starts its own, about 30 ms later). At most
    ``max_processes`` processes exist at once, pooled ones included (each
    holds up to ``max_heap_mb`` of heap); a run that finds them all busy
    waits for one, in arrival order, and past ``max_queued_runs`` waiting
    runs ``run`` raises :class:`~dsh_tools.errors.CodeRuntimeBusyError` at
    once (the ``run_code`` call then settles as an error saying so). A
    pooled process found dead at checkout is replaced, never blamed on the
    program, and so is one killed after checkout but before it read the
    program (none of which has then run): the program runs on another. A runtime dropped without :meth:`dispose` kills its processes
    when it is garbage-collected (and every process dies with its host,
    through a parent-death signal set at spawn).

    The completion value is what ``JSON.stringify`` makes of the returned
    value (``undefined`` → ``None``); a value it cannot represent (a BigInt, a
    cycle, a bare function or symbol, a lone surrogate) becomes its
    ``Deno.inspect`` string.
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
        max_arg_values: int = 100_000,
        max_queued_bytes: int = 16 << 20,
        pool_size: int = 2,
        max_processes: int = 8,
        max_queued_runs: int = 64,
    ) -> None:
        for name, value in (
            ("compute_ms", compute_ms),
            ("max_wall_ms", max_wall_ms),
            ("max_log_bytes", max_log_bytes),
            ("max_value_bytes", max_value_bytes),
            ("max_heap_mb", max_heap_mb),
            ("max_calls", max_calls),
            ("max_arg_bytes", max_arg_bytes),
            ("max_arg_values", max_arg_values),
            ("max_queued_bytes", max_queued_bytes),
            ("max_processes", max_processes),
        ):
            if type(value) is not int or value <= 0:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        for name, value in (("pool_size", pool_size), ("max_queued_runs", max_queued_runs)):
            if type(value) is not int or value < 0:
                raise ValueError(f"{name} must be an int >= 0, got {value!r}")
        queued = max(max_queued_bytes, max_arg_bytes)
        self._limits = Limits(
            max_log=max_log_bytes,
            max_value=max_value_bytes,
            max_args=max_arg_bytes,
            max_values=max_arg_values,
            max_calls=max_calls,
            max_queued=queued,
            heap_mb=max_heap_mb,
            cpu_s=-(-compute_ms // 1000) + _CPU_BACKSTOP_S,
        )
        self._budgets = Budgets(
            compute_ms=compute_ms,
            wall_ms=max_wall_ms,
            max_log=max_log_bytes,
            max_value=max_value_bytes,
            max_rss=(2 * max_heap_mb + 256) << 20,
            max_args=max_arg_bytes,
            max_values=max_arg_values,
            max_calls=max_calls,
            max_queued=queued,
        )
        self._owned = _Owned()
        self._pool = ProcessPool(
            self._spawn, self._retire, size=pool_size, cap=max_processes, max_waiting=max_queued_runs
        )
        self._watchdog = self._owned.watchdog
        self._sessions: set[RunSession] = set()
        self._processes = self._owned.processes
        self._disposed = False
        self._disposing: asyncio.Task[None] | None = None
        weakref.finalize(self, self._owned.abandon)

    @property
    def language(self) -> str:
        return "typescript"

    @property
    def isolation(self) -> str:
        return "process"

    @property
    def disposed(self) -> bool:
        return self._disposed

    @property
    def live_pids(self) -> frozenset[int]:
        """Pids of the Deno processes this runtime owns right now (the pool included)."""
        return frozenset(p.pid for p in self._processes if p.alive)

    @property
    def queued_runs(self) -> int:
        """Runs waiting for a process because ``max_processes`` are busy."""
        return self._pool.queued

    async def warm(self) -> None:
        """Start the pool now and wait until its processes are loaded (optional: runs do it too)."""
        if self._disposed:
            raise RuntimeError("DenoCodeRuntime is disposed")
        self._pool.fill()
        await self._pool.ready()

    async def run(self, request: CodeRunRequest, /) -> CodeRunResult:
        """Run one program; every program outcome is a result, never an exception."""
        if self._disposed:
            raise RuntimeError("DenoCodeRuntime is disposed")
        names = [ns.global_name for ns in request.bindings]
        if len(set(names)) != len(names) or not all(type(n) is str and n for n in names):
            raise ValueError(f"binding namespaces need distinct non-empty global names, got {names!r}")
        run_line = _encode_run(request)
        if isinstance(run_line, CodeRunFailure):  # decided before any process is taken
            return CodeRunResult((), None, run_line)
        signal = request.signal
        for attempt in range(1, _ATTEMPTS + 1):
            if signal is not None and signal.aborted:
                return CodeRunResult((), None, CodeRunFailure("abort", abort_message(signal.reason)))
            process = await self._checkout(signal)
            if isinstance(process, CodeRunResult):
                return process
            session = RunSession(process, request.bindings, signal, self._budgets, self._watchdog)
            self._sessions.add(session)
            try:
                result = await session.execute(run_line)  # its process is reaped whatever happens
            finally:
                retired = session.retired
                assert retired is not None
                retired.add_done_callback(functools.partial(self._forget, session, process))
            # A process killed after the check at checkout but before it read the program never ran it:
            # the program runs on another one (a few times at most: a harness that always dies says so).
            if not session.undelivered or attempt == _ATTEMPTS or self.disposed:
                return result
        raise AssertionError("unreachable: the last attempt returns")

    async def _checkout(self, signal: AbortSignal | None) -> SandboxProcess | CodeRunResult:
        """A process for one run, or the run's ``abort`` result (its signal aborted, or ``dispose()``) while it waited.

        Raises ``CodeRuntimeBusyError`` when every process is busy and the queue of waiting runs is full.
        """
        try:
            process = await unless_aborted(self._pool.take(), signal, self._retire_later)
        except SlotsClosed:
            process = None
        except CodeRuntimeBusyError:
            raise
        except Exception:
            if not self.disposed:
                raise  # Deno itself cannot start: not a program outcome
            process = None  # its start was cut short by dispose()
        if process is None or self.disposed:
            if process is not None:
                await self._retire(process)
            why = DISPOSED if self.disposed or signal is None else abort_message(signal.reason)
            return CodeRunResult((), None, CodeRunFailure("abort", why))
        return process

    def _retire_later(self, process: SandboxProcess) -> None:
        """A process taken for a run that stopped waiting for it: ours, but nobody will use it."""
        asyncio.ensure_future(self._retire(process))

    def _forget(self, session: RunSession, process: SandboxProcess, _retired: object) -> None:
        self._sessions.discard(session)
        self._processes.discard(process)
        self._pool.release(process)

    async def dispose(self) -> None:
        """Kill in-flight runs and the pool, wait until all of them are gone (idempotent)."""
        self._disposed = True
        if self._disposing is None:
            self._disposing = asyncio.ensure_future(self._shutdown())
        await asyncio.shield(self._disposing)

    async def _shutdown(self) -> None:
        for session in list(self._sessions):
            session.stop("abort", DISPOSED)
        await asyncio.gather(*(s.finished.wait() for s in list(self._sessions)))
        for process in await self._pool.drain():
            await self._retire(process)
        for process in list(self._processes):
            await self._retire(process)
        self._owned.abandon()

    # -- processes ------------------------------------------------------------------

    async def _spawn(self) -> SandboxProcess:
        """A started, loaded process; on failure none is left behind (the pool gives its slot back)."""
        if self._disposed:
            raise RuntimeError("DenoCodeRuntime is disposed")
        owned = self._owned
        if owned.dir is None:
            _remove_stale_dirs()
            owned.dir = tempfile.mkdtemp(prefix=f"{_DIR_PREFIX}{os.getpid()}-")
            prepare_sandbox_dir(owned.dir)
        process = await SandboxProcess.spawn(owned.dir, self._limits)
        self._processes.add(process)
        try:
            if self._disposed:
                raise RuntimeError("DenoCodeRuntime is disposed")
            await process.ready()
        except BaseException:
            await self._reap(process)
            raise
        return process

    async def _retire(self, process: SandboxProcess) -> None:
        """Kill and reap a process and give its slot back."""
        await self._reap(process)
        self._pool.release(process)

    async def _reap(self, process: SandboxProcess) -> None:
        self._processes.discard(process)
        if process.loop is asyncio.get_running_loop():
            await process.reap()
            for stream in (process.proc.stdout, process.proc.stderr):
                if stream is not None:
                    with contextlib.suppress(Exception):
                        await stream.read()
        else:  # spawned on another (closed) loop: all we can still do is kill it
            process.kill()


class _Owned:
    """What a runtime must clean up, apart from the runtime, so a finalizer can reach it."""

    __slots__ = ("processes", "dir", "watchdog")

    def __init__(self) -> None:
        self.processes: set[SandboxProcess] = set()
        self.dir: str | None = None
        self.watchdog = Watchdog()

    def abandon(self) -> None:
        """Kill every process, stop the watchdog, remove the directory (idempotent; no loop needed).

        ``dispose()`` ends here after reaping; a runtime dropped without it
        ends here from ``weakref.finalize``, so its pooled processes do not
        live on until the host exits.
        """
        for process in list(self.processes):
            process.kill()
        self.watchdog.close()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)


def _encode_run(request: CodeRunRequest) -> bytes | CodeRunFailure:
    try:
        return orjson.dumps({
            "program": request.program,
            "namespaces": [
                [ns.global_name, [str(k) for k in ns.functions], ns.lookup is not None, dict(ns.aliases)]
                for ns in request.bindings
            ],
            "seed": request.seed if type(request.seed) is int and 0 <= request.seed < 2**32 else None,
            "clock": [float(t) for t in request.clock[:MAX_CLOCK_READS]],
        })
    except TypeError:  # orjson refuses lone surrogates: not Unicode text, so not a program
        return CodeRunFailure("exception", "the program or a binding name holds a lone surrogate (not valid Unicode text)")


def _remove_stale_dirs() -> None:
    """Private directories left by a host that died without cleaning up (SIGKILL)."""
    with contextlib.suppress(OSError):
        for entry in Path(tempfile.gettempdir()).iterdir():
            name = entry.name
            if not name.startswith(_DIR_PREFIX):
                continue
            pid = name[len(_DIR_PREFIX) :].split("-", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's: leave it
    return True
