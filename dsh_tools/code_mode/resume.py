"""Resuming a parked program: settle the approved call, then run the program again by replay.

The registry hands a claimed parked call here when its record holds a
program (:mod:`.replay`). The approved sub-call runs first, outside any
program, through the rest of the pipeline (its record in the journal linked
to the approval); then the ``run_code`` call runs again under its own call id
with the replay attached, and its result is what ``resume`` returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from returns.result import Failure

from dsh_tools.code_mode.replay import ParkedProgram, RecordedCall, Replay, start_replay
from dsh_tools.code_mode.runtime import code_runtime
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.json_values import JsonValue, freeze_json
from dsh_tools.pipeline.compose import continue_call
from dsh_tools.pipeline.resume import resume_call
from dsh_tools.registry.approvals import stale_result
from dsh_tools.store.records import ParkedCall

if TYPE_CHECKING:
    from dsh_tools.registry.registry import ToolRegistry

__all__ = ["program_unavailable", "resume_program"]


def program_unavailable(registry: ToolRegistry) -> str | None:
    """Why a parked program cannot be rerun by ``registry`` now, or ``None`` (checked before anything is claimed)."""
    runtime = code_runtime(registry.context, registry.code_language)
    if isinstance(runtime, str):
        return runtime
    if getattr(runtime, "disposed", False) is True:
        return "the code runtime is disposed"
    return None


async def resume_program(
    registry: ToolRegistry, parked: ParkedCall, execution: ToolExecution, stale: str | None
) -> ToolExecutionResult:
    """Run the approved sub-call, then the program again with the earlier run's calls replayed."""
    program = ParkedProgram.read(parked.program)
    if program is None:  # a record this code cannot read as a program: the call alone is what was approved
        return await _settle_call(registry, parked, execution, stale)
    sub_result = await _settle_call(registry, parked, execution, stale)
    approved = RecordedCall.of(program.waiting, parked.tool_name, parked.arguments, sub_result)
    run = ToolExecution(
        registry.mint_token(),
        program.run_call_id,
        "run_code",
        cast(JsonValue, freeze_json({"code": program.code}).unwrap()),  # type: ignore[arg-type]
        execution.agent,
        signal=execution.signal,
    )
    start_replay(run.token, Replay(program, approved))
    registry.link_approval(run.token, parked.approval_id)
    return await resume_call(registry, run, "allowed-once")


async def _settle_call(
    registry: ToolRegistry, parked: ParkedCall, execution: ToolExecution, stale: str | None
) -> ToolExecutionResult:
    if stale is not None:
        return await continue_call(registry, Failure(stale_result(execution, stale)), ())
    assert parked.decision is not None  # a claimed call is decided
    return await resume_call(registry, execution, parked.decision.outcome)
