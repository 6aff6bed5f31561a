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
import datetime as _dt
import keyword
import math
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dsh_tools.code_mode.deno._logs import LogSink
from dsh_tools.code_mode.deno._run import MAX_CLOCK_READS, abort_message
from dsh_tools.code_mode.runtime import Binding, CodeBindingNamespace, CodeRunFailure, CodeRunRequest, CodeRunResult
from dsh_tools.json_values import dumps, thaw_json
from dsh_tools.signals import AbortSignal

__all__ = ["MontyCodeRuntime"]

_QUIESCENCE_S: Final = 5.0
_MAX_MESSAGE: Final = 8192
"""Characters of an error's traceback text kept in the failure message."""
_PRELUDE: Final = '''\
ToolError = RuntimeError


def _dsh_bind(index, name):
    async def call(*args, **kwargs):
        return await _dsh_call(index, name, args, kwargs)
    return call


_dsh_tables = []
for _dsh_index, _dsh_names in enumerate(_dsh_namespaces):
    _dsh_tables.append({_dsh_name: _dsh_bind(_dsh_index, _dsh_name) for _dsh_name in _dsh_names})
'''
_NAMESPACE: Final = '''

class _DshNamespace{index}:
    def __getitem__(self, name):
        return _dsh_tables[{index}][name]


{name} = _DshNamespace{index}()
for _dsh_name, _dsh_function in _dsh_tables[{index}].items():
    if not _dsh_name.startswith("__"):
        setattr({name}, _dsh_name, _dsh_function)
'''


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
    ) -> None:
        for label, value in (
            ("compute_ms", compute_ms),
            ("max_wall_ms", max_wall_ms),
            ("max_log_bytes", max_log_bytes),
            ("max_value_bytes", max_value_bytes),
            ("max_heap_mb", max_heap_mb),
            ("max_calls", max_calls),
            ("max_arg_bytes", max_arg_bytes),
        ):
            if type(value) is not int or value <= 0:
                raise ValueError(f"{label} must be a positive int, got {value!r}")
        if type(pool_size) is not int or pool_size < 0:
            raise ValueError(f"pool_size must be an int >= 0, got {pool_size!r}")
        self.compute_ms, self.max_wall_ms = compute_ms, max_wall_ms
        self.max_log_bytes, self.max_value_bytes = max_log_bytes, max_value_bytes
        self.max_heap_mb, self.max_calls, self.max_arg_bytes = max_heap_mb, max_calls, max_arg_bytes
        self._pool_size = pool_size
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
        pool = AsyncMonty(min_processes=self._pool_size, request_timeout=self.max_wall_ms / 1000 + 5)
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
        run = _Run(self, request)
        task = asyncio.ensure_future(run.execute(pool))
        self._runs.add(task)
        task.add_done_callback(self._runs.discard)
        return await _bounded(task, self.max_wall_ms / 1000, signal, run)

    async def dispose(self) -> None:
        """Stop in-flight runs and the pool, and wait until every worker is gone (idempotent)."""
        self._disposed = True
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
    task: asyncio.Task[CodeRunResult], wall_s: float, signal: AbortSignal | None, run: _Run
) -> CodeRunResult:
    """The run's result, or a ``timeout``/``abort`` failure after cancelling it (which kills its worker)."""
    stopped: list[CodeRunFailure] = []

    def stop(reason: object) -> None:
        if not stopped:
            stopped.append(CodeRunFailure("abort", abort_message(reason)))
            task.cancel()

    follow = signal.add_listener(stop) if signal is not None else None
    try:
        done, _ = await asyncio.wait({task}, timeout=wall_s)
        if not done:
            stopped.append(CodeRunFailure("timeout", f"the run exceeded its wall-clock budget of {wall_s * 1000:.0f} ms"))
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    finally:
        if follow is not None:
            follow()
    if stopped:
        return CodeRunResult(run.logs.entries, None, stopped[0], tuple(run.clock))
    return task.result()


class _Run:
    """One program run: the host side of its bindings, its logs and clock reads."""

    def __init__(self, runtime: MontyCodeRuntime, request: CodeRunRequest) -> None:
        self.runtime = runtime
        self.request = request
        self.tables: list[Mapping[str, Binding]] = [ns.functions for ns in request.bindings]
        self.logs = LogSink(runtime.max_log_bytes)
        self.clock: list[float] = []
        self.replayed = [float(t) for t in request.clock[:MAX_CLOCK_READS] if _finite(t)]
        self.calls = 0

    async def execute(self, pool: Any) -> CodeRunResult:
        from pydantic_monty import MontyError

        runtime, request = self.runtime, self.request
        limits: dict[str, Any] = {
            "max_feed_duration_secs": runtime.compute_ms / 1000,
            "max_memory": runtime.max_heap_mb << 20,
            "max_suspensions": runtime.max_calls + MAX_CLOCK_READS + 1000,
            "max_total_sleep_secs": runtime.max_wall_ms / 1000,
        }
        policy: dict[str, Any] = {"datetime": "call_host", "sleep_system_max": runtime.max_wall_ms / 1000}
        if type(request.seed) is int:
            policy["random_start"] = {"seed": request.seed}
        try:
            async with pool.checkout(limits=limits, os_policy=policy, script_name="program.py") as session:
                namespaces = [[str(name) for name in table] for table in self.tables]
                await session.feed_run(_prelude(request.bindings), inputs={"_dsh_namespaces": namespaces})
                value = await session.feed_run(
                    request.program,
                    external_lookup={"_dsh_call": self.call},
                    print_callback=self.print,
                    os=self.os,
                )
        except MontyError as error:
            self.logs.close()
            return CodeRunResult(self.logs.entries, None, _failure(error), tuple(self.clock))
        except UnicodeError:
            failure = CodeRunFailure("exception", "the program holds a lone surrogate (not valid Unicode text)")
            return CodeRunResult((), None, failure, ())
        self.logs.close()
        return CodeRunResult(self.logs.entries, self._completion(value), None, tuple(self.clock))

    async def call(self, index: object, name: object, args: object, kwargs: object) -> object:
        """``_dsh_call`` inside the sandbox: check what the program sent, then run the binding."""
        if type(index) is not int or not 0 <= index < len(self.tables) or type(name) is not str:
            raise TypeError("not a tool binding")
        binding = self.tables[index].get(name)
        if binding is None:
            raise TypeError(f"no tool named {name!r}")
        if type(args) is not tuple or type(kwargs) is not dict:
            raise TypeError(f"{name}(): malformed call")
        if args and (len(args) != 1 or kwargs):
            raise TypeError(f"{name}() takes keyword arguments, or one dict of arguments")
        payload = args[0] if args else kwargs
        self.calls += 1
        if self.calls > self.runtime.max_calls:
            raise ValueError(f"the program made more than {self.runtime.max_calls} tool calls")
        try:
            size = len(dumps(payload))
        except Exception:
            raise TypeError(f"{name}(): arguments are not JSON") from None
        if size > self.runtime.max_arg_bytes:
            raise ValueError(f"{name}(): arguments are over the {self.runtime.max_arg_bytes}-byte limit")
        try:
            result = await binding(payload)  # type: ignore[arg-type, unused-ignore]  # the binding checks it (freeze_json)
        except TypeError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a denial or failure: ToolError (RuntimeError) inside, its text as str()
            raise RuntimeError(str(error) or type(error).__name__) from None
        return thaw_json(result)

    def print(self, stream: str, text: str) -> None:
        self.logs.stream("stderr" if stream == "stderr" else "stdout", text.encode("utf-8", "replace"))

    def os(self, *, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], **_: Any) -> Any:
        """Clock reads, answered from the first run's reads on a rerun; every other OS call is refused."""
        from pydantic_monty import NOT_HANDLED

        if name not in ("time.time", "datetime.now", "date.today"):
            return NOT_HANDLED
        index = len(self.clock)
        now = self.replayed[index] if index < len(self.replayed) else time.time()
        if index < MAX_CLOCK_READS:
            self.clock.append(now)
        if name == "time.time":
            return now
        if name == "date.today":
            return _dt.date.fromtimestamp(now)
        zone = args[0] if args and isinstance(args[0], _dt.tzinfo) else None
        return _dt.datetime.fromtimestamp(now, zone)

    def _completion(self, value: object) -> Any:
        plain = _plain(value, 0)
        text = dumps(plain).decode("utf-8", "replace")
        limit = self.runtime.max_value_bytes
        if len(text.encode("utf-8")) <= limit:
            return plain
        cut = text.encode("utf-8")[:limit].decode("utf-8", "ignore")
        return f"{cut}… [value truncated: {len(text)} characters of JSON, over the {limit}-byte limit]"


def _prelude(bindings: Sequence[CodeBindingNamespace]) -> str:
    """The source fed before the program: ``ToolError`` and one namespace object per global."""
    parts = [_PRELUDE]
    for index, namespace in enumerate(bindings):
        parts.append(_NAMESPACE.format(index=index, name=namespace.global_name))
    return "".join(parts)


def _is_global_name(name: object) -> bool:
    return (
        type(name) is str and name.isascii() and name.isidentifier() and not keyword.iskeyword(name)
        and not name.startswith("_")
    )


def _failure(error: Exception) -> CodeRunFailure:
    """A Monty error as a failure: the interpreter's time limit is a ``timeout``, a dead worker ``worker-exit``."""
    from pydantic_monty import MontyCrashedError, MontyRuntimeError, MontySyntaxError

    if isinstance(error, MontyCrashedError):
        if getattr(error, "timed_out", False):
            return CodeRunFailure("timeout", f"the Python worker stopped: {error}")
        return CodeRunFailure("worker-exit", f"the Python worker stopped: {error}")
    if isinstance(error, (MontySyntaxError, MontyRuntimeError)):
        try:
            text = error.display()
            headline = error.display("type-msg")
        except Exception:
            text = headline = str(error)
        text = text.replace('"<python-input-1>"', '"program"').replace('"<python-input-0>"', '"sdk"')
        if len(text) > _MAX_MESSAGE:
            text = "…" + text[-_MAX_MESSAGE:]
        if headline.startswith("TimeoutError: feed time limit exceeded"):
            return CodeRunFailure("timeout", text)
        return CodeRunFailure("exception", text)
    return CodeRunFailure("worker-exit", f"the Python worker failed: {error}")


def _plain(value: object, depth: int) -> object:
    """The JSON form of a completion value; what JSON cannot hold becomes its ``repr``."""
    if value is None or type(value) in (str, int, bool):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else repr(value)
    if depth < 64 and type(value) in (list, tuple):
        return [_plain(item, depth + 1) for item in value]  # type: ignore[attr-defined]
    if depth < 64 and type(value) is dict and all(type(key) is str for key in value):
        return {key: _plain(item, depth + 1) for key, item in value.items()}
    try:
        return repr(value)[:_MAX_MESSAGE]
    except Exception:
        return f"<{type(value).__name__}>"


def _finite(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


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
