"""``tools/execute`` around-wrappers, ``tools/post-execute`` decisions, ``tools/result``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.decisions import Accept, Allow, Block, Deny, PostToolDecision, PreToolDecision
from dsh_tools.execution import (
    HookContext,
    PluginSource,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    UserSource,
)
from dsh_tools.hooks import ExecuteNext, PostNext, PreNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.signals import AbortController, AbortSignal
from pipeline_support import Results, texts


class Tool:
    """Records the execution (and so the signal) its body saw."""

    def __init__(self, name: str = "t", *, fail: bool = False) -> None:
        self.name = name
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.seen: list[ToolExecution] = []
        self.fail = fail

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        self.seen.append(exec)
        if self.fail:
            raise RuntimeError("body failed")
        return [text_block("body ran")]


def call(agent: Agent | None = None, signal: AbortSignal | None = None, name: str = "t") -> ToolExecutionInput:
    return ToolExecutionInput("call-1", name, {"x": 1}, agent=agent, signal=signal)


@pytest.fixture
def ctx() -> Context:
    return boot(mode="native", timeouts=False)


@pytest.fixture
def tool(ctx: Context) -> Tool:
    t = Tool()
    ctx.tools.register(t)
    return t


# -- tools/execute: the signal ----------------------------------------------------------


async def test_next_signal_replaces_what_the_body_sees_innermost_wins(ctx: Context, tool: Tool) -> None:
    caller, outer, inner = AbortController(), AbortController(), AbortController()
    wrapper_saw: list[AbortSignal | None] = []

    async def outer_wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        wrapper_saw.append(execution.signal)
        return await next(signal=outer.signal)

    async def inner_wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        wrapper_saw.append(execution.signal)
        return await next(signal=inner.signal)

    late: list[AbortSignal | None] = []
    ctx.on("tools/execute", outer_wrapper)
    ctx.on("tools/execute", inner_wrapper)
    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        late.append(execution.signal)
        return await next()

    ctx.on("tools/post-execute", post)
    ctx.on("tools/result", lambda e, r: late.append(e.signal))
    result = await ctx.tools.execute(call(signal=caller.signal))
    assert not result.is_error
    assert wrapper_saw == [caller.signal, outer.signal]
    assert tool.seen[0].signal is inner.signal
    assert late == [caller.signal, caller.signal]


async def test_next_signal_none_removes_it_and_keep_keeps_it(ctx: Context, tool: Tool) -> None:
    caller = AbortController()
    ctx.on("tools/execute", lambda e, next: next(signal=None))
    await ctx.tools.execute(call(signal=caller.signal))
    removed = tool.seen[-1].signal  # the body still has a signal: the registry's own, not the caller's
    assert removed is not None and removed is not caller.signal
    ctx2 = boot(timeouts=False)
    tool2 = Tool()
    ctx2.tools.register(tool2)
    ctx2.on("tools/execute", lambda e, next: next())
    await ctx2.tools.execute(call(signal=caller.signal))
    assert tool2.seen[-1].signal is caller.signal


async def test_wrapper_can_add_a_signal_to_a_signal_less_call(ctx: Context, tool: Tool) -> None:
    added = AbortController()
    observed: list[AbortSignal | None] = []
    ctx.on("tools/execute", lambda e, next: next(signal=added.signal))
    ctx.on("tools/result", lambda e, r: observed.append(e.signal))
    await ctx.tools.execute(call())
    assert tool.seen[0].signal is added.signal
    assert observed == [None]


async def test_only_the_signal_changes_under_a_wrapper(ctx: Context, tool: Tool) -> None:
    outer: list[ToolExecution] = []

    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        outer.append(execution)
        return await next(signal=AbortController().signal)

    ctx.on("tools/execute", wrapper)
    agent = Agent(ctx, name="a")
    await ctx.tools.execute(call(agent=agent))
    body = tool.seen[0]
    assert body.token is outer[0].token
    assert (body.call_id, body.name, body.arguments, body.agent, body.parent) == (
        outer[0].call_id, outer[0].name, outer[0].arguments, agent, None,
    )  # fmt: skip


async def test_bad_signal_passed_to_next_fails_closed(ctx: Context, tool: Tool) -> None:
    ctx.on_event("tools/execute", lambda e, next: next(signal="soon"))
    result = await ctx.tools.execute(call())
    assert result.is_error and tool.seen == []


async def test_retry_wrapper_calls_next_twice(ctx: Context) -> None:
    flaky = Tool(fail=True)
    ctx.tools.register(flaky)

    async def retry(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        first = await next()
        assert first.is_error
        flaky.fail = False
        return await next()

    ctx.on("tools/execute", retry)
    result = await ctx.tools.execute(call())
    assert not result.is_error and len(flaky.seen) == 2


# -- tools/execute: what a wrapper returns ------------------------------------------------


async def test_wrapper_result_without_next_skips_the_body(ctx: Context, tool: Tool) -> None:
    async def cached(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        return ToolExecutionResult(execution.call_id, [text_block("cached")], False, meta={"hit": True})

    ctx.on("tools/execute", cached)
    result = await ctx.tools.execute(call())
    assert texts(result) == ["cached"] and not result.is_error
    assert result.meta == {"hit": True}
    assert tool.seen == []


def _foreign(execution: ToolExecution) -> Any:
    return ToolExecutionResult("someone-else", [text_block("x")], False)


def _sub_result(execution: ToolExecution) -> Any:
    class Sub(ToolExecutionResult):
        pass

    return Sub(execution.call_id, [text_block("x")], False)


@pytest.mark.parametrize(
    "make",
    [
        _foreign,
        lambda e: {"callId": e.call_id, "content": [{"type": "text", "text": "x"}], "isError": False},
        lambda e: None,
        lambda e: "done",
        lambda e: [text_block("x")],
        lambda e: Allow(),
        _sub_result,
        lambda e: ToolExecutionResult(e.call_id, [text_block("x")], 1),  # type: ignore[arg-type]
        lambda e: ToolExecutionResult(e.call_id, [{"text": "no type"}], False),
        lambda e: ToolExecutionResult(e.call_id, [text_block("x")], False, error=("E", "C")),  # type: ignore[arg-type]
    ],
    ids=["foreign-call-id", "dict", "none", "str", "content-list", "decision", "subclass", "int-is-error",
         "untyped-block", "tuple-error"],
)  # fmt: skip
async def test_wrapper_returning_a_non_result_fails_closed(ctx: Context, tool: Tool, make: Any) -> None:
    results = Results(ctx)

    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        value: ToolExecutionResult = make(execution)
        return value

    ctx.on("tools/execute", wrapper)
    result = await ctx.tools.execute(call())
    assert type(result) is ToolExecutionResult
    assert result.is_error and result.call_id == "call-1"
    assert tool.seen == []
    assert [r for _, r in results.seen] == [result]


async def test_wrapper_returning_non_json_content_fails_closed(ctx: Context, tool: Tool) -> None:
    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        return ToolExecutionResult(execution.call_id, [{"type": "text", "text": float("nan")}], False)

    ctx.on("tools/execute", wrapper)
    result = await ctx.tools.execute(call())
    assert result.is_error and result.call_id == "call-1"


async def test_raising_wrapper_fails_closed(ctx: Context, tool: Tool) -> None:
    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        await next()
        raise ValueError("metrics exploded")

    ctx.on("tools/execute", wrapper)
    result = await ctx.tools.execute(call())
    assert result.is_error and texts(result) == ["Error: metrics exploded"]  # as a raising body reads


async def test_next_yields_an_error_result_for_a_raising_body(ctx: Context) -> None:
    ctx.tools.register(Tool("boom", fail=True))
    got: list[ToolExecutionResult] = []

    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        result = await next()
        got.append(result)
        return result

    ctx.on("tools/execute", wrapper)
    result = await ctx.tools.execute(call(name="boom"))
    assert got == [result] and result.is_error
    assert texts(result) == ["Error: body failed"]


# -- ToolExecution is immutable ------------------------------------------------------------


@pytest.mark.parametrize("field", ["token", "call_id", "name", "arguments", "agent", "parent", "signal"])
async def test_execution_fields_refuse_assignment(ctx: Context, tool: Tool, field: str) -> None:
    errors: list[str] = []

    def attempt(execution: ToolExecution) -> None:
        try:
            setattr(execution, field, None)
        except AttributeError:
            errors.append(field)

    def pre(execution: ToolExecution, next: PreNext) -> Any:
        attempt(execution)
        return next()

    def around(execution: ToolExecution, next: ExecuteNext) -> Any:
        attempt(execution)
        return next()

    def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> Any:
        attempt(execution)
        return next()

    ctx.on("tools/pre-execute", pre)
    ctx.on("tools/execute", around)
    ctx.on("tools/post-execute", post)
    ctx.on("tools/result", lambda e, r: attempt(e))
    result = await ctx.tools.execute(call(signal=AbortController().signal))
    attempt(tool.seen[0])
    assert errors == [field] * 5
    assert not result.is_error


async def test_arguments_are_deep_frozen_and_detached(ctx: Context) -> None:
    original: dict[str, Any] = {"list": [1, 2], "nested": {"k": "v"}}
    attempts: list[str] = []

    async def body(args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        original["list"].append(3)
        original["nested"]["k"] = "changed"
        mutations: tuple[Callable[[], object], ...] = (
            lambda: args.__setitem__("new", 1),
            lambda: args["list"].__setitem__(0, 9),
            lambda: args["nested"].__setitem__("k", "w"),
        )
        for mutate in mutations:
            try:
                mutate()
            except (TypeError, AttributeError):
                attempts.append("refused")
        return [text_block(f"{list(args['list'])} {args['nested']['k']}")]

    class T:
        name = "t"
        description = "d"
        parameters: dict[str, Any] = {"type": "object"}
        execute = staticmethod(body)

    ctx.tools.register(T())
    result = await ctx.tools.execute(ToolExecutionInput("c", "t", original))
    assert texts(result) == ["[1, 2] v"]
    assert attempts == ["refused"] * 3


# -- tools/post-execute -----------------------------------------------------------------


async def test_accept_with_content_replaces_content(ctx: Context, tool: Tool) -> None:
    seen: list[ToolExecutionResult] = []

    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        seen.append(result)
        return Accept(content=[text_block("redacted")])

    ctx.on("tools/post-execute", post)
    result = await ctx.tools.execute(call())
    assert texts(seen[0]) == ["body ran"]
    assert texts(result) == ["redacted"] and result.is_error is False


async def test_plain_accept_keeps_the_result(ctx: Context, tool: Tool) -> None:
    ctx.on("tools/post-execute", lambda e, r, next: Accept())
    result = await ctx.tools.execute(call())
    assert texts(result) == ["body ran"] and not result.is_error and result.additional_context is None


async def test_block_makes_an_error_with_the_feedback(ctx: Context, tool: Tool) -> None:
    ctx.on("tools/post-execute", lambda e, r, next: Block([text_block("use a relative path")]))
    result = await ctx.tools.execute(call())
    assert result.is_error
    assert texts(result) == ["use a relative path"]
    assert result.call_id == "call-1"


@pytest.mark.parametrize("source", [UserSource(), PluginSource("lint")], ids=["user", "plugin"])
@pytest.mark.parametrize("kind", ["accept", "block"])
async def test_additional_context_is_ferried(ctx: Context, tool: Tool, source: Any, kind: str) -> None:
    context = HookContext([text_block("remember the style guide")], source)
    decision: PostToolDecision = (
        Accept(additional_context=context) if kind == "accept" else Block([text_block("no")], context)
    )
    ctx.on("tools/post-execute", lambda e, r, next: decision)
    observed: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda e, r: observed.append(r))
    result = await ctx.tools.execute(call())
    assert result.additional_context == context
    assert observed[0].additional_context == context
    wire = result.to_json()["additionalContext"]
    assert wire["content"] == [{"type": "text", "text": "remember the style guide"}]
    assert wire["source"] == ({"kind": "user"} if kind == "accept" and type(source) is UserSource
                              else source.to_json())  # fmt: skip
    assert texts(result) == (["body ran"] if kind == "accept" else ["no"])


async def test_post_execute_sees_a_failed_body_as_an_error_result(ctx: Context) -> None:
    ctx.tools.register(Tool("boom", fail=True))
    seen: list[ToolExecutionResult] = []
    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        seen.append(result)
        return await next()

    ctx.on("tools/post-execute", post)
    result = await ctx.tools.execute(call(name="boom"))
    assert seen == [result] and result.is_error


async def test_post_execute_does_not_run_for_denied_calls(ctx: Context, tool: Tool) -> None:
    seen: list[str] = []
    ctx.on("tools/pre-execute", lambda e, next: Deny("no"))
    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        seen.append("post")
        return await next()

    ctx.on("tools/post-execute", post)
    await ctx.tools.execute(call())
    assert seen == []


def _raise(*args: Any) -> Any:
    raise RuntimeError("post listener crashed")


class _Accept(Accept):
    pass


@pytest.mark.parametrize(
    "listener",
    [
        _raise,
        lambda e, r, next: {"kind": "accept"},
        lambda e, r, next: None,
        lambda e, r, next: "accept",
        lambda e, r, next: Allow(),
        lambda e, r, next: _Accept(),
        lambda e, r, next: Accept(additional_context="ctx"),  # type: ignore[arg-type]
        lambda e, r, next: Block("feedback"),  # type: ignore[arg-type]
        lambda e, r, next: r,
    ],
    ids=["raises", "dict", "none", "str", "pre-decision", "subclass", "bad-context", "str-feedback", "result"],
)
async def test_misbehaving_post_listener_fails_closed(ctx: Context, tool: Tool, listener: Any) -> None:
    results = Results(ctx)
    ctx.on("tools/post-execute", listener)
    result = await ctx.tools.execute(call())
    assert result.is_error and result.call_id == "call-1"
    assert texts(result) != ["body ran"]
    assert len(results.seen) == 1


async def test_an_outer_listener_cannot_swallow_an_inner_failure(ctx: Context, tool: Tool) -> None:
    async def outer(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        try:
            return await next()
        except Exception:
            return Accept()

    ctx.on("tools/post-execute", outer)
    ctx.on("tools/post-execute", _raise)
    assert (await ctx.tools.execute(call())).is_error

    ctx2 = boot(timeouts=False)
    body = Tool()
    ctx2.tools.register(body)

    async def pre_outer(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        try:
            return await next()
        except Exception:
            return Allow()

    ctx2.on("tools/pre-execute", pre_outer)
    ctx2.on_event("tools/pre-execute", lambda e, next: {"kind": "allow"})
    assert (await ctx2.tools.execute(call())).is_error
    assert body.seen == []


# -- tools/result ---------------------------------------------------------------------


async def test_observers_see_the_returned_result_once(ctx: Context, tool: Tool) -> None:
    results = Results(ctx)
    agent = Agent(ctx, name="a")
    result = await ctx.tools.execute(call(agent=agent))
    ((execution, observed),) = results.seen
    assert observed == result
    assert execution.call_id == "call-1" and execution.agent is agent


async def test_raising_observer_is_logged_once_and_contained(
    ctx: Context, tool: Tool, caplog: pytest.LogCaptureFixture
) -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str for you")

    async def bad_async(execution: ToolExecution, result: ToolExecutionResult) -> None:
        raise Unprintable()

    def bad_sync(execution: ToolExecution, result: ToolExecutionResult) -> None:
        raise ValueError("plain failure")

    ctx.on("tools/result", bad_async)
    ctx.on("tools/result", bad_sync)
    later = Results(ctx)
    assert ctx.logger.name.startswith("dsh_tools.")
    with caplog.at_level(logging.WARNING, logger="dsh_tools"):
        result = await ctx.tools.execute(call())
    assert not result.is_error and texts(result) == ["body ran"]
    assert len(later.seen) == 1
    records = [r for r in caplog.records if r.name == ctx.logger.name]
    assert len(records) == 2
    assert all(r.levelno == logging.WARNING for r in records)
    messages = [r.getMessage() for r in records]  # formatting must not raise
    assert "Unprintable" in messages[0]
    assert "plain failure" in messages[1]
    for record in records:
        logging.Formatter().format(record)


async def test_observer_of_an_agent_logs_on_ctx_logger(ctx: Context, tool: Tool, caplog: pytest.LogCaptureFixture) -> None:
    agent = Agent(ctx, name="a")

    def bad(execution: ToolExecution, result: ToolExecutionResult) -> None:
        raise ValueError("scoped failure")

    agent.ctx.on("tools/result", bad)
    with caplog.at_level(logging.WARNING, logger="dsh_tools"):
        await ctx.tools.execute(call(agent=agent))
        await ctx.tools.execute(call())
    records = [r for r in caplog.records if "scoped failure" in r.getMessage()]
    assert len(records) == 1 and records[0].name == agent.ctx.logger.name


async def test_result_error_info_for_unknown_tool(ctx: Context) -> None:
    results = Results(ctx)
    result = await ctx.tools.execute(call(name="nope"))
    assert result.error == ToolErrorInfo("ToolNotFoundError", "UNKNOWN_TOOL")
    assert texts(result) == ['Error: unknown tool "nope"']
    assert len(results.seen) == 1
