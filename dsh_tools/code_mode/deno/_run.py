"""One run on one sandbox process: relay bindings, bound them, collect the result.

The process is a hostile peer. Every frame is parsed defensively and rebuilt
into plain values before use; a malformed frame is ignored, never raised. Each
call id is answered exactly once (a call the host refuses is answered with the
reason, so every ``await`` in the program settles), nothing is answered after
the run settled, and the first outcome (done, budget, abort, death) wins.
The harness acknowledges the run line before any of the program exists, so
a process that dies before that acknowledgement never ran the program, and
the session says so (``undelivered``) for the runtime to run it elsewhere.
Budgets are enforced by the :class:`~._watchdog.Watchdog` thread, off the event
loop; per-run bounds on calls and queued argument bytes are enforced here, and
arguments too large to parse in passing are parsed on a worker thread.
"""

from __future__ import annotations

import asyncio
import math
import signal
from collections.abc import Sequence
from typing import Any, Final

import orjson
from returns.result import Failure

from dsh_tools.code_mode.deno._frames import FrameSplitter, Piece
from dsh_tools.code_mode.deno._logs import LogSink
from dsh_tools.code_mode.deno._process import Budgets, SandboxProcess
from dsh_tools.code_mode.deno._watchdog import Watch, Watchdog, compute_exceeded
from dsh_tools.code_mode.runtime import (
    MAX_LOOKUP_NAME,
    Binding,
    CodeBindingNamespace,
    CodeRunFailure,
    CodeRunResult,
    FailureKind,
)
from dsh_tools.code_mode.weak import weak_callback
from dsh_tools.errors import safe_str
from dsh_tools.json_values import FrozenJson, JsonValue, dumps, freeze_json
from dsh_tools.json_walk import unicode_text
from dsh_tools.off_loop import INLINE_TEXT, count_over, off_loop
from dsh_tools.signals import AbortSignal

__all__ = ["MAX_CLOCK_READS", "RunSession", "abort_message"]

_LEVELS: Final = frozenset({"log", "info", "warn", "error", "debug"})
_CHUNK: Final = 1 << 20
_DRAIN_S: Final = 2.0
_SETTLE_TURNS: Final = 3
_ERROR_NAMES: Final = frozenset({"TypeError", "RangeError"})
_UNENCODABLE: Final = "the binding's result cannot be sent to the program: it is not JSON (a lone surrogate?)"
_MAX_ERROR: Final = 16_384
"""The most characters of a program's error text kept (the harness cuts it there too; a forged one may not)."""
_NOT_JSON_ARGS: Final = "binding arguments are not JSON"  # a TypeError; a bound they exceed is a RangeError
_UNDELIVERED: Final = CodeRunFailure("worker-exit", "the Deno process died before it read its program")


MAX_CLOCK_READS: Final = 10_000
"""The most clock reads a run records (and a rerun is answered with); past them the clock is live."""

class RunSession:
    """Drives one program to its :class:`CodeRunResult`; :meth:`stop` ends it from outside."""

    def __init__(
        self,
        process: SandboxProcess,
        bindings: Sequence[CodeBindingNamespace],
        signal_: AbortSignal | None,
        budgets: Budgets,
        watchdog: Watchdog,
    ) -> None:
        self._proc = process
        self._functions: list[list[Binding]] = [list(ns.functions.values()) for ns in bindings]
        self._lookups = [ns.lookup for ns in bindings]  # an open namespace's binding of a name it does not list
        self._signal = signal_
        self._budgets = budgets
        self._watchdog = watchdog
        self._watch: Watch | None = None
        self._logs = LogSink(budgets.max_log)
        self._outcome: asyncio.Future[tuple[FrozenJson | None, CodeRunFailure | None]] = (
            asyncio.get_running_loop().create_future()
        )
        self._seen_ids: set[int] = set()
        self._clock: list[float] = []  # the program's clock reads, reported with its calls
        self._queued = 0
        self._calls: set[asyncio.Task[None]] = set()
        self._received = False  # the harness said it read the run line (nothing of the program ran before)
        self.undelivered = False
        """Set if the process died on its own before it read its program: the program never ran."""
        self.retired: asyncio.Future[None] | None = None
        self.finished = asyncio.Event()
        """Set once the process is reaped, its pipes are closed and its binding tasks are done."""

    def stop(self, kind: FailureKind, message: str) -> None:
        """Settle with a failure (if not settled yet) and kill the process."""
        self._settle(None, CodeRunFailure(kind, message))

    async def execute(self, run_line: bytes) -> CodeRunResult:
        proc = self._proc
        readers = [
            asyncio.create_task(self._read_stdout()),
            asyncio.create_task(self._read_stderr()),
        ]
        budgets = self._budgets
        watch = self._watch = Watch(  # told weakly: the session holds its watch (a cycle would keep the run)
            proc,
            cpu_ms=budgets.compute_ms,
            wall_ms=budgets.wall_ms,
            max_rss=budgets.max_rss,
            on_breach=weak_callback(self.stop),
        )
        self._watchdog.watch(watch)
        undo = self._signal.add_listener(self._on_abort) if self._signal is not None else None
        try:
            if not await proc.send(run_line):
                self._settle(None, _UNDELIVERED, undelivered=True)
            value, error = await asyncio.shield(self._outcome)
        except asyncio.CancelledError:
            self.stop("abort", "the run was cancelled")
            raise
        finally:
            if undo is not None:
                undo()
            self._watchdog.unwatch(watch)  # before the reap: the thread never signals a reaped pid
            proc.kill()
            self.retired = asyncio.ensure_future(self._retire(readers))
        # The result does not wait for the process to die: output already in the
        # pipes reaches the log within a few loop turns (the done frame came after
        # it), and the reap, the pipes' EOF and the binding tasks finish in
        # ``retired``, which the runtime awaits before it counts as quiet.
        for _ in range(_SETTLE_TURNS):
            await asyncio.sleep(0)
        self._logs.close()
        return CodeRunResult(self._logs.entries, value, error, tuple(self._clock))

    async def _retire(self, readers: list[asyncio.Task[None]]) -> None:
        try:
            await self._proc.reap()
            await self._drain(readers)
            for task in self._calls:
                task.cancel()
            await asyncio.gather(*self._calls, return_exceptions=True)
        finally:
            self.finished.set()

    # -- outcome ---------------------------------------------------------------

    def _settle(self, value: FrozenJson | None, error: CodeRunFailure | None, *, undelivered: bool = False) -> None:
        if self._outcome.done():
            return
        verdict = self._watch.verdict if self._watch is not None else None
        if verdict is not None:  # a budget was exceeded: that is the outcome, whatever was seen after the kill
            value, error, undelivered = None, CodeRunFailure(*verdict), False
        self.undelivered = undelivered
        self._outcome.set_result((value, error))
        self._proc.kill()  # at once: the pipes reach EOF sooner and nothing runs on

    def _on_abort(self, reason: object) -> None:
        self.stop("abort", abort_message(reason))

    # -- streams ---------------------------------------------------------------

    async def _drain(self, readers: list[asyncio.Task[None]]) -> None:
        """After the kill the pipes reach EOF; bounded in case something still holds them."""
        _, late = await asyncio.wait(readers, timeout=_DRAIN_S)
        for task in late:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)

    async def _read_stdout(self) -> None:
        stream = self._proc.proc.stdout
        assert stream is not None
        splitter = FrameSplitter(self._proc.secret, self._budgets.max_frame)
        while chunk := await stream.read(_CHUNK):
            self._pieces(splitter.feed(chunk))
        self._pieces(splitter.finish())
        if not self._outcome.done():
            code = await self._proc.proc.wait()
            if self._received:
                self._settle(None, _exit_failure(code, self._budgets.compute_ms))
            else:  # killed while it waited in the pool, after the check at checkout
                self._settle(None, _UNDELIVERED, undelivered=True)

    async def _read_stderr(self) -> None:
        stream = self._proc.proc.stderr
        assert stream is not None
        while chunk := await stream.read(_CHUNK):
            self._logs.stream("stderr", chunk)

    def _pieces(self, pieces: list[Piece]) -> None:
        for kind, payload in pieces:
            if kind == "data":
                self._logs.stream("stdout", payload)
            else:
                try:
                    message = orjson.loads(payload)
                except orjson.JSONDecodeError:
                    continue
                if type(message) is dict:
                    self._on_message(message)

    # -- messages ----------------------------------------------------------------

    def _on_message(self, m: dict[str, Any]) -> None:
        if self._outcome.done():
            return  # post-settlement traffic is dropped
        kind = m.get("t")
        if kind == "log":
            level, text = m.get("level"), m.get("text")
            if type(level) is str and level in _LEVELS and type(text) is str:
                self._logs.console(level, text)
        elif kind == "call":
            self._received = True  # a binding call: the program ran (and may have had effects), whatever came before
            self._on_clock(m.get("clock"))
            self._on_call(m.get("id"), m.get("ns"), m.get("fn"), m.get("args"))
        elif kind == "done":
            self._on_done(m)
        elif kind == "received":
            self._received = True
        elif kind == "idle":
            self._settle(None, CodeRunFailure("worker-exit", (
                "the program's event loop emptied while it was still awaiting (a promise that never settles)"
            )))

    def _on_done(self, m: dict[str, Any]) -> None:
        ok = m.get("ok")
        if ok is False:
            error = m.get("error")
            text = error[:_MAX_ERROR] if type(error) is str and error else "the program threw"
            self._settle(None, CodeRunFailure("exception", text))
        elif ok is True:
            value, head, size = m.get("value"), m.get("head"), m.get("size")
            if value is None and head is None:
                self._settle(None, None)
            elif type(value) is str:
                self._settle(self._completion(value), None)
            elif type(head) is str and type(size) is int:
                self._settle(self._truncated_value(head, size), None)

    def _completion(self, text: str) -> FrozenJson | None:
        if len(text.encode("utf-8", "replace")) > self._budgets.max_value:
            return self._truncated_value(text, len(text))
        try:
            parsed = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text  # not JSON the host can read (a lone surrogate): the text itself, at once
        return freeze_json(parsed).value_or(text)

    def _truncated_value(self, head: str, size: int) -> str:
        cut = head.encode("utf-8", "replace")[: self._budgets.max_value].decode("utf-8", "ignore")
        return f"{cut}… [value truncated: {size} characters of JSON, over the {self._budgets.max_value}-byte limit]"

    def _on_clock(self, readings: object) -> None:
        """Keep the clock reads a call frame reports ("t1,t2,..."); anything malformed, or past the bound, is dropped.

        A program may forge them: they only steer its own rerun's clock, which
        it could have steered anyway.
        """
        if type(readings) is not str or not readings or len(self._clock) >= MAX_CLOCK_READS:
            return
        for text in readings.split(",", MAX_CLOCK_READS - len(self._clock))[: MAX_CLOCK_READS - len(self._clock)]:
            try:
                value = float(text)
            except ValueError:
                return
            if not math.isfinite(value):
                return
            self._clock.append(value)

    # -- binding calls -------------------------------------------------------------

    def _on_call(self, call_id: object, ns: object, fn: object, args: object) -> None:
        if type(call_id) is not int or call_id < 0 or call_id in self._seen_ids:
            return  # at most one reply per id
        budgets = self._budgets
        if len(self._seen_ids) >= budgets.max_calls:
            # The harness refuses calls past the limit itself: this one comes from a subverted harness.
            self.stop("exception", f"the program made more than {budgets.max_calls} binding calls")
            return
        self._seen_ids.add(call_id)
        functions = self._functions
        if not (type(ns) is int and 0 <= ns < len(functions) and type(args) is str):
            self._refuse(call_id, "malformed binding call")
            return
        function = self._binding(ns, fn)
        if function is None:
            self._refuse(call_id, "malformed binding call" if type(fn) is not str else f"no binding named {fn[:200]!r}", "TypeError")
            return
        size = len(args) if args.isascii() else len(args.encode("utf-8", "surrogatepass"))
        if size > budgets.max_args:
            self._refuse(call_id, f"binding arguments are {size} bytes, over the {budgets.max_args}-byte limit", "RangeError")
            return
        if self._queued + size > budgets.max_queued:
            self._refuse(call_id, (
                f"{self._queued} bytes of arguments already wait for replies (limit {budgets.max_queued}): "
                "await some calls before starting more"
            ), "RangeError")
            return
        self._queued += size
        task = asyncio.create_task(self._serve(call_id, function, args, size))
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    def _binding(self, ns: int, fn: object) -> Binding | None:
        """A listed function by index, or by name from an open namespace's lookup (a name is the program's: any text)."""
        listed = self._functions[ns]
        if type(fn) is int:
            return listed[fn] if 0 <= fn < len(listed) else None
        lookup = self._lookups[ns]
        if type(fn) is not str or lookup is None or not fn or len(fn) > MAX_LOOKUP_NAME:
            return None
        try:
            return lookup(fn)
        except Exception:  # noqa: BLE001 - a lookup that fails names no binding
            return None

    async def _serve(self, call_id: int, function: Binding, args: str, size: int) -> None:
        try:
            limit = self._budgets.max_values
            large = len(args) > INLINE_TEXT  # parsed on a thread; a small text here, with no coroutine around it
            frozen, problem = await off_loop(_decode_args, args, limit) if large else _decode_args(args, limit)
            if problem is not None:
                line = _reply(call_id, None, problem, "TypeError" if problem == _NOT_JSON_ARGS else "RangeError")
            else:
                try:
                    result = await function(frozen)
                except Exception as error:  # noqa: BLE001 - a raising binding is a rejection, not a crash
                    name = type(error).__name__
                    line = _reply(call_id, None, safe_str(error), name if name in _ERROR_NAMES else None)
                else:
                    checked = freeze_json(result)
                    if type(checked) is Failure:
                        line = _reply(call_id, None, f"the binding returned a value that is not JSON: {checked.failure()}")
                    else:
                        line = _reply(call_id, checked.unwrap(), None)
        finally:
            self._queued -= size
        if not self._outcome.done():
            await self._proc.send(line)

    def _refuse(self, call_id: int, error: str, name: str | None = None) -> None:
        """Answer at once, without a task; a harness that stops reading its replies ends the run."""
        if self._outcome.done():
            return
        self._proc.write(_reply(call_id, None, error, name))
        if self._proc.queued_bytes() > self._budgets.max_queued + self._budgets.max_frame:
            self.stop("exception", "the program stopped reading the replies to its binding calls")


def _decode_args(text: str, max_values: int) -> tuple[FrozenJson | None, str | None]:
    """The frozen arguments, or why not (counted before freezing: freezing costs per value)."""
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:  # lone surrogates included
        return None, _NOT_JSON_ARGS
    if count_over(parsed, max_values):
        return None, f"binding arguments hold more than {max_values} JSON values"
    return freeze_json(parsed).map(lambda frozen: (frozen, None)).value_or((None, _NOT_JSON_ARGS))


def _reply(call_id: int, value: JsonValue, error: str | None, name: str | None = None) -> bytes:
    """One reply line; whatever cannot be encoded becomes a rejection that can, so every call settles."""
    if error is None:
        try:
            # The value on its own: a frozen one the registry verified encodes natively in one
            # C call, where inside a fresh envelope each of its objects would be checked again.
            return b'{"id":%d,"ok":true,"value":%b}' % (call_id, dumps(value))
        except Exception:  # noqa: BLE001 - e.g. a lone surrogate
            error = _UNENCODABLE
    # An error text may quote anything (a lone surrogate included): as Unicode text it always encodes.
    message: dict[str, JsonValue] = {"id": call_id, "ok": False, "error": unicode_text(error)}
    if name is not None:
        message["name"] = name
    return dumps(message)


def abort_message(reason: object) -> str:
    """The failure text of a run its caller aborted (before or during the run)."""
    return f"the run was aborted: {safe_str(reason) or type(reason).__name__}"


def _exit_failure(code: int, compute_ms: int) -> CodeRunFailure:
    """Why the process ended before its program settled (our own kills settle first).

    SIGXCPU is the kernel's CPU limit, the backstop behind the watchdog's
    compute budget; SIGKILL the kernel's too (memory, or the hard CPU limit);
    any other signal a crash, and an exit code the program calling exit.
    """
    if code >= 0:
        return CodeRunFailure(
            "worker-exit", f"the Deno process exited before the program settled (code {code}): the program called exit"
        )
    if code == -signal.SIGXCPU:
        return CodeRunFailure("timeout", f"{compute_exceeded(compute_ms)} (stopped by the kernel's CPU limit)")
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    if code == -signal.SIGKILL:
        why = f"the Deno process was killed ({name}): out of memory, or past the kernel's hard CPU limit"
    else:
        why = f"the Deno process died unexpectedly ({name}); an out-of-memory crash ends this way"
    return CodeRunFailure("worker-exit", why)
