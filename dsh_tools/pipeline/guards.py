"""Stage 3, guards: monotonic, synchronous vetoes after the waterfall.

A guard cannot be overridden by listener ordering: it runs after every
``tools/pre-execute`` listener has had its say. The first ``str`` wins
(global guards first, then the agent's); anything but ``str``/``None`` fails
the call closed.
"""

from __future__ import annotations

from types import CoroutineType

from returns.result import Result, Success

from dsh_tools.execution import ToolExecution
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import Settled, StageFailure, denied, failed, report_failure

__all__ = ["check_guards"]


async def check_guards(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
    """Run the guards that apply to ``execution.agent``; the first denial settles the call."""
    for guard in host.guards_for(execution.agent):
        try:
            verdict: object = guard(execution)
        except BaseException as error:  # noqa: BLE001 - a broken guard fails closed
            propagate_if_fatal(error)
            report_failure(host.logger, "guard", guard, error)
            return failed(execution, StageFailure.raised(error))
        if verdict is None:
            continue
        if type(verdict) is str:
            return denied(execution, verdict, "guard-denied")
        if type(verdict) is CoroutineType:  # exact type: isinstance could run a hostile __class__
            verdict.close()  # guards are synchronous; do not leak an un-awaited coroutine
        return failed(execution, StageFailure(f"guard returned {type(verdict).__name__}, expected str or None"))
    return Success(execution)
