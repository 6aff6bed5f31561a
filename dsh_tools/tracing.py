"""OpenTelemetry tracing of tool calls: ``instrument(ctx)``, one span per call.

Each call the registry settles becomes a span named ``execute_tool <name>``
with the GenAI semantic conventions' attributes (``gen_ai.operation.name =
"execute_tool"``, ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
``gen_ai.tool.type = "function"``, and ``gen_ai.agent.name`` when the call has
an agent). What each policy stage decided is an event on the span:

==========  ===============================================================
event       when
==========  ===============================================================
``asked``   ``tools/pre-execute`` answered ``Ask`` (the reason as ``dsh_tools.reason``)
``approved``an asked call went on to dispatch
``denied``  ``Deny``, a rejected approval, or a guard (``dsh_tools.stage`` says which)
``blocked`` ``tools/post-execute`` answered ``Block`` (the feedback as ``dsh_tools.reason``)
==========  ===============================================================

An error result sets ``error.type`` (the result's error code, such as
``INVALID_ARGS`` or ``TOOL_TIMEOUT``; ``denied``/``blocked`` for policy; else
``_OTHER``) and the span status. A Code Mode sub-call (its ``parent`` is the
``run_code`` call's token) is a child span of its ``run_code`` span, and while
a tool body runs its span is the current span, so spans the body opens (an
HTTP client's) nest under it.

Built on the public seams only: an outermost ``tools/pre-execute`` listener
opens the span, an outermost ``tools/execute`` wrapper marks dispatch, an
outermost ``tools/post-execute`` listener records ``Block``, and the
``tools/result`` observer closes it. A call refused at admission (non-JSON
arguments, a forged parent) never reaches pre-execute; its span is opened and
closed at ``tools/result``. Nothing is registered until ``instrument`` runs,
so an uninstrumented registry pays nothing. Needs the ``otel`` extra
(``pip install 'dsh-tools[otel]'``; ``opentelemetry-sdk`` to export).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Final

from dsh_tools.decisions import Ask, Block, Deny, PostToolDecision, PreToolDecision
from dsh_tools.disposer import Disposer
from dsh_tools.execution import ToolExecution, ToolExecutionResult, ToolExecutionToken
from dsh_tools.hooks import ExecuteNext, PostNext, PreNext

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer, TracerProvider

    from dsh_tools.host.context import Context

__all__ = ["instrument"]

_REASON_LIMIT: Final = 1000
"""Longest reason or feedback text put on an event (policy text, not tool output)."""


def instrument(ctx: Context, tracer_provider: TracerProvider | None = None) -> Disposer:
    """Trace every call ``ctx`` hears with OpenTelemetry; the disposer stops it.

    ``tracer_provider`` defaults to the global one (``trace.set_tracer_provider``).
    Through a scoped context (``agent.ctx``) only that agent's calls are traced.
    The listeners live as long as ``ctx``; disposing ends the spans still open.
    """
    try:
        from opentelemetry import trace
    except ImportError as error:
        raise ImportError(
            "instrument() needs OpenTelemetry, which is not installed: pip install 'dsh-tools[otel]'",
            name="opentelemetry",
        ) from error
    tracer = trace.get_tracer("dsh_tools", tracer_provider=tracer_provider)
    spans = _Spans(tracer)
    removers = (
        ctx.on("tools/pre-execute", spans.pre_execute, prepend=True),
        ctx.on("tools/execute", spans.dispatch, prepend=True),
        ctx.on("tools/post-execute", spans.post_execute, prepend=True),
        ctx.on("tools/result", spans.result),
    )

    def uninstrument() -> None:
        for remove in removers:
            remove()
        spans.close()

    return ctx.track(uninstrument)


class _Call:
    """One open span and what the stages told it so far."""

    __slots__ = ("span", "gated", "asked", "dispatched", "verdict")

    def __init__(self, span: Span) -> None:
        self.span = span
        self.gated = False  # pre-execute let it on (Allow or Ask)
        self.asked = False
        self.dispatched = False
        self.verdict: str | None = None  # "denied" / "blocked" once a stage said so


class _Spans:
    """The listeners' shared state: open spans by execution token."""

    def __init__(self, tracer: Tracer) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self._tracer = tracer
        self._trace = trace
        self._kind = SpanKind.INTERNAL
        self._status = Status
        self._error_code = StatusCode.ERROR
        self._open: weakref.WeakKeyDictionary[ToolExecutionToken, _Call] = weakref.WeakKeyDictionary()

    def _start(self, execution: ToolExecution) -> _Call:
        parent = self._open.get(execution.parent) if execution.parent is not None else None
        context = self._trace.set_span_in_context(parent.span) if parent is not None else None
        attributes: dict[str, str] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": execution.name,
            "gen_ai.tool.call.id": execution.call_id,
            "gen_ai.tool.type": "function",
        }
        agent_name = getattr(execution.agent, "name", None) if execution.agent is not None else None
        if isinstance(agent_name, str):
            attributes["gen_ai.agent.name"] = agent_name
        span = self._tracer.start_span(
            f"execute_tool {execution.name}", context=context, kind=self._kind, attributes=attributes
        )
        call = _Call(span)
        self._open[execution.token] = call
        return call

    async def pre_execute(self, execution: ToolExecution, next: PreNext) -> PreToolDecision:
        call = self._start(execution)
        decision = await next()
        if type(decision) is Deny:
            call.verdict = "denied"
            call.span.add_event("denied", {"dsh_tools.stage": "pre-execute", "dsh_tools.reason": _clip(decision.reason)})
        else:
            call.gated = True
            if type(decision) is Ask:
                call.asked = True
                call.span.add_event("asked", {"dsh_tools.reason": _clip(decision.reason or "")})
        return decision

    async def dispatch(self, execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        call = self._open.get(execution.token)
        if call is None:  # instrumented mid-call
            return await next()
        call.dispatched = True
        if call.asked:
            call.span.add_event("approved")
        with self._trace.use_span(call.span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            return await next()

    async def post_execute(self, execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        decision = await next()
        call = self._open.get(execution.token)
        if call is not None and type(decision) is Block:
            call.verdict = "blocked"
            feedback = "\n".join(str(block.get("text", "")) for block in decision.feedback)
            call.span.add_event("blocked", {"dsh_tools.reason": _clip(feedback)})
        return decision

    def result(self, execution: ToolExecution, result: ToolExecutionResult) -> None:
        call = self._open.pop(execution.token, None)
        if call is None:  # refused at admission: it never reached pre-execute
            call = self._start(execution)
            del self._open[execution.token]
        span = call.span
        if result.is_error:
            if call.gated and not call.dispatched and call.verdict is None and result.error is None:
                # let on by pre-execute, never dispatched, no error class: approval or a guard said no
                call.verdict = "denied"
                stage = "approval" if call.asked else "guard"
                span.add_event("denied", {"dsh_tools.stage": stage, "dsh_tools.reason": _clip(result.text)})
            error = result.error
            span.set_attribute("error.type", error.code if error is not None else call.verdict or "_OTHER")
            span.set_status(self._status(self._error_code, _clip(result.text)))
        span.end()

    def close(self) -> None:
        """End every span still open (instrumentation removed mid-call)."""
        for call in list(self._open.values()):
            call.span.end()
        self._open.clear()


def _clip(text: str) -> str:
    return text if len(text) <= _REASON_LIMIT else text[: _REASON_LIMIT - 1] + "…"
