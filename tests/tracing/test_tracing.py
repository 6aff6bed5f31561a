"""``instrument(ctx)``: one OpenTelemetry span per call, stage decisions as events, Code Mode nesting."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry.context import Context as OtelContext
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry import trace
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.trace import NoOpTracerProvider, SpanContext, StatusCode

from provider_support import booted
from dsh_tools import (
    APPROVAL,
    RUN_CODE_NAME,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    Block,
    ContentBlock,
    Deny,
    PostNext,
    PostToolDecision,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    UnparsedArguments,
    boot,
    define_tool,
    instrument,
    text_block,
)
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
from dsh_tools.testing import Bindings, ScriptedCodeRuntime


def exporter_and_provider() -> tuple[InMemorySpanExporter, TracerProvider]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter, provider


def only(exporter: InMemorySpanExporter) -> ReadableSpan:
    (span,) = exporter.get_finished_spans()
    return span


def events(span: ReadableSpan) -> list[tuple[str, dict[str, Any]]]:
    return [(event.name, dict(event.attributes or {})) for event in span.events]


async def test_a_successful_call_is_one_span_with_the_genai_attributes() -> None:
    ctx, agent = booted()
    exporter, provider = exporter_and_provider()
    instrument(ctx, provider)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "echo", {"text": "hi"}, agent=agent))
    assert not result.is_error
    span = only(exporter)
    assert span.name == "execute_tool echo"
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.type": "function",
        "gen_ai.agent.name": "looper",
    }
    assert span.status.status_code is StatusCode.UNSET and span.events == ()


async def test_failures_set_error_type_and_status() -> None:
    ctx, agent = booted()
    exporter, provider = exporter_and_provider()
    instrument(ctx, provider)
    await ctx.tools.execute(ToolExecutionInput("c1", "fail", {}, agent=agent))
    await ctx.tools.execute(ToolExecutionInput("c2", "nope", {}, agent=agent))
    await ctx.tools.execute(ToolExecutionInput("c3", "echo", {"text": 5}, agent=agent))
    failed, unknown, invalid = exporter.get_finished_spans()
    assert failed.attributes is not None and failed.attributes["error.type"] == "_OTHER"
    assert failed.status.status_code is StatusCode.ERROR and failed.status.description == "Error: disk on fire"
    assert unknown.attributes is not None and unknown.attributes["error.type"] == "UNKNOWN_TOOL"
    assert invalid.attributes is not None and invalid.attributes["error.type"] == "INVALID_ARGS"


async def test_calls_refused_at_admission_still_get_a_span() -> None:
    ctx, agent = booted()
    exporter, provider = exporter_and_provider()
    instrument(ctx, provider)
    await ctx.tools.execute(ToolExecutionInput("c1", "echo", UnparsedArguments("the arguments are not valid JSON", "{"), agent=agent))
    await ctx.tools.execute(ToolExecutionInput("c2", "echo", {"bad": {1, 2}}, agent=agent))  # type: ignore[dict-item]
    unparsed, not_json = exporter.get_finished_spans()
    assert unparsed.name == "execute_tool echo" and unparsed.attributes is not None
    assert unparsed.attributes["error.type"] == "INVALID_ARGS" and unparsed.events == ()
    assert not_json.attributes is not None and not_json.attributes["error.type"] == "_OTHER"


async def test_each_stage_decision_is_an_event() -> None:
    ctx, agent = booted()
    exporter, provider = exporter_and_provider()
    instrument(ctx, provider)
    answers: dict[str, ApprovalOutcome] = {"asked-yes": "allowed-once", "asked-no": "rejected"}

    class Approver:
        async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
            return answers[request.call_id]

    ctx.provide(APPROVAL, Approver())

    async def policy(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        if execution.call_id == "denied":
            return Deny("not today")
        if execution.call_id.startswith("asked"):
            return Ask("sure?")
        return await next()

    async def review(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        if execution.call_id == "blocked":
            return Block([text_block("too loud")])
        return await next()

    ctx.on("tools/pre-execute", policy)
    ctx.on("tools/post-execute", review)
    ctx.tools.guard(lambda execution: "guarded" if execution.call_id == "guarded" else None)
    for call_id in ("denied", "asked-yes", "asked-no", "guarded", "blocked"):
        await ctx.tools.execute(ToolExecutionInput(call_id, "echo", {"text": "x"}, agent=agent))
    denied, approved, rejected, guarded, blocked = exporter.get_finished_spans()
    assert events(denied) == [("denied", {"dsh_tools.stage": "pre-execute", "dsh_tools.reason": "not today"})]
    assert denied.attributes is not None and denied.attributes["error.type"] == "denied"
    assert events(approved) == [("asked", {"dsh_tools.reason": "sure?"}), ("approved", {})]
    assert approved.status.status_code is StatusCode.UNSET
    assert [name for name, _ in events(rejected)] == ["asked", "denied"]
    assert events(rejected)[1][1]["dsh_tools.stage"] == "approval"
    assert events(guarded) == [("denied", {"dsh_tools.stage": "guard", "dsh_tools.reason": "Error: guarded"})]
    assert events(blocked) == [("blocked", {"dsh_tools.reason": "too loud"})]
    assert blocked.attributes is not None and blocked.attributes["error.type"] == "blocked"


async def test_code_mode_sub_calls_are_children_of_their_run_code_span() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["shout"]({"text": "a"})
        await tools["shout"]({"text": "b"})
        return CodeRunResult(logs=())

    class Shout:
        name = "shout"
        description = "Shout."
        parameters = {"type": "object", "properties": {"text": {"type": "string"}}}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            return [text_block(str(args["text"]).upper())]

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime({"go": program}))
    ctx.tools.register(Shout())
    exporter, provider = exporter_and_provider()
    instrument(ctx, provider)
    result = await ctx.tools.execute(ToolExecutionInput("r1", RUN_CODE_NAME, {"code": "go"}))
    assert not result.is_error, result.text
    spans = exporter.get_finished_spans()
    (outer,) = [s for s in spans if s.name == "execute_tool run_code"]
    inner = [s for s in spans if s.name == "execute_tool shout"]
    assert len(inner) == 2
    assert outer.context is not None
    for span in inner:
        assert span.parent is not None and span.parent.span_id == outer.context.span_id
        assert span.context is not None and span.context.trace_id == outer.context.trace_id


async def test_a_tool_body_runs_with_its_span_current() -> None:
    exporter, provider = exporter_and_provider()
    tracer = provider.get_tracer("tool")

    class Fetch:
        name = "fetch"
        description = "Fetch."
        parameters = {"type": "object", "properties": {}}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            with tracer.start_as_current_span("http GET"):
                return [text_block("ok")]

    ctx = boot(timeouts=False)
    ctx.tools.register(Fetch())
    instrument(ctx, provider)
    await ctx.tools.execute(ToolExecutionInput("c1", "fetch", {}))
    http, tool = exporter.get_finished_spans()
    assert http.parent is not None and tool.context is not None and http.parent.span_id == tool.context.span_id


async def test_an_agent_scoped_instrument_traces_that_agent_only_and_disposing_stops_it() -> None:
    ctx, agent = booted()
    other = Agent(ctx, name="other")
    exporter, provider = exporter_and_provider()
    stop = instrument(agent.ctx, provider)
    await ctx.tools.execute(ToolExecutionInput("mine", "echo", {"text": "x"}, agent=agent))
    await ctx.tools.execute(ToolExecutionInput("theirs", "echo", {"text": "x"}, agent=other))
    assert [s.attributes["gen_ai.tool.call.id"] for s in exporter.get_finished_spans() if s.attributes] == ["mine"]
    stop()
    await ctx.tools.execute(ToolExecutionInput("later", "echo", {"text": "x"}, agent=agent))
    assert len(exporter.get_finished_spans()) == 1
    assert len(ctx.events.listeners("tools/result", agent)) == 0
    assert [type(probe).__name__ for probe in ctx.events.probes] == ["CallJournal"]  # the registry's journal only


async def test_disposing_mid_call_ends_the_open_span() -> None:
    ctx, agent = booted()
    exporter, provider = exporter_and_provider()
    stop = instrument(ctx, provider)

    async def stop_now(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        stop()
        return await next()

    ctx.on("tools/pre-execute", stop_now)
    await ctx.tools.execute(ToolExecutionInput("c1", "echo", {"text": "x"}, agent=agent))
    assert [span.name for span in exporter.get_finished_spans()] == ["execute_tool echo"]


def test_nothing_is_registered_until_instrumented() -> None:
    ctx, agent = booted()
    events = ("tools/pre-execute", "tools/execute", "tools/post-execute", "tools/result", "tools/progress")
    before = [ctx.events.listeners(event, agent) for event in events]  # boot's own wrappers (retry)
    assert [type(probe).__name__ for probe in ctx.events.probes] == ["CallJournal"]  # the registry's journal only
    instrument(ctx, NoOpTracerProvider())
    assert [ctx.events.listeners(event, agent) for event in events] == before  # a probe, never a listener
    assert [type(probe).__name__ for probe in ctx.events.probes] == ["CallJournal", "_Spans"]


async def test_overlapping_calls_of_a_batch_get_sibling_spans() -> None:
    gate = asyncio.Event()
    arrived: list[str] = []

    async def wait(args: Any, exec: ToolExecution) -> list[ContentBlock]:
        arrived.append(exec.call_id)
        if len(arrived) == 3:
            gate.set()
        await gate.wait()  # all three bodies run at once, or this never returns
        return [text_block("ok")]

    ctx = boot(timeouts=False)
    ctx.tools.register(
        define_tool(name="wait", description="Wait.", parameters={}, execute=wait, is_concurrency_safe=lambda args: True)
    )
    exporter, provider = exporter_and_provider()
    instrument(ctx, provider)
    async with asyncio.timeout(30):
        results = await ctx.tools.execute_batch([ToolExecutionInput(f"c{i}", "wait", {}) for i in range(3)])
    assert [r.is_error for r in results] == [False, False, False]
    spans = exporter.get_finished_spans()
    assert sorted(str(s.attributes["gen_ai.tool.call.id"]) for s in spans if s.attributes) == ["c0", "c1", "c2"]
    assert all(span.parent is None for span in spans)  # none became the current span of another


def current_span_tool(seen: list[SpanContext]) -> Any:
    async def look(args: Any, exec: ToolExecution) -> list[ContentBlock]:
        seen.append(trace.get_current_span().get_span_context())
        return [text_block("ok")]

    return define_tool(name="look", description="Look at the current span.", parameters={}, execute=look)


async def test_with_a_no_op_provider_the_body_keeps_the_callers_span_current() -> None:
    exporter, provider = exporter_and_provider()
    seen: list[SpanContext] = []
    ctx = boot(timeouts=False)
    ctx.tools.register(current_span_tool(seen))
    instrument(ctx, NoOpTracerProvider())
    with provider.get_tracer("turn").start_as_current_span("agent turn") as turn:
        result = await ctx.tools.execute(ToolExecutionInput("c1", "look", {}))
    assert not result.is_error
    assert seen == [turn.get_span_context()]  # the no-op span stands in with the caller's context


async def test_a_sampled_out_call_still_carries_its_trace_to_the_body() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    seen: list[SpanContext] = []
    ctx = boot(timeouts=False)
    ctx.tools.register(current_span_tool(seen))
    instrument(ctx, provider)
    await ctx.tools.execute(ToolExecutionInput("c1", "look", {}))
    await ctx.tools.execute(ToolExecutionInput("c2", "nope", {}))  # an error on a non-recording span
    (body,) = seen
    assert body.is_valid and not body.trace_flags.sampled  # the call's own (dropped) span is current
    assert exporter.get_finished_spans() == ()


class _CountedPlaceholder(trace.NonRecordingSpan):
    """A span that neither records nor carries a trace, counting how often it is ended."""

    ended = 0

    def end(self, end_time: int | None = None) -> None:
        _CountedPlaceholder.ended += 1


class _PlaceholderProvider(trace.NoOpTracerProvider):
    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        class Placeholders(trace.NoOpTracer):
            def start_span(self, *args: Any, **kwargs: Any) -> trace.Span:
                return _CountedPlaceholder(trace.INVALID_SPAN_CONTEXT)

        return Placeholders()


async def test_a_placeholder_span_is_ended_once_per_call_whatever_the_stages_decided() -> None:
    """Placeholders are kept bare (no stage has anything to tell them), yet each is still ended."""
    ctx, agent = booted()

    async def deny_second(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Deny("no") if exec.call_id == "c2" else await next()

    ctx.on("tools/pre-execute", deny_second)
    _CountedPlaceholder.ended = 0
    instrument(ctx, _PlaceholderProvider())
    calls = (("c1", "echo"), ("c2", "echo"), ("c3", "nope"))
    results = [await ctx.tools.execute(ToolExecutionInput(call_id, name, {"text": "x"}, agent=agent)) for call_id, name in calls]
    assert [result.is_error for result in results] == [False, True, True]
    assert _CountedPlaceholder.ended == 3


async def test_disposing_mid_call_ends_an_open_placeholder_span() -> None:
    ctx, agent = booted()
    _CountedPlaceholder.ended = 0
    stop = instrument(ctx, _PlaceholderProvider())

    async def stop_now(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        stop()
        return await next()

    ctx.on("tools/pre-execute", stop_now)
    await ctx.tools.execute(ToolExecutionInput("c1", "echo", {"text": "x"}, agent=agent))
    assert _CountedPlaceholder.ended == 1


class _Raising(SpanProcessor):
    """A span processor that raises where it is told to (``on_start`` or ``on_end``)."""

    def __init__(self, where: str) -> None:
        self.where = where

    def on_start(self, span: Span, parent_context: OtelContext | None = None) -> None:
        if self.where == "on_start":
            raise RuntimeError("exporter down (on_start)")

    def on_end(self, span: ReadableSpan) -> None:
        if self.where == "on_end":
            raise RuntimeError("exporter down (on_end)")


class _RaisingTracer:
    """A tracer whose every span start raises."""

    def start_span(self, *args: object, **kwargs: object) -> object:
        raise RuntimeError("tracer broken")


class _RaisingProvider:
    def get_tracer(self, *args: object, **kwargs: object) -> _RaisingTracer:
        return _RaisingTracer()


@pytest.mark.parametrize("where", ["on_start", "on_end", "tracer"])
async def test_a_raising_tracer_never_changes_a_call_or_hides_it_from_observers(
    where: str, caplog: pytest.LogCaptureFixture
) -> None:
    ctx, agent = booted()
    provider: Any
    if where == "tracer":
        provider = _RaisingProvider()
    else:
        provider = TracerProvider()
        provider.add_span_processor(_Raising(where))
    heard: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda execution, result: heard.append(result))
    handle = instrument(ctx, provider)
    with caplog.at_level("WARNING", logger="dsh_tools"):
        ok = await ctx.tools.execute(ToolExecutionInput("c1", "echo", {"text": "hi"}, agent=agent))
        missing = await ctx.tools.execute(ToolExecutionInput("c2", "nope", {}, agent=agent))
    assert not ok.is_error and ok.text == "hi"
    assert missing.error is not None and missing.error.code == "UNKNOWN_TOOL"
    assert heard == [ok, missing]
    assert handle.failures == 2  # once per call: a failed start is not retried at the result
    assert caplog.text.count("tracing failed while") == 2
    assert "exporter down" in caplog.text or "tracer broken" in caplog.text
    handle()
    assert handle.disposed
