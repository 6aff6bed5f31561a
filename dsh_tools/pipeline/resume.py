"""Finish a deferred call: the verdict, then the rest of the pipeline after approval.

A parked call already passed admission and the ``tools/pre-execute``
waterfall; its approval was the one open question. ``resume_call`` answers
it with the same mapping the approval stage uses
(:func:`~dsh_tools.pipeline.verdicts.settle_verdict`): a denial settles the
call with the usual text, ``"allowed-once"`` runs the remaining gates (the
guards, read now, not when the call parked), dispatch and post-execute,
with the same abort and cancellation rules as any call
(:func:`~dsh_tools.pipeline.compose.continue_call`). Either way ``tools/result``
observers hear about the call once more, with this, its final result.
"""

from __future__ import annotations

from collections.abc import Sequence

from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.pipeline.compose import Gate, continue_call
from dsh_tools.pipeline.guards import check_guards
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.plan import mark_approved, plan_call
from dsh_tools.pipeline.verdicts import settle_verdict

__all__ = ["AFTER_APPROVAL", "resume_call"]

AFTER_APPROVAL: tuple[Gate, ...] = (check_guards,)
"""The standard gates that follow approval (``STANDARD_GATES`` without ``pre_execute``)."""


async def resume_call(
    host: PipelineHost,
    execution: ToolExecution,
    verdict: str,
    *,
    message: str | None = None,
    gates: Sequence[Gate] = AFTER_APPROVAL,
) -> ToolExecutionResult:
    """Settle ``verdict`` for a parked ``execution`` and run what follows approval; never raises for a participant.

    ``message`` is the decider's reason, which a denial's text carries
    (``the user rejected tool "NAME": <message>``). ``host`` is the call's
    plan when the registry resumes (so the call is known to be approved);
    any other host is planned here.
    """
    if verdict == "allowed-once":
        host = plan_call(host, execution)
        mark_approved(host)
    return await continue_call(host, settle_verdict(execution, verdict, message), gates)
