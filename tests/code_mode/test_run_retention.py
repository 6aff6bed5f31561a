"""A finished Code Mode run leaves nothing of its sub-calls behind, even with the garbage collector off.

Issue 34 #17 (``session_arg_retention``): each run kept every sub-call's
arguments and result in its replay record, inside a reference cycle (the run
owned its call lane, and the lane held the run's callback), so they stayed
until the cyclic collector ran: +588 MB in the review's session. With the
collector disabled, only reference counting frees anything, so memory that
grows with the runs here is memory held by a cycle (or by a table), which
``tracemalloc`` sees deterministically.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from dsh_tools import DenoCodeRuntime, MontyCodeRuntime, ToolExecutionInput, boot, tool
from dsh_tools.code_mode.runtime import CodeRuntime

BLOB = 1_000_000
"""Characters of each call's argument, and of its result."""
CALLS = 3
RUNS = 6
PROGRAMS = {
    "python": f'blob = "x" * {BLOB}\nfor _ in range({CALLS}):\n    echoed = await tools.echo(blob=blob)\nreturn len(echoed["blob"])',
    "typescript": (
        f'const blob = "x".repeat({BLOB}); let echoed = {{ blob: "" }};\n'
        f"for (let i = 0; i < {CALLS}; i++) echoed = await tools.echo({{ blob }});\nreturn echoed.blob.length;"
    ),
}


@tool(output={"type": "object", "properties": {"blob": {"type": "string"}}, "required": ["blob"]})
async def echo(blob: str) -> dict[str, Any]:
    """Give the blob back, as a typed value."""
    return {"blob": blob}


@pytest.fixture(params=["python", "typescript"])
async def runtime(request: pytest.FixtureRequest) -> AsyncIterator[CodeRuntime]:
    made: CodeRuntime = MontyCodeRuntime() if request.param == "python" else DenoCodeRuntime(pool_size=1)
    yield made
    await made.dispose()


async def retired(runtime: CodeRuntime) -> None:
    """Until every run's process is reaped and its pipes read to the end (a Deno runtime's; Monty has none)."""
    if isinstance(runtime, DenoCodeRuntime):
        await asyncio.gather(*(session.finished.wait() for session in list(runtime._sessions)))  # noqa: SLF001


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def test_a_finished_run_keeps_nothing_of_its_calls_with_the_collector_off(
    runtime: CodeRuntime, collector_off: None
) -> None:
    ctx = boot(mode="code", code_runtime=runtime)
    ctx.tools.register(echo)
    program = PROGRAMS[runtime.language]

    async def run(number: int) -> None:
        result = await ctx.tools.execute(ToolExecutionInput(f"run-{number}", "run_code", {"code": program}))
        assert not result.is_error and result.text == str(BLOB), result.text

    for number in range(2):  # first runs fill caches (the SDK text, the pool) that are not per run
        await run(number)
    tracemalloc.start()
    try:
        # Measured from the end of a traced run to the end of the last, each time once its process is
        # reaped (a run returns before that, and what its reading of the pipes holds goes with it).
        await run(2)
        await retired(runtime)
        before = tracemalloc.get_traced_memory()[0]
        for number in range(3, 3 + RUNS):
            await run(number)
        await retired(runtime)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # Held by a cycle, each run would keep 2 * CALLS * BLOB bytes: 36 MB in all.
    assert grown < BLOB, f"{grown} bytes are still held after {RUNS} runs"
