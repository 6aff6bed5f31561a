"""The host side of one Python program run: the prelude, the binding entry point, logs, clock, outcome.

A program reaches its bindings through ``_dsh_call``, an external function
the prelude's namespace objects call; :meth:`MontyRun.call` treats what
arrives as hostile (the program can call ``_dsh_call`` itself) and checks
it before any binding runs. Clock reads come through the OS handler, so a
rerun is answered with the first run's reads; a Monty error becomes the
run's failure, naming the line.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import math
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from dsh_tools.code_mode.deno._logs import LogSink
from dsh_tools.code_mode.deno._run import MAX_CLOCK_READS
from dsh_tools.code_mode.runtime import (
    MAX_LOOKUP_NAME, Binding, CodeBindingNamespace, CodeRunFailure, CodeRunRequest, CodeRunResult,
)
from dsh_tools.json_values import dumps, thaw_json

if TYPE_CHECKING:
    from dsh_tools.code_mode.monty.runtime import MontyCodeRuntime

__all__ = ["MontyRun"]

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
        table = _dsh_tables[{index}]
        if name in table:
            return table[name]
        if _dsh_open[{index}] and isinstance(name, str):
            return _dsh_bind({index}, name)
        raise KeyError(name)


{name} = _DshNamespace{index}()
for _dsh_name, _dsh_function in _dsh_tables[{index}].items():
    if not _dsh_name.startswith("__"):
        setattr({name}, _dsh_name, _dsh_function)
for _dsh_alias, _dsh_name in _dsh_aliases[{index}].items():
    if _dsh_name in _dsh_tables[{index}]:
        setattr({name}, _dsh_alias, _dsh_tables[{index}][_dsh_name])
'''



class MontyRun:
    """One program run: the host side of its bindings, its logs and clock reads."""

    def __init__(self, runtime: MontyCodeRuntime, request: CodeRunRequest) -> None:
        self.runtime = runtime
        self.request = request
        self.tables: list[Mapping[str, Binding]] = [ns.functions for ns in request.bindings]
        self.lookups = [ns.lookup for ns in request.bindings]  # an open namespace's binding of a name it does not list
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
                inputs = {
                    "_dsh_namespaces": namespaces,
                    "_dsh_open": [lookup is not None for lookup in self.lookups],
                    "_dsh_aliases": [dict(ns.aliases) for ns in request.bindings],
                }
                await session.feed_run(_prelude(request.bindings), inputs=inputs)
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
        lookup = self.lookups[index]
        if binding is None and lookup is not None and 0 < len(name) <= MAX_LOOKUP_NAME:
            binding = lookup(name)
        if binding is None:
            raise TypeError(f"no tool named {name[:200]!r}")
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
