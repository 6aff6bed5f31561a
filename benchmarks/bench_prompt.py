"""Prompt assembly cost: ``assemble()`` with 1,000 tools must stay within 20 ms.

Assembly runs before every model request, so it is on the request path. The
scenario is the worst realistic one for this package: one provider returning
1,000 schemas, a ``tool_order`` naming some of them (plus one known-but-absent
name), a handful of sections (one lazy), Code Mode-style protections and one
pass-through ``system-prompt/assemble`` listener.

Run standalone: ``python benchmarks/bench_prompt.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from dsh_tools.hooks import AssembleNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.json_values import JsonValue
from dsh_tools.tool_types import ToolSchema
from dsh_tools.system_prompt import (
    TOOL_ORDER_REST,
    AssembleContext,
    PromptAssembly,
    PromptSection,
    SystemPrompt,
    ToolProviderResult,
)

TOOL_COUNT = 1_000
TARGET_MS = 20.0
ROUNDS = 200

Row = tuple[str, float, str, bool]


def _schemas() -> list[ToolSchema]:
    parameters: dict[str, JsonValue] = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
    }
    return [ToolSchema(f"tool_{index:04d}", f"Tool number {index}.", parameters) for index in range(TOOL_COUNT)]


def _boot() -> tuple[Context, Agent]:
    schemas = _schemas()
    listed = [schemas[index].name for index in range(900, -1, -100)]  # 10 names, reversed
    ctx = Context()
    SystemPrompt(ctx, tool_order=[*listed, "restricted_away", TOOL_ORDER_REST, "tool_0001"])
    prompt = ctx.system_prompt
    known = [*(schema.name for schema in schemas), "restricted_away"]
    prompt.tools(lambda _: ToolProviderResult(schemas, known))
    prompt.section(PromptSection("identity", 0, "You are a coding agent."))
    prompt.section(PromptSection("rules", 100, "Follow the rules."))
    prompt.section(PromptSection("tools:sdk", 150, lambda c: f"declare const tools: {{/* {TOOL_COUNT} */}}"))
    prompt.protect(sections=["tools:sdk"], tools=["tool_0001"])

    async def passthrough(context: AssembleContext, assembly: PromptAssembly, next: AssembleNext) -> PromptAssembly:
        return await next()

    ctx.on("system-prompt/assemble", passthrough)
    agent = Agent(ctx, name="bench")
    agent.ctx.system_prompt.section(PromptSection("rules", 100, "Agent-specific rules."))
    return ctx, agent


async def _timings(ctx: Context, context: AssembleContext) -> list[float]:
    prompt = ctx.system_prompt
    assembly = await prompt.assemble(context)  # warm-up, and a sanity check of the scenario
    names = [tool.name for tool in assembly.tools]
    if len(names) != TOOL_COUNT or names[0] != "tool_0900" or names[-1] != "tool_0001":
        raise RuntimeError("the benchmark scenario did not assemble as designed")
    samples: list[float] = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        await prompt.assemble(context)
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def run() -> list[Row]:
    """Rows of (figure, value in ms, target text, whether the target holds)."""
    ctx, agent = _boot()
    global_ms = asyncio.run(_timings(ctx, AssembleContext()))
    scoped_ms = asyncio.run(_timings(ctx, AssembleContext(scope=agent)))
    target = f"<= {TARGET_MS:g} ms"
    rows: list[Row] = []
    for label, samples in (("global", global_ms), ("agent scope", scoped_ms)):
        median = statistics.median(samples)
        p95 = statistics.quantiles(samples, n=20)[-1]
        figure = f"prompt assemble, {TOOL_COUNT} tools + tool_order, {label}"
        rows.append((f"{figure}: median ms", median, target, median <= TARGET_MS))
        rows.append((f"{figure}: p95 ms", p95, target, p95 <= TARGET_MS))
    return rows


if __name__ == "__main__":
    for figure, value, target_text, holds in run():
        print(f"{figure:<70} {value:8.3f}  {target_text:<10} {'ok' if holds else 'MISSED'}")
