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
``progress``the body reported progress (``dsh_tools.progress``, ``.total``, ``.message``)
``retry``   an attempt failed and the tool's ``Retry`` runs another (``dsh_tools.attempt``,
            ``error.type``); the span then has ``dsh_tools.tool_types.attempts``
==========  ===============================================================

An error result sets ``error.type`` (the result's error code, such as
``INVALID_ARGS`` or ``TOOL_TIMEOUT``; ``denied``/``blocked`` for policy; else
``_OTHER``) and the span status. A Code Mode sub-call (its ``parent`` is the
``run_code`` call's token) is a child span of its ``run_code`` span, and while
a tool body runs its span is the current span, so spans the body opens (an
HTTP client's) nest under it.

Built on the call probes (:mod:`dsh_tools.context.probes`),
not on the public listeners, so tracing adds no waterfall levels: the gates'
start opens the span, the ``tools/pre-execute`` and ``tools/post-execute``
stages hand it their decisions, dispatch runs with the span current, and the
authoritative result closes it (before the ``tools/result`` observers hear
it). A call refused at admission (non-JSON arguments, a forged parent) never
reaches the gates; its span is opened and closed at the result. Nothing is registered until ``instrument`` runs,
so an uninstrumented registry pays one empty-tuple check at each stage the
call journal does not hear. With a
tracer whose spans do not record (a no-op provider, a sampler's drop) no
events or attributes are built, and a span with no valid context (a no-op
tracer's placeholder outside any span) is not made current: it carries nothing. Needs the ``otel`` extra
(``pip install 'dsh-tools[otel]'``; ``opentelemetry-sdk`` to export).

Telemetry never changes a call: the tracer, its span processors and its
exporters are someone else's code, and any of them may raise (``on_start``
inside ``start_span``, ``on_end`` inside ``span.end()``). Each probe step
contains that: the failure is logged at WARNING on ``ctx.logger`` and counted
on the handle (:attr:`Instrumentation.failures`), and the call goes on with
its own outcome, untraced from there, and still reaches its observers.
"""

from __future__ import annotations

import logging
from contextvars import Token
from typing import TYPE_CHECKING, Final, cast, final

from dsh_tools.decisions import Ask, Block, Deny, PostToolDecision, PreToolDecision
from dsh_tools.disposer import Disposer
from dsh_tools.context.events import PROBE_HOOKS
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.context.probes import CallSlots

if TYPE_CHECKING:
    from opentelemetry.context import Context as OtelContext
    from opentelemetry.trace import Span, Tracer, TracerProvider

    from dsh_tools.context.context import Agent, Context
    from dsh_tools.execution import ToolProgress

__all__ = ["Instrumentation", "instrument"]

_REASON_LIMIT: Final = 1000
"""Longest reason or feedback text put on an event (policy text, not tool output)."""


class Instrumentation(Disposer):
    """What :func:`instrument` returns: the disposer that stops tracing, and what tracing cost.

    ``failures`` counts the times the tracer (or a span processor or exporter
    behind it) raised; each was logged and contained, and no call's outcome
    changed because of it. A dashboard can alert on it going up.
    """

    __slots__ = ("_spans", "_stop")

    def __init__(self, stop: Disposer, spans: _Spans) -> None:
        super().__init__(stop)
        self._stop = stop  # ctx's own disposer: disposing ctx runs it without us
        self._spans = spans

    @property
    def disposed(self) -> bool:
        return self._stop.disposed

    @property
    def failures(self) -> int:
        """How many times telemetry raised and was contained (logged at WARNING on ``ctx.logger``)."""
        return self._spans.failures


def instrument(ctx: Context, tracer_provider: TracerProvider | None = None) -> Instrumentation:
    """Trace every call ``ctx`` hears with OpenTelemetry; the returned handle (a ``Disposer``) stops it.

    ``tracer_provider`` defaults to the global one (``trace.set_tracer_provider``).
    Through a scoped context (``agent.ctx``) only that agent's calls are traced.
    The probe lives as long as ``ctx``; disposing ends the spans still open.
    A tracer that raises never reaches the call: see :class:`Instrumentation`.
    """
    try:
        from opentelemetry import trace
    except ImportError as error:
        raise ImportError(
            "instrument() needs OpenTelemetry, which is not installed: pip install 'dsh-tools[otel]'",
            name="opentelemetry",
        ) from error
    tracer = trace.get_tracer("dsh_tools", tracer_provider=tracer_provider)
    spans = _Spans(tracer, ctx.scope, ctx.logger)
    remove = ctx.events.add_probe(spans)

    def uninstrument() -> None:
        remove()
        spans.close()

    return Instrumentation(ctx.track(uninstrument), spans)


@final
class _Call:
    """One open span and what the stages told it so far."""

    __slots__ = ("span", "recording", "valid", "gated", "asked", "dispatched", "verdict", "attempts")

    def __init__(self, span: Span, recording: bool, valid: bool) -> None:
        self.span = span
        self.recording = recording  # a non-recording span gets no events or attributes
        # a sampled-out span still carries its trace to the body; an invalid one has none to carry
        self.valid = valid
        self.gated = False  # pre-execute let it on (Allow or Ask)
        self.asked = False
        self.dispatched = False
        self.verdict: str | None = None  # "denied" / "blocked" once a stage said so
        self.attempts = 1


class _Spans:
    """The probe (:class:`~dsh_tools.context.probes.CallProbe`): each call's span on its state's ``trace`` slot."""

    hears: Final = PROBE_HOOKS - {"starting"}
    """Every hook but ``starting`` (the journal's): each becomes a span or an event on one."""

    def __init__(self, tracer: Tracer, scope: Agent | None, logger: logging.Logger) -> None:
        from opentelemetry import context, trace
        from opentelemetry.trace import INVALID_SPAN, SpanKind, Status, StatusCode

        self._tracer = tracer
        self._scope = scope
        self._logger = logger
        self._untraced: Span = INVALID_SPAN  # stands for a call whose span could not be started
        self.failures = 0
        self._set_span = trace.set_span_in_context
        self._attach = context.attach
        self._detach = context.detach
        self._kind = SpanKind.INTERNAL
        self._status = Status
        self._error_code = StatusCode.ERROR
        # Each call's span lives on its state (``call.trace``); this set only lets close() end the
        # spans still open when tracing is removed mid-call. A span that neither records nor carries
        # a trace (a no-op tracer's placeholder) is kept bare: no stage has anything to tell it, so
        # each lets it pass at one type test; settled() still ends it.
        self._open: set[_Call | Span] = set()

    def _start(self, call: CallSlots, execution: ToolExecution) -> _Call | Span | None:
        """Open and record the call's span (a bare placeholder as the span itself), or ``None`` outside the scope."""
        agent = execution.agent
        if self._scope is not None and agent is not self._scope:
            return None
        parent = self._of(call.parent) if call.parent is not None else None
        context = self._set_span(parent.span) if type(parent) is _Call else None
        attributes: dict[str, str] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": execution.name,
            "gen_ai.tool.call.id": execution.call_id,
            "gen_ai.tool.type": "function",
        }
        agent_name = getattr(agent, "name", None) if agent is not None else None
        if isinstance(agent_name, str):
            attributes["gen_ai.agent.name"] = agent_name
        opened: _Call | Span
        try:
            span = self._tracer.start_span(
                f"execute_tool {execution.name}", context=context, kind=self._kind, attributes=attributes
            )
            recording, valid = span.is_recording(), span.get_span_context().is_valid
            opened = _Call(span, recording, valid) if recording or valid else span
        except Exception:  # noqa: BLE001 - a span processor's on_start, or the tracer itself
            self._failed("starting the span of", execution)
            opened = self._untraced  # a bare placeholder: no stage asks the tracer again
        kept = call.trace
        if type(kept) is dict:
            kept[self] = opened
        else:
            call.trace = {self: opened}
        self._open.add(opened)
        return opened

    def _of(self, state: CallSlots) -> _Call | Span | None:
        """What this tracer keeps for the call (each tracer on the bus has its own entry on ``state.trace``)."""
        kept = state.trace
        return kept.get(self) if type(kept) is dict else None

    def _failed(self, what: str, execution: ToolExecution | None = None) -> None:
        """Count and log a raising tracer (with its traceback); the caller then goes on as if untraced."""
        self.failures += 1
        call = f' tool call "{execution.name}" ({execution.call_id})' if execution is not None else " a span"
        self._logger.warning("tracing failed while %s%s; the call goes on untraced", what, call, exc_info=True)

    def opened(self, state: CallSlots, execution: ToolExecution) -> None:
        self._start(state, execution)

    def pre_decided(self, state: CallSlots, execution: ToolExecution, decision: PreToolDecision) -> None:
        call = self._of(state)
        if type(call) is not _Call:  # outside the scope, or a bare placeholder
            return
        try:
            self._pre_decided(call, decision)
        except Exception:  # noqa: BLE001 - telemetry never changes the call
            self._failed("recording the pre-execute decision of", execution)

    def _pre_decided(self, call: _Call, decision: PreToolDecision) -> None:
        if type(decision) is Deny:
            call.verdict = "denied"
            if call.recording:
                call.span.add_event(
                    "denied", {"dsh_tools.stage": "pre-execute", "dsh_tools.reason": _clip(decision.reason)}
                )
            return
        call.gated = True
        if type(decision) is Ask:
            call.asked = True
            if call.recording:
                call.span.add_event("asked", {"dsh_tools.reason": _clip(decision.reason or "")})

    def starting(self, state: CallSlots, execution: ToolExecution) -> None:
        pass  # not in hears: never called

    def dispatching(self, state: CallSlots, execution: ToolExecution) -> object:
        call = self._of(state)
        if type(call) is not _Call:  # outside the scope, instrumented mid-call, or a bare placeholder
            return None
        call.dispatched = True
        try:
            if call.asked and call.recording:
                call.span.add_event("approved")
            if not call.valid:  # a no-op tracer's placeholder outside any span: nothing to carry
                return None
            return self._attach(self._set_span(call.span))
        except Exception:  # noqa: BLE001 - telemetry never changes the call
            self._failed("making current the span of", execution)
            return None

    def dispatched(self, state: CallSlots, token: object) -> None:
        if token is not None:
            try:
                self._detach(cast("Token[OtelContext]", token))
            except Exception:  # noqa: BLE001 - telemetry never changes the call
                self._failed("leaving")

    def progressed(self, state: CallSlots, execution: ToolExecution, progress: ToolProgress) -> None:
        call = self._of(state)
        if type(call) is _Call and call.recording:
            attributes: dict[str, str | float] = {"dsh_tools.progress": progress.progress}
            if progress.total is not None:
                attributes["dsh_tools.progress.total"] = progress.total
            if progress.message is not None:
                attributes["dsh_tools.progress.message"] = _clip(progress.message)
            call.span.add_event("progress", attributes)

    def retrying(self, state: CallSlots, execution: ToolExecution, attempt: int, result: ToolExecutionResult) -> None:
        call = self._of(state)
        if type(call) is _Call:
            call.attempts = attempt + 1
            if call.recording:
                error = result.error.code if result.error is not None else "_OTHER"
                call.span.add_event("retry", {"dsh_tools.attempt": attempt, "error.type": error})

    def post_decided(self, state: CallSlots, execution: ToolExecution, decision: PostToolDecision) -> None:
        if type(decision) is not Block:
            return
        call = self._of(state)
        if type(call) is _Call:
            call.verdict = "blocked"
            if call.recording:
                feedback = "\n".join(str(block.get("text", "")) for block in decision.feedback)
                try:
                    call.span.add_event("blocked", {"dsh_tools.reason": _clip(feedback)})
                except Exception:  # noqa: BLE001 - telemetry never changes the call
                    self._failed("recording the post-execute decision of", execution)

    def settled(self, state: CallSlots, execution: ToolExecution, result: ToolExecutionResult) -> None:
        call = self._of(state)
        if call is None:  # refused at admission (it never reached the gates), or outside the scope
            call = self._start(state, execution)
            if call is None:
                return
        kept = state.trace
        if type(kept) is dict:
            kept.pop(self, None)
        if call not in self._open:
            return  # ended already: tracing was removed while the call ran (close)
        self._open.discard(call)
        try:
            self._end(call, result)
        except Exception:  # noqa: BLE001 - a span processor's on_end: the observers must still hear the call
            self._failed("ending the span of", execution)

    def _end(self, call: _Call | Span, result: ToolExecutionResult) -> None:
        if type(call) is not _Call:  # a bare placeholder
            call.end()
            return
        span = call.span
        if call.attempts > 1 and call.recording:
            span.set_attribute("dsh_tools.tool_types.attempts", call.attempts)
        if result.is_error and call.recording:
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
        calls = list(self._open)
        self._open.clear()
        for call in calls:
            try:
                (call.span if type(call) is _Call else call).end()
            except Exception:  # noqa: BLE001 - the rest still end
                self._failed("uninstrumenting, ending")


def _clip(text: str) -> str:
    return text if len(text) <= _REASON_LIMIT else text[: _REASON_LIMIT - 1] + "…"
