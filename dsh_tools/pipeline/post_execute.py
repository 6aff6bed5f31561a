"""Stage 5, ``tools/post-execute``: inspect the outcome, replace it, or block it.

Listeners answer with a :data:`PostToolDecision`; the default is ``Accept()``
(keep the result). ``Accept(content=...)`` replaces the model-facing content
(a typed call keeps its value), ``Accept(value=...)`` a typed call's value
(re-checked against the output schema and re-rendered),
``Block(feedback)`` turns the call into an error whose content is the
feedback, and either may attach ``additional_context`` for the loop. A
misbehaving listener fails the call closed.
"""

from __future__ import annotations

from types import CoroutineType
from collections.abc import Coroutine
from typing import Any, Final, TypeAlias, cast

from returns.result import Failure, Result, Success

from dsh_tools.decisions import Accept, Block, PostToolDecision
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.pipeline.checks import checked_post_decision
from dsh_tools.pipeline.containment import run_fail_closed
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.outcomes import StageFailure, error_result
from dsh_tools.pipeline.plan import CallPlan
from dsh_tools.pipeline.values import replace_value
from dsh_tools.tool_types import RegisteredTool

__all__ = ["apply_post_decision", "post_execute", "run_post_execute"]

EVENT: Final = "tools/post-execute"
_ACCEPT: Final[PostToolDecision] = Accept()
_ACCEPTED: Final[Result[PostToolDecision, StageFailure]] = Success(_ACCEPT)  # immutable: one for every call

PostDecided: TypeAlias = Result[PostToolDecision, StageFailure]


async def run_post_execute(
    host: PipelineHost, execution: ToolExecution, result: ToolExecutionResult
) -> Result[PostToolDecision, StageFailure]:
    """Run the ``tools/post-execute`` waterfall (default: ``Accept()``)."""
    outcome = _waterfall(host, execution, result)
    return await outcome if type(outcome) is CoroutineType else cast(PostDecided, outcome)


def _waterfall(
    host: PipelineHost, execution: ToolExecution, result: ToolExecutionResult
) -> PostDecided | Coroutine[Any, Any, PostDecided]:
    """:func:`run_post_execute`'s decision, or the coroutine that makes it: a call nothing listens to awaits nothing."""
    listeners = host.post if type(host) is CallPlan else host.events.listeners(EVENT, execution.agent)
    if not listeners:
        return _ACCEPTED
    return run_fail_closed(listeners, (execution, result), _ACCEPT, checked_post_decision, EVENT, host.logger)


def apply_post_decision(
    result: ToolExecutionResult,
    decision: PostToolDecision,
    *,
    execution: ToolExecution | None = None,
    tool: RegisteredTool | None = None,
) -> ToolExecutionResult:
    """The result a decision asks for (pure).

    ``Accept(value=...)`` needs the call's ``execution`` and the typed ``tool``
    it ran (to re-check and re-render the value); without them, or for a call
    that has no value, it fails closed.
    """
    match decision:
        case Accept(content=None, additional_context=None, value=None):
            return result
        case Accept(content=content, additional_context=context, value=value):
            if value is not None:
                if execution is None:
                    return error_result(result.call_id, "Accept(value=...) needs the execution and its typed tool")
                result = replace_value(tool, execution, result, value)
                if result.is_error:
                    return result
            return result.set(
                content=result.content if content is None else content,
                additional_context=result.additional_context if context is None else context,
            )
        case Block(feedback=feedback, additional_context=context):
            return ToolExecutionResult(result.call_id, feedback, True, additional_context=context, outcome="blocked")


async def post_execute(
    host: PipelineHost, execution: ToolExecution, result: ToolExecutionResult
) -> ToolExecutionResult:
    """The stage: waterfall, then :func:`apply_post_decision`."""
    outcome = _waterfall(host, execution, result)
    decision = await outcome if type(outcome) is CoroutineType else cast(PostDecided, outcome)
    if type(decision) is Failure:
        failure: StageFailure = decision.failure()
        return failure.result(execution.call_id)
    chosen = decision.unwrap()
    if type(host) is CallPlan:
        for probe in host.probes["post_decided"]:
            probe.post_decided(host.state, execution, chosen)
    if chosen is _ACCEPT:  # the default, handed back by every pass-through listener: keep the result
        return result
    tool = host.resolve(execution.name, execution.agent) if type(chosen) is Accept and chosen.value is not None else None
    return apply_post_decision(result, chosen, execution=execution, tool=tool)
