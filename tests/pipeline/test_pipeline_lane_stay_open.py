"""A lane that stays open (a Code Mode program's): one driver serves calls submitted one after another.

Without ``stay_open`` a driver returns as soon as everything submitted is
recorded; with it, the driver waits for more until ``close()``, so a
program's sequential calls do not start a task each.
"""

from __future__ import annotations

import asyncio

from dsh_tools import Agent, CodeRunResult, ToolExecutionInput, boot, tool
from dsh_tools.pipeline.batch import CallLane
from dsh_tools.testing import Bindings, ScriptedCodeRuntime
from dsh_tools.code_mode.runtime import CodeRunRequest


@tool
async def echo(text: str) -> str:
    """Exclusive."""
    return text


async def test_one_driver_serves_calls_submitted_after_it_went_idle_until_closed() -> None:
    ctx = boot()
    ctx.tools.register(echo)
    lane = CallLane(ctx.tools, stay_open=True)
    driver = asyncio.ensure_future(lane.drive())
    first = await lane.submit(ToolExecutionInput("a", "echo", {"text": "one"}))
    assert lane.idle and not driver.done()  # idle, and still there for the next call
    second = await lane.submit(ToolExecutionInput("b", "echo", {"text": "two"}))
    assert (first.text, second.text) == ("one", "two") and not driver.done()
    lane.close()
    await asyncio.wait_for(driver, timeout=5)  # bounds a hang if close() did not wake it; not a timing
    assert driver.exception() is None


async def test_a_closed_lane_finishes_what_was_submitted_before_its_driver_returns() -> None:
    ctx = boot()
    ctx.tools.register(echo)
    lane = CallLane(ctx.tools, stay_open=True)
    pending = [lane.submit(ToolExecutionInput(f"c{i}", "echo", {"text": str(i)})) for i in range(3)]
    lane.close()  # closed before the driver even started: it still records all three
    await lane.drive()
    assert [future.result().text for future in pending] == ["0", "1", "2"]


async def test_a_default_lane_driver_returns_once_idle() -> None:
    ctx = boot()
    ctx.tools.register(echo)
    lane = CallLane(ctx.tools)
    future = lane.submit(ToolExecutionInput("a", "echo", {"text": "x"}))
    await lane.drive()  # returns: nothing else was submitted
    assert future.result().text == "x"


async def test_a_programs_sequential_calls_share_one_driver_which_ends_with_the_run() -> None:
    drivers: list[object] = []
    runtime = ScriptedCodeRuntime()

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        for text in ("a", "b", "c"):
            await tools["echo"]({"text": text})
            drivers.append(_lane_driver())
        return CodeRunResult(logs=(), value="done")

    runtime.programs["calls"] = program
    ctx = boot(mode="code", code_runtime=runtime)
    ctx.tools.register(echo)
    agent = Agent(ctx, name="a")
    result = await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": "calls"}, agent))
    assert not result.is_error, result.text
    assert len(drivers) == 3 and drivers[0] is drivers[1] is drivers[2]  # one task for the three calls
    assert all(task.done() for task in drivers)  # type: ignore[attr-defined]  # the run's drain closed it


def _lane_driver() -> object:
    """The running task that drives a lane (its coroutine is ``CallLane.drive``)."""
    (task,) = [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ == "CallLane.drive"]  # type: ignore[union-attr]
    return task
