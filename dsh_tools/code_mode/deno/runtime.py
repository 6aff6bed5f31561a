"""``DenoCodeRuntime``: Code Mode programs as real TypeScript in a Deno sandbox.

Isolation is per process: every run gets a fresh ``deno`` process with no
permission at all, killed when the run ends, so no state survives between runs.
Inside it, the trusted harness (``harness.js``) runs the program in a
``node:worker_threads`` worker (``worker.js``) because that is where Deno
checks *every* module load against the (empty) permission set and where an idle
event loop ends the worker; the program is loaded as a TypeScript blob module,
so Deno strips its types. Start-up latency is hidden by a warm spare: while one
run executes, the next process is already loading and waits for its program.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from typing import Final

import orjson

from dsh_tools.code_mode.deno._process import Limits, SandboxProcess
from dsh_tools.code_mode.deno._run import Budgets, RunSession, abort_message
from dsh_tools.code_mode.runtime import CodeRunFailure, CodeRunRequest, CodeRunResult

__all__ = ["DenoCodeRuntime"]

_MAX_ARGS: Final = 4 << 20
"""Largest JSON argument text of one binding call (characters)."""


class DenoCodeRuntime:
    """The shipped :class:`~dsh_tools.code_mode.runtime.CodeRuntime` backend.

    ``compute_ms`` bounds the CPU time of the process, ``max_wall_ms`` its
    lifetime; both end in SIGKILL and a ``timeout`` failure. Logs are capped at
    ``max_log_bytes`` and the JSON completion value at ``max_value_bytes``
    (beyond that the value becomes a string holding its head and a
    ``truncated`` marker). ``max_heap_mb`` caps V8's old space; resident memory
    above twice that plus 256 MB (ArrayBuffers live outside the V8 heap) also
    kills the process, as ``worker-exit``.

    The completion value is what ``JSON.stringify`` makes of the returned
    value (``undefined`` → ``None``); a value it cannot represent (a BigInt, a
    cycle, a bare function or symbol) becomes its ``Deno.inspect`` string.
    """

    def __init__(
        self,
        *,
        compute_ms: int = 60_000,
        max_wall_ms: int = 600_000,
        max_log_bytes: int = 65_536,
        max_value_bytes: int = 32_768,
        max_heap_mb: int = 512,
    ) -> None:
        for name, value in (
            ("compute_ms", compute_ms),
            ("max_wall_ms", max_wall_ms),
            ("max_log_bytes", max_log_bytes),
            ("max_value_bytes", max_value_bytes),
            ("max_heap_mb", max_heap_mb),
        ):
            if type(value) is not int or value <= 0:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        self._limits = Limits(max_log=max_log_bytes, max_value=max_value_bytes, max_args=_MAX_ARGS, heap_mb=max_heap_mb)
        self._budgets = Budgets(
            compute_ms=compute_ms,
            wall_ms=max_wall_ms,
            max_log=max_log_bytes,
            max_value=max_value_bytes,
            max_frame=2 * _MAX_ARGS + 8 * (max_log_bytes + max_value_bytes) + 65_536,
            max_rss=(2 * max_heap_mb + 256) << 20,
        )
        self._deno_dir: str | None = None
        self._spare: asyncio.Task[SandboxProcess] | None = None
        self._sessions: set[RunSession] = set()
        self._processes: set[SandboxProcess] = set()
        self._disposed = False
        self._disposing: asyncio.Task[None] | None = None

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
        """Pids of the Deno processes this runtime owns right now (spare included)."""
        return frozenset(p.pid for p in self._processes if p.alive)

    async def run(self, request: CodeRunRequest, /) -> CodeRunResult:
        """Run one program; every program outcome is a result, never an exception."""
        if self._disposed:
            raise RuntimeError("DenoCodeRuntime is disposed")
        names = [ns.global_name for ns in request.bindings]
        if len(set(names)) != len(names) or not all(type(n) is str and n for n in names):
            raise ValueError(f"binding namespaces need distinct non-empty global names, got {names!r}")
        signal = request.signal
        if signal is not None and signal.aborted:
            return CodeRunResult((), None, CodeRunFailure("abort", abort_message(signal.reason)))
        process = await self._take_spare()
        if self.disposed:  # disposed while we were waiting for the process
            await self._retire(process)
            raise RuntimeError("DenoCodeRuntime is disposed")
        self._spare = asyncio.create_task(self._spawn())
        session = RunSession(process, request.bindings, signal, self._budgets)
        self._sessions.add(session)
        run_line = orjson.dumps({
            "program": request.program,
            "namespaces": [[ns.global_name, [str(k) for k in ns.functions]] for ns in request.bindings],
            **self._limits.to_json(),
        })
        try:
            return await session.execute(run_line)
        finally:
            self._sessions.discard(session)
            self._processes.discard(process)

    async def dispose(self) -> None:
        """Kill in-flight runs and the spare, wait until all of them are gone (idempotent)."""
        self._disposed = True
        if self._disposing is None:
            self._disposing = asyncio.ensure_future(self._shutdown())
        await asyncio.shield(self._disposing)

    async def _shutdown(self) -> None:
        for session in list(self._sessions):
            session.stop("abort", "the run was aborted: the code runtime was disposed")
        await asyncio.gather(*(s.finished.wait() for s in list(self._sessions)))
        spare, self._spare = self._spare, None
        if spare is not None:
            with contextlib.suppress(Exception):
                await self._retire(await spare)
        for process in list(self._processes):
            await self._retire(process)
        if self._deno_dir is not None:
            shutil.rmtree(self._deno_dir, ignore_errors=True)

    # -- the warm spare -------------------------------------------------------------

    async def _spawn(self) -> SandboxProcess:
        if self._deno_dir is None:
            self._deno_dir = tempfile.mkdtemp(prefix="dsh-deno-")
        process = await SandboxProcess.spawn(self._deno_dir, self._limits)
        self._processes.add(process)
        return process

    async def _take_spare(self) -> SandboxProcess:
        spare, self._spare = self._spare, None
        if spare is not None:
            try:
                process = await spare
            except Exception:  # noqa: BLE001 - a failed spawn: try once more below
                process = None
            if process is not None:
                if process.alive and process.loop is asyncio.get_running_loop():
                    return process
                await self._retire(process)
        return await self._spawn()

    async def _retire(self, process: SandboxProcess) -> None:
        self._processes.discard(process)
        if process.loop is asyncio.get_running_loop():
            await process.reap()
            for stream in (process.proc.stdout, process.proc.stderr):
                if stream is not None:
                    with contextlib.suppress(Exception):
                        await stream.read()
        else:  # spawned on another (closed) loop: all we can still do is kill it
            process.kill()
