"""Remembered decisions: a rule stored with an earlier verdict answers the approval instead of a human.

A decision made with ``remember="agent"`` is kept as an
:class:`~dsh_tools.store.ApprovalRule`: this agent id, this tool, this
fingerprint (the tool as the human saw it). When a later call of that tool
by that agent reaches approval (the waterfall answered ``Ask``), the rule
decides it and neither the approval service nor an MCP client's elicitation
is asked. A remembered allow is an approval like any other (the call is
*approved*: an effect that is not idempotent still starts at most once); a
remembered denial reads like the decision it came from. A tool whose
definition changed has another fingerprint, so its rule no longer applies.

Looking the rule up is a capability of the host (:class:`ApprovalMemory`;
the registry has it, over its store). It is looked up once per call, the
first time anyone asks, and kept on the call's state (``CallState.rule``):
the MCP elicitation listener asks before eliciting, the approval stage after.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from dsh_tools.errors import safe_str
from dsh_tools.execution import ToolExecution
from dsh_tools.pipeline.plan import UNSET, CallPlan

if TYPE_CHECKING:
    from dsh_tools.call_records import ApprovalRule

__all__ = ["ApprovalMemory", "remembered"]

_LOG = logging.getLogger("dsh_tools.store")


@runtime_checkable
class ApprovalMemory(Protocol):
    """A host that can tell the rule remembered for a call (the registry, over its store)."""

    async def remembered_rule(self, execution: ToolExecution, /) -> ApprovalRule | None:
        """The rule that decides ``execution`` (its agent id, its tool as resolved now), or ``None``."""
        ...


async def remembered(host: object, execution: ToolExecution) -> ApprovalRule | None:
    """The rule that decides this call's approval, looked up once per call (``None``: a human is asked).

    A store that fails to answer counts as no rule (the human is asked; the
    failure is logged): a remembered allow must never be assumed.
    """
    plan = host if type(host) is CallPlan else None
    if plan is not None and plan.state.rule is not UNSET:
        return plan.state.rule  # type: ignore[return-value]  # set below: an ApprovalRule or None
    source = plan.host if plan is not None else host
    rule: ApprovalRule | None = None
    if isinstance(source, ApprovalMemory) and execution.agent is not None:
        try:
            rule = await source.remembered_rule(execution)
        except Exception as error:  # noqa: BLE001 - no rule: ask
            _LOG.warning("looking up a remembered approval failed (asking instead): %s", safe_str(error))
    if plan is not None:
        plan.state.rule = rule
    return rule
