"""Stage 2, the allow/deny/ask gate: ``tools/pre-execute``, then approval.

The waterfall yields one :data:`PreToolDecision` value. ``decide`` turns it into
the railway: ``Allow`` continues, ``Deny`` settles with the reason, ``Ask``
goes to the approval service (looked up now, not at construction) and
continues only on ``"allowed-once"``; ``"deferred"`` parks the call for a later
``resume`` (:mod:`dsh_tools.pipeline.verdicts`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from types import CoroutineType
from typing import Any, Final, TypeAlias, cast

from returns.result import Failure, Result, Success

from dsh_tools.approval import ApprovalRequest
from dsh_tools.decisions import Allow, Ask, Deny, PreToolDecision
from dsh_tools.execution import ToolExecution
from dsh_tools.pipeline.approval_needed import default_decision, invalid_arguments
from dsh_tools.pipeline.checks import checked_pre_decision
from dsh_tools.pipeline.containment import run_fail_closed
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import Settled, StageFailure, denied, failed, report_failure
from dsh_tools.pipeline.plan import CallPlan, mark_approved
from dsh_tools.pipeline.remembered import remembered
from dsh_tools.pipeline.verdicts import park, settle_verdict

__all__ = ["ask_approval", "decide", "pre_execute", "run_pre_execute"]

EVENT: Final = "tools/pre-execute"
_ALLOW: Final[PreToolDecision] = Allow()
_ALLOWED: Final[Result[PreToolDecision, StageFailure]] = Success(_ALLOW)  # immutable: one for every call

PreDecided: TypeAlias = Result[PreToolDecision, StageFailure]


async def run_pre_execute(host: PipelineHost, execution: ToolExecution) -> Result[PreToolDecision, StageFailure]:
    """Run the ``tools/pre-execute`` waterfall (default: ``Allow()``, or ``Ask`` for a tool that needs approval).

    A tool declared ``needs_approval`` has its call's arguments validated
    first (invalid ones fail as ``INVALID_ARGS``, and nobody is asked); then
    the waterfall's *default* becomes ``Ask('tool "NAME" needs approval')``
    (see :func:`~dsh_tools.pipeline.approval_needed.default_decision`). A
    listener's own decision wins: ``Deny`` and ``Ask`` as they are, and an
    explicit ``Allow`` lifts the default.
    """
    outcome = _waterfall(host, execution)
    return await outcome if type(outcome) is CoroutineType else cast(PreDecided, outcome)


def _waterfall(
    host: PipelineHost, execution: ToolExecution
) -> PreDecided | Coroutine[Any, Any, PreDecided]:
    """:func:`run_pre_execute`'s decision, or the coroutine that makes it: a call nothing listens to awaits nothing."""
    if type(host) is CallPlan:
        listeners, tool = host.pre, host.tool
    else:
        listeners, tool = host.events.listeners(EVENT, execution.agent), host.resolve(execution.name, execution.agent)
    if tool is None or tool.needs_approval is False:
        if not listeners:
            return _ALLOWED
        return run_fail_closed(listeners, (execution,), _ALLOW, checked_pre_decision, EVENT, host.logger)
    invalid = invalid_arguments(tool, execution)
    if invalid is not None:
        return Failure(invalid)
    decide_default = partial(default_decision, tool, execution, host.logger)
    if not listeners:
        return _decided(decide_default)
    return run_fail_closed(listeners, (execution,), _ALLOW, checked_pre_decision, EVENT, host.logger, decide_default)


async def _decided(decide_default: Callable[[], Awaitable[PreToolDecision]]) -> Result[PreToolDecision, StageFailure]:
    return Success(await decide_default())


async def decide(
    host: PipelineHost, execution: ToolExecution, decision: PreToolDecision
) -> Result[ToolExecution, Settled]:
    """Put a decision on the railway: continue, settle as denied, or ask."""
    match decision:
        case Allow():
            return Success(execution)
        case Deny(reason=reason):
            return denied(execution, reason)
        case Ask():
            return await ask_approval(host, execution, decision)


async def ask_approval(host: PipelineHost, execution: ToolExecution, ask: Ask) -> Result[ToolExecution, Settled]:
    """Service an ``Ask``: a remembered rule decides first; else ``"allowed-once"`` continues, ``"deferred"`` parks, the rest deny."""
    name = execution.name
    rule = await remembered(host, execution)
    if rule is not None:
        if rule.outcome == "allowed-once":
            mark_approved(host)
        return settle_verdict(execution, rule.outcome, rule.message)
    service = host.approval()
    if service is None:
        return denied(
            execution, ask.reason or f'tool "{name}" needs approval, and no approval service is mounted', "approval-rejected"
        )
    if execution.agent is None:
        return denied(execution, f'tool "{name}" needs approval, but the call has no agent', "approval-rejected")
    request = ApprovalRequest(
        execution.agent, name, execution.call_id, ask.reason, execution.signal, execution=execution
    )
    try:
        outcome: object = await service.request(request)
    except BaseException as error:  # noqa: BLE001 - a broken approver fails closed
        propagate_if_fatal(error)
        report_failure(host.logger, "approval service", service, error)
        return failed(execution, StageFailure.raised(error))
    if type(outcome) is not str:  # before comparing: a hostile __eq__/__hash__ must not run
        return failed(execution, StageFailure(f"approval service returned {type(outcome).__name__}, not a known outcome"))
    if outcome == "deferred":
        return await park(host, execution, ask.reason)
    if outcome == "allowed-once":
        mark_approved(host)
    return settle_verdict(execution, outcome)


async def pre_execute(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
    """The gate as one stage: waterfall, then :func:`decide`."""
    outcome = _waterfall(host, execution)
    decision = await outcome if type(outcome) is CoroutineType else cast(PreDecided, outcome)
    if type(decision) is Failure:
        return failed(execution, decision.failure())
    chosen = decision.unwrap()
    if type(host) is CallPlan:
        for probe in host.probes["pre_decided"]:
            probe.pre_decided(host.state, execution, chosen)
    if type(chosen) is Allow:  # decide()'s first case, without a coroutine for it: most calls are allowed
        return Success(execution)
    return await decide(host, execution, chosen)
