"""Call probes: a typed listener kind that hears what the stages decide, told from one site per hook.

Public listeners (``tools/pre-execute`` and friends) cost a waterfall level
each and may change the call; an observer that only wants to *see* what the
stages already decide (a tracer, the call journal) should cost neither. So a
probe is a listener of another kind: an object with a method per hook it
:attr:`~CallProbe.hears` (:data:`PROBE_HOOKS`), added with
``ctx.events.add_probe(probe)`` and kept on the same bus as every listener.
A call's plan reads the bus's probes once, at admission, with its listener
chains; each hook is then told from exactly one place in the pipeline, and
only to the probes that hear it (a hook nobody hears costs an empty loop).

Each hook gets the call's state (:class:`CallSlots`): the probe keeps what
it knows of the call there (``journal``, ``trace``), not in a table of open
calls. A probe hears every call of the bus and filters by scope itself. It
must not raise: it is trusted code (the journal, ``dsh_tools.tracing``), not
a policy participant.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Final, Literal, Protocol, get_args

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalDecision
    from dsh_tools.decisions import PostToolDecision, PreToolDecision
    from dsh_tools.execution import ToolExecution, ToolExecutionResult, ToolProgress

__all__ = ["PROBE_HOOKS", "CallProbe", "CallSlots", "ProbeHook"]

ProbeHook = Literal[
    "opened", "pre_decided", "starting", "dispatching", "progressed", "retrying", "post_decided", "settled"
]
"""What a probe may hear (``dispatching`` brings its ``dispatched``)."""
PROBE_HOOKS: Final[frozenset[ProbeHook]] = frozenset(get_args(ProbeHook))


class CallSlots(Protocol):
    """What a probe may keep on a call's state (the pipeline's ``CallState`` is one)."""

    journal: object
    """The call journal's entry for the call."""
    trace: object
    """Each tracer's span for the call."""

    @property
    def approval_id(self) -> str | None:
        """The parked call this call continues."""
        ...

    @property
    def parent_call_id(self) -> str | None:
        """The call whose body made this one."""
        ...

    @property
    def record_id(self) -> str | None:
        """The journal record the call writes, when it continues one (a recovery settles the interrupted record)."""
        ...

    @property
    def approved(self) -> bool:
        """Whether the call was approved (``allowed-once``)."""
        ...

    @property
    def idempotent(self) -> bool:
        """Whether the call's tool is idempotent (a call that may run twice needs no trace before its body)."""
        ...

    @property
    def tool(self) -> object:
        """The tool the call runs, as its plan resolved it (``None``: unknown)."""
        ...

    @property
    def parent(self) -> CallSlots | None:
        """The state of the call whose body made this one, while it runs."""
        ...

    @property
    def thread_slot(self) -> object:
        """Where the call's answer goes in its thread (a ``ThreadSlot``), or ``None``."""
        ...

    @property
    def decision(self) -> ApprovalDecision | None:
        """The recorded decision the call continues (a resume), or ``None``."""
        ...

    @property
    def rule(self) -> object:
        """The remembered rule (an ``ApprovalRule``) that approved or denied the call, if one did."""
        ...


class CallProbe(Protocol):
    """What a probe is told, in pipeline order: the hooks (of :data:`PROBE_HOOKS`) it :attr:`hears`."""

    @property
    def hears(self) -> frozenset[ProbeHook]:
        """The hooks the stages call on this probe; it is not called for the others."""
        ...

    def opened(self, call: CallSlots, execution: ToolExecution) -> None:
        """The call reached its gates (admitted and planned)."""
        ...

    def pre_decided(self, call: CallSlots, execution: ToolExecution, decision: PreToolDecision) -> None:
        """The ``tools/pre-execute`` waterfall's answer, before approval acts on it."""
        ...

    def starting(self, call: CallSlots, execution: ToolExecution) -> Awaitable[None] | None:
        """The call's dispatch is about to start its body; what is returned is awaited first (the journal's lease)."""
        ...

    def dispatching(self, call: CallSlots, execution: ToolExecution) -> object:
        """Dispatch starts; the returned token goes back to :meth:`dispatched`."""
        ...

    def dispatched(self, call: CallSlots, token: object) -> None:
        """Dispatch ended (however it ended)."""
        ...

    def progressed(self, call: CallSlots, execution: ToolExecution, progress: ToolProgress) -> None:
        """The running body reported progress (after the rate limit)."""
        ...

    def retrying(self, call: CallSlots, execution: ToolExecution, attempt: int, result: ToolExecutionResult) -> None:
        """Attempt ``attempt`` (1-based) failed with ``result``, and the call's ``Retry`` runs another."""
        ...

    def post_decided(self, call: CallSlots, execution: ToolExecution, decision: PostToolDecision) -> None:
        """The ``tools/post-execute`` waterfall's answer."""
        ...

    def settled(self, call: CallSlots, execution: ToolExecution, result: ToolExecutionResult) -> Awaitable[None] | None:
        """The authoritative result, before the ``tools/result`` observers hear it.

        A probe that must finish something before the result is handed back
        (the call journal's commit) returns it; it is awaited after the
        observers, and it must not raise.
        """
        ...
