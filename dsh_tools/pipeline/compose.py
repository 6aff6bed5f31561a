"""The composition: ``admit → gates → dispatch → post-execute → finalize → observe``.

``ToolRegistry.execute`` is :func:`execute_call` with :data:`STANDARD_GATES`.
Gates share one shape, ``(host, execution) -> Result[ToolExecution, Settled]``,
so a custom pipeline is a different tuple of gates (drop approval, add a rate
limit) rather than a different engine.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeAlias

from returns.result import Failure, Result, Success

from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.pipeline.admit import admit
from dsh_tools.pipeline.dispatch import dispatch
from dsh_tools.pipeline.guards import check_guards
from dsh_tools.pipeline.host import PipelineHost
from dsh_tools.pipeline.observe import finalize, notify_result
from dsh_tools.pipeline.outcomes import Settled
from dsh_tools.pipeline.post_execute import post_execute
from dsh_tools.pipeline.pre_execute import pre_execute

__all__ = ["STANDARD_GATES", "Gate", "execute_call", "pass_gates", "run_tool"]

Gate: TypeAlias = Callable[[PipelineHost, ToolExecution], Awaitable[Result[ToolExecution, Settled]]]
"""A stage that lets the call through (``Success``) or settles it (``Failure``)."""

STANDARD_GATES: tuple[Gate, ...] = (pre_execute, check_guards)
"""The SPEC's order: the pre-execute waterfall (with approval for ``Ask``), then guards."""


async def pass_gates(
    host: PipelineHost, admitted: Result[ToolExecution, Settled], gates: Sequence[Gate]
) -> Result[ToolExecution, Settled]:
    """Thread the execution through each gate until one settles it."""
    for gate in gates:
        if isinstance(admitted, Failure):
            return admitted
        admitted = await gate(host, admitted.unwrap())
    return admitted


async def run_tool(host: PipelineHost, execution: ToolExecution) -> Settled:
    """Dispatch (with ``tools/execute`` wrappers), then ``tools/post-execute``."""
    result = await dispatch(host, execution)
    return Settled(execution, await post_execute(host, execution, result))


async def execute_call(
    host: PipelineHost, call: ToolExecutionInput, *, gates: Sequence[Gate] = STANDARD_GATES
) -> ToolExecutionResult:
    """Run one call through the whole pipeline; never raises for a misbehaving participant."""
    match await pass_gates(host, admit(host, call), gates):
        case Success(execution):
            settled = await run_tool(host, execution)
        case Failure(early):
            settled = early
    return await notify_result(host, finalize(settled))
