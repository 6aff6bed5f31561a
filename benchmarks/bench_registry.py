"""``assemble()`` through a real registry holding 1,000 registered tools.

``bench_prompt`` times the prompt service alone; this one adds what a user
actually pays: the registry's mode-aware provider (per-scope view, schemas)
and, in ``both`` mode, the ``tools:sdk`` section rendered from the same 1,000
tools. Target: ≤ 20 ms per assembly.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from dsh_tools import AssembleContext, ContentBlock, ToolExecution, boot
from dsh_tools.testing import ScriptedCodeRuntime

Row = tuple[str, float, str, bool]
TOOLS = 1_000
ROUNDS = 100


class _Tool:
    description = "Read part of a file from the workspace."

    def __init__(self, index: int) -> None:
        self.name = f"tool_{index:04d}"
        self.parameters = {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Workspace-relative path"},
                "offset": {"type": "integer"},
                "mode": {"type": "string", "enum": ["text", "bytes"]},
            },
            "required": ["path"],
        }

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []


async def _median_ms(mode: str) -> float:
    ctx = boot(mode=mode, code_runtime=ScriptedCodeRuntime())  # type: ignore[arg-type]
    for index in range(TOOLS):
        ctx.tools.register(_Tool(index))
    context = AssembleContext()
    await ctx.system_prompt.assemble(context)
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        await ctx.system_prompt.assemble(context)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def run() -> list[Row]:
    native = asyncio.run(_median_ms("native"))
    both = asyncio.run(_median_ms("both"))
    return [
        ("registry assemble, 1,000 tools, native: median ms", native, "≤ 20 ms", native <= 20),
        ("registry assemble, 1,000 tools, both (+SDK): median ms", both, "≤ 20 ms", both <= 20),
    ]


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure:58} {value:>10.3f}  {target}  {'ok' if holds else 'MISS'}")
