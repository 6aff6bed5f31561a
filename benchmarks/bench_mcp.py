"""MCP client overhead: a stdio tool call through the pipeline vs the bare SDK call (a benchmark, not a timed test).

Rows are ``(figure, value, target text, holds)``. Run standalone with
``.venv/bin/python -m benchmarks.bench_mcp``.

Both sides call the same server process (``examples/mcp_server.py``'s
``to_fahrenheit``) over the same ``ClientSession``: ``session.call_tool``
directly, and ``ctx.tools.execute`` on the tool ``mcp_tools`` registered
(argument check against the input schema, the full pipeline with the timeout
policy, content mapping). Rounds alternate between the two so machine noise
hits both alike; the figure is the ratio of the medians.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from dsh_tools import ToolExecutionInput, boot
from dsh_tools.mcp import StdioServerParameters, mcp_tools

Row = tuple[str, float, str, bool]

SERVER = Path(__file__).resolve().parents[1] / "examples" / "mcp_server.py"
ROUNDS = 20
CALLS_PER_ROUND = 25
TARGET_RATIO = 1.2


async def _measure() -> list[Row]:
    ctx = boot()
    toolset = await mcp_tools(ctx, StdioServerParameters(command=sys.executable, args=[str(SERVER)]), allow=["to_fahrenheit"])
    try:
        session = toolset.session
        assert session is not None
        arguments = {"celsius": 21.5}
        call = ToolExecutionInput(call_id="bench", name="to_fahrenheit", arguments=arguments)

        async def bare() -> None:
            result = await session.call_tool("to_fahrenheit", arguments)
            assert not result.is_error

        async def piped() -> None:
            result = await ctx.tools.execute(call)
            assert not result.is_error, result

        for warm in (bare, piped):
            for _ in range(CALLS_PER_ROUND):
                await warm()
        samples: dict[str, list[float]] = {"bare": [], "piped": []}
        for _ in range(ROUNDS):
            for label, fn in (("bare", bare), ("piped", piped)):
                started = time.perf_counter()
                for _ in range(CALLS_PER_ROUND):
                    await fn()
                samples[label].append((time.perf_counter() - started) * 1000 / CALLS_PER_ROUND)
    finally:
        await toolset.aclose()
    bare_ms = statistics.median(samples["bare"])
    piped_ms = statistics.median(samples["piped"])
    ratio = piped_ms / bare_ms
    return [
        ("mcp stdio call_tool, bare SDK (ms/call)", bare_ms, "-", True),
        ("mcp stdio call through the pipeline (ms/call)", piped_ms, "-", True),
        ("mcp pipeline / bare call_tool (ratio)", ratio, f"<= {TARGET_RATIO}x", ratio <= TARGET_RATIO),
    ]


def run() -> list[Row]:
    return asyncio.run(_measure())


if __name__ == "__main__":
    for row in run():
        print(row)
