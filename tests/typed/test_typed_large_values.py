"""A large typed return is frozen, validated and rendered off the event loop (issue 24 #10).

The proof is behavioural, not timed: the tool's ``render`` blocks until a
task *on the loop* answers it. On the loop, that task could never run; on a
worker thread, it does.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any, TypedDict

from dsh_tools import ContentBlock, ToolExecution, ToolExecutionInput, boot, define_tool, text_block
from dsh_tools.off_loop import INLINE_VALUES

SAFETY_NET_S = 10.0
"""Only a bound on the render's wait, so a failing run ends instead of hanging."""


class NoArgs(TypedDict):
    pass


async def test_a_large_typed_value_is_processed_while_the_loop_runs_another_task() -> None:
    loop = asyncio.get_running_loop()
    rendering = asyncio.Event()
    answered = threading.Event()
    size = 4 * INLINE_VALUES

    async def produce(args: NoArgs, exec: ToolExecution) -> list[int]:
        return list(range(size))

    def render(args: NoArgs, value: list[int]) -> Sequence[ContentBlock]:
        loop.call_soon_threadsafe(rendering.set)
        seen = answered.wait(SAFETY_NET_S)  # set by a task on the loop: only possible if the loop is free
        return [text_block(f"{len(value)} values; the loop ran meanwhile: {seen}")]

    async def answer() -> None:
        await rendering.wait()
        answered.set()

    big = define_tool(name="big", description="a large value", args=NoArgs, output=list[int], execute=produce, render=render)
    ctx = boot()
    ctx.tools.register(big)
    helper = asyncio.ensure_future(answer())
    result = await ctx.tools.execute(ToolExecutionInput("c1", "big", {}))
    helper.cancel()
    assert not result.is_error, result.text
    assert result.text == f"{size} values; the loop ran meanwhile: True"
    assert result.value == tuple(range(size)), "the frozen value is the whole value, checked"


async def test_a_large_invalid_value_is_still_an_output_error() -> None:
    async def produce(args: NoArgs, exec: ToolExecution) -> list[int]:
        value: list[Any] = list(range(4 * INLINE_VALUES))
        value[-1] = "not an int"
        return value

    bad = define_tool(name="bad", description="a large wrong value", args=NoArgs, output=list[int], execute=produce)
    ctx = boot()
    ctx.tools.register(bad)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "bad", {}))
    assert result.is_error and result.error is not None and result.error.code == "OUTPUT_INVALID"


async def test_a_small_value_stays_on_the_loop() -> None:
    threads: list[int] = []

    async def produce(args: NoArgs, exec: ToolExecution) -> list[int]:
        return [1, 2, 3]

    def render(args: NoArgs, value: list[int]) -> Sequence[ContentBlock]:
        threads.append(threading.get_ident())
        return [text_block("small")]

    small = define_tool(name="small", description="small", args=NoArgs, output=list[int], execute=produce, render=render)
    ctx = boot()
    ctx.tools.register(small)
    assert (await ctx.tools.execute(ToolExecutionInput("c1", "small", {}))).text == "small"
    assert threads == [threading.get_ident()]
