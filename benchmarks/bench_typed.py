"""Typed outputs: what a value costs next to text (a benchmark, not a timed test).

Two ratios, each measured in this one run (so machine noise cancels out):

* a typed call through ``execute()`` against a content call whose body does
  the same work and renders it itself (target ≤ 1.3×): the value is frozen,
  checked against the output schema and rendered by the registry instead;
* a Code Mode binding returning a 10 KB value against one returning a 10 KB
  string, real Deno (target ≤ 2×): per call, the cost of a run of many calls
  minus the cost of a run of none.

Run standalone with ``.venv/bin/python benchmarks/bench_typed.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Mapping
from typing import TypedDict

import orjson

from dsh_tools import ContentBlock, ToolExecution, ToolExecutionInput, boot, define_tool, text_block
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.json_values import JsonValue

Row = tuple[str, float, str, bool]

CALLS = 2_000
ROUNDS = 7
SUB_CALLS = 100
DENO_ROUNDS = 5
SPARE_WARMUP_S = 0.15


class PathArgs(TypedDict):
    path: str


class FileStat(TypedDict):
    path: str
    lines: int
    words: int


def _stat(path: str) -> FileStat:
    return {"path": path, "lines": len(path) * 3, "words": len(path) * 11}


async def stat_value(args: PathArgs, exec: ToolExecution) -> FileStat:
    return _stat(args["path"])


async def stat_text(args: PathArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(orjson.dumps(_stat(args["path"])).decode())]


async def _per_call_us(name: str, ctx_tools: object) -> float:
    execute = ctx_tools.execute  # type: ignore[attr-defined]
    started = time.perf_counter()
    for index in range(CALLS):
        await execute(ToolExecutionInput(f"c{index}", name, {"path": "src/app.py"}))
    return (time.perf_counter() - started) / CALLS * 1e6


async def _execute_ratio() -> tuple[float, float]:
    ctx = boot()
    ctx.tools.register(define_tool(name="typed", description="d", args=PathArgs, output=FileStat, execute=stat_value))
    ctx.tools.register(define_tool(name="content", description="d", args=PathArgs, execute=stat_text))
    typed: list[float] = []
    content: list[float] = []
    await _per_call_us("typed", ctx.tools)  # warm both paths
    await _per_call_us("content", ctx.tools)
    for _ in range(ROUNDS):  # interleaved, so drift hits both alike
        typed.append(await _per_call_us("typed", ctx.tools))
        content.append(await _per_call_us("content", ctx.tools))
    return statistics.median(typed), statistics.median(content)


class Hit(TypedDict):
    path: str
    line: int
    text: str


HITS: list[Hit] = [{"path": f"src/module_{i:03d}.py", "line": i, "text": "x" * 50} for i in range(108)]
BLOB = orjson.dumps(HITS).decode()  # the same 10 KB, as one string


async def hits_value(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[Hit]:
    return HITS


async def hits_text(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(BLOB)]


async def _binding_ratio() -> tuple[float, float, int]:
    runtime = DenoCodeRuntime()
    ctx = boot(mode="code", code_runtime=runtime)
    ctx.tools.register(define_tool(name="value", description="d", parameters={}, output=list[Hit], execute=hits_value))
    ctx.tools.register(define_tool(name="text", description="d", parameters={}, execute=hits_text))

    async def run(program: str) -> float:
        await asyncio.sleep(SPARE_WARMUP_S)  # a warm spare, as between model turns
        started = time.perf_counter()
        result = await ctx.tools.execute(ToolExecutionInput("r", "run_code", {"code": program}))
        elapsed = time.perf_counter() - started
        assert not result.is_error, result.text
        return elapsed

    def program(name: str, calls: int) -> str:
        return f"let n = 0; for (let i = 0; i < {calls}; i++) {{ n += (await tools.{name}({{}})).length; }} return n;"

    try:
        await run(program("value", 1))
        values: list[float] = []
        texts: list[float] = []
        for _ in range(DENO_ROUNDS):
            empty = await run(program("text", 0))
            values.append((await run(program("value", SUB_CALLS)) - empty) / SUB_CALLS * 1e3)
            empty = await run(program("text", 0))
            texts.append((await run(program("text", SUB_CALLS)) - empty) / SUB_CALLS * 1e3)
    finally:
        await ctx.dispose()
        await runtime.dispose()
    return statistics.median(values), statistics.median(texts), len(BLOB)


def run() -> list[Row]:
    typed_us, content_us = asyncio.run(_execute_ratio())
    execute_ratio = typed_us / content_us
    value_ms, text_ms, size = asyncio.run(_binding_ratio())
    binding_ratio = value_ms / text_ms
    return [
        ("typed call through execute(): µs per call", round(typed_us, 1), "(informational)", True),
        ("content call, same body, through execute(): µs per call", round(content_us, 1), "(informational)", True),
        ("typed / content call through execute()", round(execute_ratio, 3), "≤ 1.3×", execute_ratio <= 1.3),
        (f"binding returning a {size / 1000:.0f} KB value: ms per call (Deno)", round(value_ms, 3), "(informational)", True),
        (f"binding returning a {size / 1000:.0f} KB string: ms per call (Deno)", round(text_ms, 3), "(informational)", True),
        ("10 KB value / 10 KB string binding round trip", round(binding_ratio, 3), "≤ 2×", binding_ratio <= 2.0),
    ]


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{'OK  ' if holds else 'MISS'} {figure}: {value} (target {target})")
