"""A lane contains what fails around an exclusive call's dispatch, as it does a parallel call's.

An exclusive call dispatches in the lane's own task (nothing overlaps it); a
probe or queue dispatcher that raises there must still end in the call's
error result, not escape ``execute_batch`` (which never raises for a call),
and an owner's ``on_recorded`` that raises must not leave the call's future
unresolved.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import pytest

from dsh_tools import Agent, CodeRunResult, ToolExecutionInput, ToolExecutionResult, boot, tool
from dsh_tools.context.probes import CallSlots
from dsh_tools.context.session import SESSION_EVENT
from dsh_tools.execution import ToolExecution
from dsh_tools.pipeline.batch import CallLane
from dsh_tools.pipeline.compose import STANDARD_GATES, execute_call
from dsh_tools.testing import ScriptedCodeRuntime


@tool
async def serial(text: str) -> str:
    """Exclusive: it declares no is_concurrency_safe."""
    return text


@tool(is_concurrency_safe=lambda args: True)
async def overlapping(text: str) -> str:
    """Parallel."""
    return text


class Broken:
    """A probe that fails as each call dispatches (probes must not raise; the lane contains one that does)."""

    hears = frozenset({"dispatching"})

    def dispatching(self, call: CallSlots, execution: ToolExecution) -> object:
        raise RuntimeError("tracer down")

    def dispatched(self, call: CallSlots, token: object) -> None:
        pass


@pytest.mark.parametrize("name", ["serial", "overlapping"])
async def test_a_raising_dispatch_is_the_calls_error_result_exclusive_or_parallel(name: str) -> None:
    ctx = boot()
    ctx.tools.register(serial)
    ctx.tools.register(overlapping)
    ctx.events.add_probe(Broken())  # type: ignore[arg-type]  # only the hooks it hears
    (result,) = await ctx.tools.execute_batch([ToolExecutionInput("x", name, {"text": "b"})])
    assert result.is_error and "tracer down" in result.text


async def test_a_raising_on_recorded_still_resolves_the_call_and_lets_the_lane_go_on() -> None:
    ctx = boot()
    ctx.tools.register(serial)
    told: list[str] = []

    def on_recorded(result: ToolExecutionResult) -> None:
        told.append(result.call_id)
        raise RuntimeError("owner failed")

    lane = CallLane(ctx.tools, on_recorded=on_recorded)
    first = lane.submit(ToolExecutionInput("a", "serial", {"text": "1"}))
    second = lane.submit(ToolExecutionInput("b", "serial", {"text": "2"}))
    with pytest.raises(RuntimeError, match="owner failed"):
        await lane.drive()
    assert first.done() and first.result().text == "1"  # recorded and resolved before the owner's failure went up
    assert told == ["a"] and not second.done()  # the driver stopped there; the next drive goes on
    with pytest.raises(RuntimeError, match="owner failed"):
        await lane.drive()
    assert second.result().text == "2" and told == ["a", "b"]


async def test_a_raising_session_listener_rejects_the_sub_call_and_the_program_goes_on() -> None:
    seen: list[str] = []

    async def program(tools: Any, request: Any) -> CodeRunResult:
        for text in ("one", "two"):
            try:
                await tools["serial"]({"text": text})
            except Exception as error:  # noqa: BLE001 - what the program sees
                seen.append(type(error).__name__)
        return CodeRunResult(logs=())

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime({"p": program}))
    ctx.tools.register(serial)
    def refuse(agent_id: str, kind: str, data: object) -> None:
        raise ZeroDivisionError("the session listener failed")

    ctx.events.add(SESSION_EVENT, refuse, None, prepend=False)
    run = ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": "p"}, Agent(ctx, name="c")))
    result = await asyncio.wait_for(run, 5)  # it used to wait for ever: the lane died with the listener's error
    assert not result.is_error and seen == ["ZeroDivisionError", "ZeroDivisionError"]


async def test_any_sequence_of_gates_will_do() -> None:
    ctx = boot()
    ctx.tools.register(serial)
    result = await execute_call(ctx.tools, ToolExecutionInput("d", "serial", {"text": "q"}), gates=deque(STANDARD_GATES))
    assert result.text == "q"
