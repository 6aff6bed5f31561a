"""The call plan: what one call resolved at admission, handed down the stages, and the facts it gathers.

Every stage of a call needs the same few things: the tool the call's agent
resolves, the listener chains of the three waterfalls and the observers, the
guards, the probes, the approval service. Looking them up again at each stage
costs time, and lets two stages of one call disagree (a tool re-registered
between pre-execute and dispatch). So they are looked up once, when the call
is admitted, into a :class:`CallPlan`: the resolved parts, as the call will
use them, frozen. A listener added while a call runs takes effect from the
next call.

The plan is the call's :class:`~dsh_tools.pipeline.host.PipelineHost`: public
stage signatures stay ``(host, execution)``, and a stage handed a plan reads
its parts from it (one attribute each) where a stage handed some other host
(a user's hand-made pipeline calling a stage directly) asks that host.

What changes while the call runs lives on the plan's one mutable
:class:`CallState`: facts (the body started, the retry's current attempt,
the last progress report, a Code Mode replay, the approval it continues, what
the journal and the tracer keep for it), never decisions: those stay on the
``Result`` railway. Nothing else keeps per-call state: no table keyed by token
or call id, no ``ContextVar``. The execution reaches its plan through its
token (every ``exec.set(signal=...)`` copy shares it), which is how a body's
``exec.report_progress`` and a sub-call's ``parent`` find it; the link is cut
when the call settles.

The plan is a slotted object, not a pyrsistent record, because one is built
per call on the hot path; it refuses attribute assignment like a record.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from dsh_tools.context.events import EventBus, ProbeHook
from dsh_tools.dbos.seam import dispatcher_of, route_of
from dsh_tools.execution import ToolExecution, ToolExecutionToken
from dsh_tools.seams import Guard, PipelineHost
from dsh_tools.progress import deliver
from dsh_tools.signals import AbortController, AbortSignal
from dsh_tools.tool_types import RegisteredTool

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalDecision, ApprovalService
    from dsh_tools.call_records import ApprovalRule, ThreadSlot
    from dsh_tools.context.context import Agent
    from dsh_tools.execution import ToolExecutionResult, ToolProgress
    from dsh_tools.context.probes import CallProbe
    from dsh_tools.dbos.seam import QueueDispatcher

__all__ = ["UNSET", "Attempt", "CallPlan", "CallState", "mark_approved", "plan_call", "plan_of"]

UNSET: Final = object()
"""What a fact looked up lazily holds before its lookup (``CallState.rule``, the plan's approval service)."""


class Attempt:
    """One run of a call's body, for a ``tools/execute`` wrapper that may run it again.

    A wrapper sees results, not exceptions: the body's error boundary has
    already turned a raise into an ``is_error`` result. A retry needs two
    facts the result does not carry: *which exception* the body raised (to
    match ``Retry(on=...)`` by type), and *whether the body is still running*
    (an orphaned body must not be overlapped). The wrapper opens one on the
    call's state around each ``next()``; the error boundary fills it in.
    """

    __slots__ = ("raised", "running")

    def __init__(self) -> None:
        self.raised: BaseException | None = None
        self.running = False


class CallState:
    """The facts one call gathers while it runs (see the module docstring)."""

    __slots__ = (
        "body_started",
        "body_starts",
        "approved",
        "first_result",
        "attempt",
        "dispatched",
        "last_report",
        "completed_at",
        "dropped",
        "replay",
        "approval_id",
        "record_id",
        "tool",
        "parent",
        "parent_call_id",
        "journal",
        "trace",
        "thread_slot",
        "decision",
        "rule",
        "quiet",
        "_controller",
    )

    def __init__(self) -> None:
        self.body_started = False
        """The body was started at least once (an interrupted call is ``ABORTED``, not ``ABORTED_BEFORE_DISPATCH``)."""
        self.body_starts = 0
        """How many times the body was started (retries, a wrapper calling ``next()`` twice)."""
        self.approved = False
        """The call was approved (``allowed-once`` from a service, a resume, or a remembered rule)."""
        self.first_result: ToolExecutionResult | None = None
        """The first run's result, kept for an approved call that may start only once (:mod:`.effects`)."""
        self.attempt: Attempt | None = None
        """The attempt a retry wrapper is watching, if any."""
        self.dispatched: ToolExecution | None = None
        """The execution as dispatch runs it, while it does: progress is heard only then."""
        self.last_report: float | None = None
        """When the last progress report was delivered (the rate limit)."""
        self.completed_at: float | None = None
        """When the last completing report went past the rate limit."""
        self.dropped = 0
        """Progress reports dropped by the rate limit (a flood yields to the loop now and then)."""
        self.replay: object | None = None
        """A Code Mode rerun's matching state (``run_code`` calls only)."""
        self.approval_id: str | None = None
        """The parked call this call continues (its journal record links to it)."""
        self.record_id: str | None = None
        """The journal record the call writes, when it continues one (a recovery settles the interrupted record)."""
        self.tool: RegisteredTool | None = None
        """The tool the call runs, as the plan resolved it."""
        self.parent: CallState | None = None
        """The state of the call whose body made this call, while that call runs (a sub-call's tracer nests its span)."""
        self.parent_call_id: str | None = None
        """The call whose body made this call (a Code Mode program's ``run_code``), or the one it resumes for."""
        self.journal: object | None = None
        """The call journal's open entry for this call."""
        self.trace: object | None = None
        """The tracer's span for this call."""
        self.thread_slot: ThreadSlot | None = None
        """Where the call's answer goes in its thread (a call of a thread's turn): carried into its running
        record, its park and its settlement, whose commit fills it."""
        self.decision: ApprovalDecision | None = None
        """The recorded decision the call continues (a resume): who decided, and the message a denial carries."""
        self.rule: ApprovalRule | None | object = UNSET
        """The remembered rule that decided the call's approval (``None``: none applies; unset: not looked up)."""
        self.quiet: bool | None = None
        """Nothing listens between admission and the observers: the standard gates and the closing stages are
        skipped (``pipeline/quiet.py``). ``None`` until the call is opened and this is decided."""
        self._controller: AbortController | None = None

    @property
    def idempotent(self) -> bool:
        """Whether the call's tool is idempotent (a call that may run twice needs no trace before its body)."""
        tool = self.tool
        return tool is not None and tool.idempotent

    def fallback_signal(self) -> AbortSignal:
        """The registry's own signal for a body whose innermost ``next`` carries none (a body always gets one)."""
        if self._controller is None:
            self._controller = AbortController()
        return self._controller.signal

    def abort(self, reason: object) -> None:
        """Abort the fallback signal (the call is being cancelled)."""
        if self._controller is not None:
            self._controller.abort(reason)


class _PlanLayout:
    """A call plan's slots, writable: a plan is filled as one of these, then becomes a :class:`CallPlan`."""

    __slots__ = (
        "host",
        "token",
        "call_id",
        "name",
        "agent",
        "tool",
        "pre",
        "execute",
        "post",
        "observers",
        "progress",
        "guards",
        "probes",
        "parent",
        "queue",
        "dispatcher",
        "state",
        "events",
        "logger",
        "_approval",
    )

    host: PipelineHost
    """The host the plan was resolved from (the registry)."""
    token: ToolExecutionToken
    """The token of the call the plan is for."""
    call_id: str
    name: str
    agent: Agent | None
    tool: RegisteredTool | None
    """The tool the call runs, as its agent resolved it at admission (``None``: unknown)."""
    pre: tuple[Callable[..., Any], ...]
    execute: tuple[Callable[..., Any], ...]
    """The ``tools/execute`` wrappers that wrap this tool (a wrapper may declare it wraps only some tools)."""
    post: tuple[Callable[..., Any], ...]
    observers: tuple[Callable[..., Any], ...]
    progress: tuple[Callable[..., Any], ...]
    guards: Sequence[Guard]
    probes: dict[ProbeHook, tuple[CallProbe, ...]]
    parent: CallPlan | None
    """The plan of the call whose body made this one (a Code Mode program's ``run_code``), while it runs."""
    queue: str | None
    """The queue this call's dispatch goes to (the registry's routing, ``boot(queues=...)``), or ``None``: here."""
    dispatcher: QueueDispatcher | None
    """Who runs a queued dispatch (:data:`~dsh_tools.dbos.seam.QUEUE_DISPATCHER`), looked up with the route."""
    state: CallState
    events: EventBus
    logger: logging.Logger
    _approval: object

class CallPlan(_PlanLayout):
    """One call's resolved parts and its state; the call's ``PipelineHost`` (see the module docstring).

    Built as a writable :class:`_PlanLayout` (plain slot stores) that then
    becomes a ``CallPlan`` (one ``__class__`` swap; the layouts are the same):
    twenty ``object.__setattr__`` calls past a refusing ``__setattr__`` cost
    about 1.4 µs more per call (``make bench``, "call cost").
    """

    __slots__ = ()

    def __new__(cls, host: PipelineHost, execution: ToolExecution) -> CallPlan:
        plan = object.__new__(_PlanLayout)
        agent = execution.agent
        events = host.events
        tool = host.resolve(execution.name, agent)
        pre, wrappers, post, observers, progress = events.call_chains(agent)
        if wrappers and tool is not None:
            wrappers = _wrapping(events.memo, wrappers, tool)
        parent_token = execution.parent
        parent = parent_token._channel if parent_token is not None else None
        state = CallState()
        state.tool = tool
        if type(parent) is CallPlan:
            state.parent, state.parent_call_id = parent.state, parent.call_id
        else:
            parent = None
        plan.host = host
        plan.token = execution.token
        plan.call_id = execution.call_id
        plan.name = execution.name
        plan.agent = agent
        plan.tool = tool
        plan.pre = pre
        plan.execute = wrappers
        plan.post = post
        plan.observers = observers
        plan.progress = progress
        plan.guards = host.guards_for(agent)
        plan.probes = events.hearing
        plan.parent = parent
        routes = getattr(host, "routes", None)  # the registry's routing table: read once, here
        queue = route_of(routes, execution.name) if routes else None
        plan.queue = queue
        plan.dispatcher = dispatcher_of(host) if queue is not None else None
        plan.state = state
        plan.events = events
        plan.logger = host.logger
        plan._approval = UNSET
        object.__setattr__(plan, "__class__", cls)  # frozen from here on
        return cast(CallPlan, plan)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a CallPlan is frozen: {name} cannot be set (per-call facts go on .state)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a CallPlan is frozen: {name} cannot be deleted")

    # -- PipelineHost: the plan's own parts for its call, the host's for anything else --
    def resolve(self, name: str, agent: Agent | None) -> RegisteredTool | None:
        if name == self.name and agent is self.agent:
            return self.tool
        return self.host.resolve(name, agent)

    def guards_for(self, agent: Agent | None) -> Sequence[Guard]:
        return self.guards if agent is self.agent else self.host.guards_for(agent)

    def approval(self) -> ApprovalService | None:
        """The approval service, looked up the first time the call asks (most calls never do), then kept."""
        service = self._approval
        if service is UNSET:
            service = self.host.approval()
            object.__setattr__(self, "_approval", service)
        return cast("ApprovalService | None", service)

    def mint_token(self) -> ToolExecutionToken:
        return self.host.mint_token()

    def issued(self, token: object) -> bool:
        return self.host.issued(token)

    @property
    def orphans(self) -> object:
        """The host's keeper of orphaned bodies (``None`` if it has none)."""
        return getattr(self.host, "orphans", None)

    # -- the execution's channel (ToolExecutionToken._channel) ---------------------------
    def report_progress(
        self, execution: ToolExecution, progress: float, total: float | None, message: str | None
    ) -> Awaitable[None] | None:
        """A body's progress report (already checked), delivered while the call dispatches."""
        return deliver(self, execution, progress, total, message)

    def tell_progress(self, execution: ToolExecution, record: ToolProgress) -> None:
        for probe in self.probes["progressed"]:
            probe.progressed(self.state, execution, record)

    def tell_retrying(self, execution: ToolExecution, attempt: int, result: ToolExecutionResult) -> None:
        for probe in self.probes["retrying"]:
            probe.retrying(self.state, execution, attempt, result)


def wraps(wrappers: tuple[Callable[..., Any], ...], tool: RegisteredTool) -> tuple[Callable[..., Any], ...]:
    """The wrappers that wrap ``tool``: a bound wrapper whose object answers ``dsh_wraps(tool)`` with ``False`` is left out.

    The library's own policies declare it (a retry wrapper for a tool with no
    ``Retry`` would only call ``next()``), so a call pays for a wrapper only
    where it acts. Any other wrapper wraps every tool.
    """
    kept: list[Callable[..., Any]] | None = None
    for index, wrapper in enumerate(wrappers):
        owner = getattr(wrapper, "__self__", None)
        predicate = getattr(owner, "dsh_wraps", None) if owner is not None else None
        if predicate is None or predicate(tool):
            if kept is not None:
                kept.append(wrapper)
        elif kept is None:
            kept = list(wrappers[:index])
    return wrappers if kept is None else tuple(kept)


_MEMO_SIZE: Final = 1024
"""The most tools whose wrappers a bus remembers; past it the memo starts over (re-registered tools leave old entries)."""


def _wrapping(memo: dict[object, object], wrappers: tuple[Callable[..., Any], ...], tool: RegisteredTool) -> tuple[Callable[..., Any], ...]:
    """:func:`wraps`, remembered on the event bus per tool until the listeners change (a fast path, tested to agree).

    Asking each wrapper's ``dsh_wraps`` cost about half a microsecond per call;
    the answer depends only on the wrappers (the bus's, forgotten when they
    change) and the tool (a snapshot: re-registering makes a new one), held
    weakly, so an unregistered tool is not kept for its entry.
    """
    key = id(tool)
    found = memo.get(key)
    if type(found) is tuple and found[1] is wrappers and found[0]() is tool:
        return found[2]  # type: ignore[no-any-return]
    kept = wraps(wrappers, tool)
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    memo[key] = (weakref.ref(tool), wrappers, kept)
    return kept


def plan_call(host: PipelineHost, execution: ToolExecution) -> CallPlan:
    """The plan of ``execution``'s call, built now (a plan handed in is used as it is, for its own call)."""
    if type(host) is CallPlan and host.token is execution.token:
        plan = host
    else:
        plan = CallPlan(host, execution)
    execution.token._channel = plan
    return plan


def mark_approved(host: PipelineHost) -> None:
    """The call was allowed once (by a service, a remembered rule or a resume): its body starts at most once.

    Only a plan keeps the fact; a custom host that is not one has no call state.
    """
    if type(host) is CallPlan:
        host.state.approved = True


def plan_of(execution: ToolExecution) -> CallPlan | None:
    """The plan of ``execution``'s call while it runs (``None`` before it is planned and after it settles)."""
    channel = execution.token._channel
    return channel if type(channel) is CallPlan else None


def close_plan(plan: CallPlan, execution: ToolExecution) -> None:
    """The call settled: its token no longer leads to the plan."""
    token = execution.token
    if token._channel is plan:
        token._channel = None
