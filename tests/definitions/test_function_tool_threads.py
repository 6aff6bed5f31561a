"""Sync ``@tool`` bodies run on their agent's own bounded executor: one agent cannot starve another.

Blocking is done with ``threading.Event``s the test releases, never with sleeps.
"""

from __future__ import annotations

import asyncio
import threading

from dsh_tools import Agent, ToolExecutionInput, ToolExecutionResult, boot, tool
from dsh_tools.definitions.sync_threads import SYNC_THREADS_PER_AGENT

SAFETY_NET_S = 20.0
"""Only a safety net against a hang; nothing here waits on time otherwise."""
FLOOD = 40
"""More calls than any default executor has threads (asyncio's: at most 32)."""


async def test_one_agents_stuck_sync_threads_do_not_starve_another_agents_sync_tool() -> None:
    # issue 24 #5: stuck threads of one agent filled asyncio's shared executor; another agent's trivial tool timed out.
    loop = asyncio.get_running_loop()
    release = threading.Event()
    lock = threading.Lock()
    entered = 0
    all_busy = asyncio.Event()

    @tool
    def stuck() -> str:
        """Blocks until the test releases it."""
        nonlocal entered
        with lock:
            entered += 1
            if entered == SYNC_THREADS_PER_AGENT:
                loop.call_soon_threadsafe(all_busy.set)
        release.wait(SAFETY_NET_S)
        return "released"

    @tool
    def trivial() -> str:
        """Answers at once."""
        return "ok"

    ctx = boot(timeouts=False)
    ctx.tools.register(stuck)
    ctx.tools.register(trivial)
    greedy, other = Agent(ctx, name="greedy"), Agent(ctx, name="other")
    flood = [
        asyncio.ensure_future(greedy.ctx.tools.execute(ToolExecutionInput(f"g{i}", "stuck", {}, agent=greedy)))
        for i in range(FLOOD)
    ]
    try:
        await asyncio.wait_for(all_busy.wait(), SAFETY_NET_S)  # every thread of greedy's is taken
        answer: ToolExecutionResult | None = None
        try:
            answer = await asyncio.wait_for(
                other.ctx.tools.execute(ToolExecutionInput("o1", "trivial", {}, agent=other)), SAFETY_NET_S
            )
        except TimeoutError:
            pass
        assert answer is not None, "the other agent's sync tool was starved by the greedy agent's threads"
        assert answer.text == "ok"
        assert entered == SYNC_THREADS_PER_AGENT, "the greedy agent never has more threads than its bound"
    finally:
        release.set()
        results = await asyncio.gather(*flood)
    assert [r.text for r in results] == ["released"] * FLOOD, "the greedy agent's queued calls all ran, in turn"
