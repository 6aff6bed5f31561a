"""``tools/parked`` and ``tools/decided``: a parked call's life, told on the context's bus after the store commit.

A listener gets the :class:`~dsh_tools.PendingApproval` of a call that just
parked (in the process that parked it), or the
:class:`~dsh_tools.ApprovalDecision` recorded through this registry
(``resume`` with an outcome). Events are scoped like every other: a global
listener hears every agent's, an agent's own listener only that agent's.
``store.decide`` has no bus: other processes learn of a decision through
``watch_decisions``, or ``dsh-tools approvals watch`` (the store's log).

A listener is told after the commit, so what it hears is already durable;
one that raises is logged and skipped, never failing the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal

from dsh_tools.awaitables import is_awaitable
from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import report_failure

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalDecision, PendingApproval
    from dsh_tools.context.context import Agent, Context

__all__ = ["DECIDED", "PARKED", "announce"]

PARKED: Final = "tools/parked"
DECIDED: Final = "tools/decided"


async def announce(
    ctx: Context, name: Literal["tools/parked", "tools/decided"], agent: Agent | None,
    payload: PendingApproval | ApprovalDecision,
) -> None:
    """Tell ``name``'s listeners of ``agent``'s scope about ``payload``; each failure is contained and logged."""
    for listener in ctx.events.listeners(name, agent):
        try:
            pending = listener(payload)
            if is_awaitable(pending):
                await pending
        except BaseException as error:  # noqa: BLE001 - a listener never fails the call
            propagate_if_fatal(error)
            report_failure(ctx.logger, f"{name} listener", listener, error)


def hears(ctx: Context, name: str, agent: Agent | None) -> bool:
    """Whether anyone listens (so a payload is built only for a listener)."""
    return bool(ctx.events.listeners(name, agent))
