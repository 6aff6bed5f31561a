"""``CallProbe``: the internal seam tracing uses to watch a call's stages.

Public listeners (``tools/pre-execute`` and friends) cost a waterfall level
each; a tracer wants only to *see* the decisions the stages already compute.
So the stages report them to the probes on the :class:`~dsh_tools.context.events.EventBus`,
directly and only to the probes that hear that hook (``events.hearing[hook]``,
kept by the bus from each probe's :attr:`~CallProbe.hears`): a stage nobody
listens to pays one empty-tuple check, and the call journal, which needs a
call's opening, progress and settling only, is not called for the rest. A
probe hears every call of the bus and filters by scope itself. It must not raise: it is trusted internal
code (``dsh_tools.tracing``), not a policy participant.

Each hook is handed the call's :class:`~dsh_tools.pipeline.plan.CallState`,
whose ``journal`` and ``trace`` slots are where the two probes keep what they
know of the call, so neither keeps a table of open calls keyed by token. The
probes a call tells are the ones its plan read at admission.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Protocol

from dsh_tools.decisions import PostToolDecision, PreToolDecision
from dsh_tools.execution import ToolExecution, ToolExecutionResult

if TYPE_CHECKING:
    from dsh_tools.context.events import ProbeHook
    from dsh_tools.execution import ToolProgress
    from dsh_tools.pipeline.plan import CallState

__all__ = ["CallProbe"]


class CallProbe(Protocol):
    """What a probe is told, in pipeline order: the hooks (of ``PROBE_HOOKS``) it :attr:`hears`."""

    @property
    def hears(self) -> frozenset[ProbeHook]:
        """The hooks the stages call on this probe; it is not called for the others."""
        ...

    def opened(self, call: CallState, execution: ToolExecution) -> None:
        """The call reached its gates (admitted)."""
        ...

    def pre_decided(self, call: CallState, execution: ToolExecution, decision: PreToolDecision) -> None:
        """The ``tools/pre-execute`` waterfall's answer, before approval acts on it."""
        ...

    def dispatching(self, call: CallState, execution: ToolExecution) -> object:
        """Dispatch starts; the returned token goes back to :meth:`dispatched`."""
        ...

    def dispatched(self, call: CallState, token: object) -> None:
        """Dispatch ended (however it ended)."""
        ...

    def progressed(self, call: CallState, execution: ToolExecution, progress: ToolProgress) -> None:
        """The running body reported progress (after the rate limit)."""
        ...

    def retrying(self, call: CallState, execution: ToolExecution, attempt: int, result: ToolExecutionResult) -> None:
        """Attempt ``attempt`` (1-based) failed with ``result``, and the call's ``Retry`` runs another."""
        ...

    def post_decided(self, call: CallState, execution: ToolExecution, decision: PostToolDecision) -> None:
        """The ``tools/post-execute`` waterfall's answer."""
        ...

    def settled(self, call: CallState, execution: ToolExecution, result: ToolExecutionResult) -> Awaitable[None] | None:
        """The authoritative result, before the ``tools/result`` observers hear it.

        A probe that must finish something before the result is handed back
        (the call journal's commit) returns it; it is awaited after the
        observers, and it must not raise.
        """
        ...
