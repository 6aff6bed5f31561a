"""The quiet-call fast path (``pipeline/quiet.py``) agrees with the plain path, call by call.

``ToolRegistry.execute`` (and a batch's lane) skips the stages that would hand
a call on unchanged when nothing listens to them; gates that do not end with
the standard ones (here: one more gate that lets everything through) always
run the plain path. Each case runs both ways on registries built alike, and
the results, what observers heard and the journal records must be the same;
a counter on ``post_execute`` proves which path ran.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from dsh_tools import (
    AbortController,
    Agent,
    ContentBlock,
    Context,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    text_block,
    tool,
)
from dsh_tools.pipeline import compose
from dsh_tools.pipeline.compose import STANDARD_GATES, execute_call
from dsh_tools.pipeline.outcomes import Settled
from dsh_tools.pipeline.post_execute import post_execute
from returns.result import Result, Success
from dsh_tools.store import CallRecord
from pipeline_support import Results

@tool
async def echo(text: str) -> str:
    """Echo."""
    return text


@tool(output={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
async def count(n: int) -> dict[str, int]:
    """A typed value."""
    return {"n": n}


@tool
async def crash() -> str:
    """Raise."""
    raise RuntimeError("boom")


@tool(timeout_ms=5)
async def slow() -> str:
    """Outlives its timeout (its call is still quiet: wrappers are dispatch's own)."""
    await asyncio.Event().wait()
    return "never"


@tool
async def aborts_itself(exec: ToolExecution) -> str:
    """Succeeds, but its caller's signal aborted while it ran."""
    assert exec.signal is not None
    CONTROLLERS[exec.call_id].abort("stop")
    return "done"


@tool
async def images() -> list[ContentBlock]:
    """Content blocks as they are."""
    return [{"type": "image", "data": "AAAA", "mimeType": "image/png"}, text_block("x")]


CONTROLLERS: dict[str, AbortController] = {}

CASES: list[tuple[str, str, object]] = [
    ("ok", "echo", {"text": "hi"}),
    ("typed", "count", {"n": 3}),
    ("invalid", "count", {"n": "three"}),
    ("raised", "crash", {}),
    ("unknown", "nope", {}),
    ("timeout", "slow", {}),
    ("aborted-mid-body", "aborts_itself", {}),
    ("blocks", "images", {}),
    ("not-json", "echo", {"text": {1, 2}}),
]


def app() -> tuple[Context, Results, Agent]:
    ctx = boot()
    for definition in (echo, count, crash, slow, aborts_itself, images):
        ctx.tools.register(definition)
    return ctx, Results(ctx), Agent(ctx, name="a")


@pytest.fixture
def closed_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The calls that went through ``post_execute`` (the plain path's closing stage)."""
    seen: list[str] = []
    plain = post_execute

    async def counted(host: Any, execution: ToolExecution, result: ToolExecutionResult) -> ToolExecutionResult:
        seen.append(execution.call_id)
        return await plain(host, execution, result)

    monkeypatch.setattr(compose, "post_execute", counted)
    yield seen


async def let_through(host: Any, execution: ToolExecution) -> Result[ToolExecution, Settled]:
    return Success(execution)


PLAIN_GATES = (*STANDARD_GATES, let_through)


def comparable(records: list[CallRecord]) -> list[CallRecord]:
    return [
        r.set(record_id="r", started_at=0.0, ended_at=0.0, idempotency_key="k", agent_id=r.agent_id and "a")
        for r in records
    ]


def shown(result: ToolExecutionResult) -> tuple[object, ...]:
    return (result.to_json(), result.outcome, result.value)


async def run_all(run: Callable[[Context, ToolExecutionInput], Any]) -> tuple[list[Any], list[Any], list[CallRecord]]:
    ctx, heard, agent = app()
    results = []
    for call_id, name, arguments in CASES:
        controller = CONTROLLERS[call_id] = AbortController()
        signal = controller.signal if call_id == "aborted-mid-body" else None
        results.append(shown(await run(ctx, ToolExecutionInput(call_id, name, arguments, agent, signal=signal))))  # type: ignore[arg-type]
    before = AbortController()
    before.abort("not now")
    results.append(shown(await run(ctx, ToolExecutionInput("aborted-before", "echo", {"text": "x"}, agent, signal=before.signal))))
    observed = [(e.call_id, e.name, e.signal is None, shown(r)) for e, r in heard.seen]
    return results, observed, comparable(await ctx.tools.store.journal())


@pytest.mark.parametrize("how", ["execute", "batch"])
async def test_the_quiet_path_agrees_with_the_plain_path(closed_calls: list[str], how: str) -> None:
    async def quietly(ctx: Context, call: ToolExecutionInput) -> ToolExecutionResult:
        if how == "execute":
            return await ctx.tools.execute(call)
        (result,) = await ctx.tools.execute_batch([call])
        return result

    quiet = await run_all(quietly)
    assert closed_calls == []  # every one of these calls is quiet: no closing stage ran
    plain = await run_all(lambda ctx, call: execute_call(ctx.tools, call, gates=PLAIN_GATES))
    # The plain path closed every call that was dispatched (all but those settled at admission or before it).
    assert closed_calls == ["ok", "typed", "invalid", "raised", "unknown", "timeout", "aborted-mid-body", "blocks"]
    assert quiet == plain
    outcomes = [result[1] for result in quiet[0]]
    assert outcomes == ["ok", "ok", "invalid-args", "error", "unknown-tool", "timeout", "aborted", "ok", "error", "aborted"]


async def test_a_cancelled_quiet_call_is_recorded_aborted_then_raises(closed_calls: list[str]) -> None:
    started = asyncio.Event()

    @tool
    async def waits() -> str:
        """Runs until cancelled."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    ctx, heard, _ = app()
    ctx.tools.register(waits)
    task = asyncio.ensure_future(ctx.tools.execute(ToolExecutionInput("c", "waits", {})))
    await asyncio.wait_for(started.wait(), 5)  # the body runs: its cancellation is the call's
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    ((_, result),) = heard.seen
    assert result.error is not None and result.error.code == "ABORTED" and closed_calls == []


async def test_a_call_that_anything_listens_to_takes_the_plain_path(closed_calls: list[str]) -> None:
    ctx, _, _ = app()

    async def allow(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return await next()

    await ctx.tools.execute(ToolExecutionInput("quiet", "echo", {"text": "x"}))
    undo = ctx.on("tools/pre-execute", allow)
    await ctx.tools.execute(ToolExecutionInput("pre", "echo", {"text": "x"}))
    undo()
    ctx.on("tools/post-execute", lambda exec, result, next: next())
    await ctx.tools.execute(ToolExecutionInput("post", "echo", {"text": "x"}))
    guarded, _, _ = app()
    guarded.tools.guard(lambda exec: None)
    await guarded.tools.execute(ToolExecutionInput("guard", "echo", {"text": "x"}))
    spilling = boot(max_inline_bytes=4096)
    spilling.tools.register(echo)
    await spilling.tools.execute(ToolExecutionInput("spill", "echo", {"text": "x"}))
    assert closed_calls == ["pre", "post", "guard", "spill"]


async def test_a_gate_added_before_the_standard_ones_still_runs_for_a_quiet_call(closed_calls: list[str]) -> None:
    ran: list[str] = []

    async def added(host: Any, execution: ToolExecution) -> Result[ToolExecution, Settled]:
        ran.append(execution.call_id)
        return Success(execution)

    ctx, heard, _ = app()
    ctx.tools.add_gate(added)  # as Code Mode's presentation gate is
    result = await ctx.tools.execute(ToolExecutionInput("added", "echo", {"text": "x"}))
    assert ran == ["added"] and result.text == "x" and closed_calls == []  # the gate ran; the rest was quiet
    assert [r.text for _, r in heard.seen] == ["x"]
