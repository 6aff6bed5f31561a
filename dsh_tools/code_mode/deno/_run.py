"""One run on one sandbox process: relay bindings, enforce budgets, collect the result.

The process is a hostile peer. Every frame is parsed defensively and rebuilt
into plain values before use; a malformed frame is ignored, never raised. Each
call id is answered at most once, nothing is answered after the run settled,
and the first outcome (done, timeout, abort, death) wins. Budgets are enforced
from the outside by a watchdog that reads the process's CPU time and memory in
/proc, so a program spinning in a tight loop cannot hold it off.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Sequence
from typing import Any, Final

import orjson
from returns.result import Failure

from dsh_tools.code_mode.deno._frames import FrameSplitter, Piece
from dsh_tools.code_mode.deno._logs import LogSink
from dsh_tools.code_mode.deno._process import SandboxProcess
from dsh_tools.code_mode.runtime import (
    Binding,
    CodeBindingNamespace,
    CodeRunFailure,
    CodeRunResult,
    FailureKind,
)
from dsh_tools.errors import safe_str
from dsh_tools.json_values import FrozenJson, JsonValue, dumps, freeze_json
from dsh_tools.signals import AbortSignal

__all__ = ["Budgets", "RunSession", "abort_message"]

_LEVELS: Final = frozenset({"log", "info", "warn", "error", "debug"})
_CHUNK: Final = 1 << 16
_DRAIN_S: Final = 2.0


class Budgets:
    __slots__ = ("compute_ms", "wall_ms", "max_log", "max_value", "max_frame", "max_rss")

    def __init__(self, *, compute_ms: int, wall_ms: int, max_log: int, max_value: int, max_frame: int, max_rss: int):
        self.compute_ms = compute_ms
        self.wall_ms = wall_ms
        self.max_log = max_log
        self.max_value = max_value
        self.max_frame = max_frame
        self.max_rss = max_rss


class RunSession:
    """Drives one program to its :class:`CodeRunResult`; :meth:`stop` ends it from outside."""

    def __init__(
        self,
        process: SandboxProcess,
        bindings: Sequence[CodeBindingNamespace],
        signal_: AbortSignal | None,
        budgets: Budgets,
    ) -> None:
        self._proc = process
        self._bindings = [dict(ns.functions) for ns in bindings]
        self._signal = signal_
        self._budgets = budgets
        self._logs = LogSink(budgets.max_log)
        self._outcome: asyncio.Future[tuple[FrozenJson | None, CodeRunFailure | None]] = (
            asyncio.get_running_loop().create_future()
        )
        self._seen_ids: set[int] = set()
        self._calls: set[asyncio.Task[None]] = set()
        self.finished = asyncio.Event()

    def stop(self, kind: FailureKind, message: str) -> None:
        """Settle with a failure (if not settled yet) and kill the process."""
        self._settle(None, CodeRunFailure(kind, message))
        self._proc.kill()

    async def execute(self, run_line: bytes) -> CodeRunResult:
        proc = self._proc
        readers = [
            asyncio.create_task(self._read_stdout()),
            asyncio.create_task(self._read_stderr()),
        ]
        watchdog = asyncio.create_task(self._watch())
        undo = self._signal.add_listener(self._on_abort) if self._signal is not None else None
        try:
            if not await proc.send(run_line):
                self._settle(None, CodeRunFailure("worker-exit", "the Deno process died before its program was sent"))
            value, error = await asyncio.shield(self._outcome)
        except asyncio.CancelledError:
            self.stop("abort", "the run was cancelled")
            raise
        finally:
            if undo is not None:
                undo()
            watchdog.cancel()
            await proc.reap()
            await self._drain(readers)
            for task in self._calls:
                task.cancel()
            await asyncio.gather(watchdog, *self._calls, return_exceptions=True)
            self.finished.set()
        self._logs.flush()
        return CodeRunResult(self._logs.entries, value, error)

    # -- outcome ---------------------------------------------------------------

    def _settle(self, value: FrozenJson | None, error: CodeRunFailure | None) -> None:
        if not self._outcome.done():
            self._outcome.set_result((value, error))

    def _on_abort(self, reason: object) -> None:
        self.stop("abort", abort_message(reason))

    async def _watch(self) -> None:
        """Poll CPU time, memory and the wall clock; kill on the first budget exceeded."""
        budgets = self._budgets
        start = time.monotonic()
        base = self._proc.cpu_ms() or 0.0
        interval = min(0.05, max(0.005, budgets.compute_ms / 20_000))
        while not self._outcome.done():
            await asyncio.sleep(interval)
            cpu = self._proc.cpu_ms()
            if cpu is not None and cpu - base > budgets.compute_ms:
                self.stop("timeout", f"compute budget exceeded: the program used more than {budgets.compute_ms} ms of CPU time")
            elif (time.monotonic() - start) * 1000 > budgets.wall_ms:
                self.stop("timeout", f"wall-clock budget exceeded: the program ran longer than {budgets.wall_ms} ms")
            elif (rss := self._proc.rss_bytes()) is not None and rss > budgets.max_rss:
                limit = budgets.max_rss >> 20
                self.stop("worker-exit", f"the Deno process was killed: its memory exceeded {limit} MB")

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
            self._settle(None, CodeRunFailure("worker-exit", _exit_text(code)))

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
            self._on_call(m.get("id"), m.get("ns"), m.get("fn"), m.get("args"))
        elif kind == "done":
            self._on_done(m)
        elif kind == "exit":
            code = m.get("code")
            code_text = f" (code {code})" if type(code) is int else ""
            self._settle(None, CodeRunFailure("worker-exit", (
                f"the sandbox worker exited{code_text} before the program settled: the program called exit, "
                "or its event loop emptied while it was still awaiting (a promise that never settles)"
            )))

    def _on_done(self, m: dict[str, Any]) -> None:
        ok = m.get("ok")
        if ok is False:
            error = m.get("error")
            text = error if type(error) is str and error else "the program threw"
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
            return self._truncated_value("", len(text))
        frozen = freeze_json(parsed)
        return None if isinstance(frozen, Failure) else frozen.unwrap()

    def _truncated_value(self, head: str, size: int) -> str:
        cut = head.encode("utf-8", "replace")[: self._budgets.max_value].decode("utf-8", "ignore")
        return f"{cut}… [value truncated: {size} characters of JSON, over the {self._budgets.max_value}-byte limit]"

    def _on_call(self, call_id: object, ns: object, fn: object, args: object) -> None:
        if type(call_id) is not int or call_id in self._seen_ids or call_id < 0:
            return  # at most one reply per id
        self._seen_ids.add(call_id)
        if type(ns) is not int or not 0 <= ns < len(self._bindings) or type(fn) is not str or type(args) is not str:
            self._reply_later(call_id, None, "malformed binding call")
            return
        function = self._bindings[ns].get(fn)
        if function is None:
            self._reply_later(call_id, None, f"{fn} is not a binding")
            return
        try:
            frozen = freeze_json(orjson.loads(args))
        except orjson.JSONDecodeError:
            frozen = Failure("not JSON")
        if isinstance(frozen, Failure):
            self._reply_later(call_id, None, "binding arguments are not JSON")
            return
        task = asyncio.create_task(self._serve(call_id, function, frozen.unwrap()))
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    def _reply_later(self, call_id: int, value: JsonValue, error: str | None) -> None:
        task = asyncio.create_task(self._reply(call_id, value, error))
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    async def _serve(self, call_id: int, function: Binding, args: FrozenJson) -> None:
        try:
            result = await function(args)
        except Exception as error:  # noqa: BLE001 - a raising binding is a rejection, not a crash
            await self._reply(call_id, None, safe_str(error))
            return
        frozen = freeze_json(result)
        if isinstance(frozen, Failure):
            await self._reply(call_id, None, f"the binding returned a value that is not JSON: {frozen.failure()}")
        else:
            await self._reply(call_id, frozen.unwrap(), None)

    async def _reply(self, call_id: int, value: JsonValue, error: str | None) -> None:
        if self._outcome.done():
            return
        message = {"id": call_id, "ok": True, "value": value} if error is None else {"id": call_id, "ok": False, "error": error}
        await self._proc.send(dumps(message))


def abort_message(reason: object) -> str:
    """The failure text of a run its caller aborted (before or during the run)."""
    return f"the run was aborted: {safe_str(reason) or type(reason).__name__}"


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the Deno process died unexpectedly ({name}); an out-of-memory crash ends this way"
    return f"the Deno process exited unexpectedly with code {code} before the program settled"
