"""The spill gate in the real runtimes: a program in real Deno and in real Monty receives a 10 MB result whole,
while the same result called directly reaches the model as a bounded preview."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from dsh_tools import RUN_CODE_NAME, DenoCodeRuntime, MontyCodeRuntime, ToolExecutionInput, boot, tool

BIG = ("añb€c " * 2_000_000)[:10_000_000]  # characters of one, two and three UTF-8 bytes, one UTF-16 unit each


@tool
async def dump() -> str:
    """Return a very long text."""
    return BIG


@pytest.fixture(params=["deno", "monty"])
async def runtime(request: pytest.FixtureRequest) -> AsyncIterator[DenoCodeRuntime | MontyCodeRuntime]:
    made = (
        DenoCodeRuntime(compute_ms=10_000, max_wall_ms=60_000)
        if request.param == "deno"
        else MontyCodeRuntime(compute_ms=10_000, max_wall_ms=60_000, max_heap_mb=1024)
    )
    yield made
    await made.dispose()


async def test_a_program_sees_the_whole_value_and_the_model_a_bounded_preview(runtime: Any) -> None:
    ctx = boot(mode="both", code_runtime=runtime, max_inline_bytes=16_384)
    ctx.tools.register(dump)
    if runtime.language == "typescript":
        program = 'const text = await tools.dump({});\nreturn `${text.length} ${text.slice(0, 6)} ${text.slice(-6)}`;'
    else:
        program = 'text = await tools.dump()\nreturn f"{len(text)} {text[:6]} {text[-6:]}"'
    result = await ctx.tools.execute(ToolExecutionInput("c1", RUN_CODE_NAME, {"code": program}))
    assert result.text == f"{len(BIG)} {BIG[:6]} {BIG[-6:]}", result.text[:500]
    direct = await ctx.tools.execute(ToolExecutionInput("c2", "dump", {}))
    assert len(direct.text.encode("utf-8")) <= 16_384 and "result cut" in direct.text
