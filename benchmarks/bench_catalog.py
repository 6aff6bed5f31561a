"""Large catalogs and large results (issue 37): prompt size, recall, ``$search`` latency, spilling.

* **Prompt size.** The whole ``tools:sdk`` section with ``catalog="search"``
  (default ``catalog_chars=6000``), for 100, 1,000 and 10,000 tools of
  ``large_catalog``, in characters and in estimated tokens (characters ÷ 4:
  no tokenizer is reachable here), beside the full SDK of the same tools.
  Target: at most 8,000 characters.
* **Retrieval.** recall@5 on the frozen labelled set (``retrieval_queries.json``
  over ``labelled_catalog()``), overall (target at least 0.9) and per surface,
  through the registry's own index and per-agent filter.
* **Latency.** ``tools.$search`` at 10,000 tools, the host's side of the
  built-in (index, view filter, the answer), p50 over the 220 queries; target
  at most 2 ms. Also the index's first build at 10,000 tools and one added tool.
* **Spilling.** A 10 MB result with ``max_inline_bytes=16384``: what reaches
  the model (bytes) and the time of the call.

Run standalone: ``python -m benchmarks.bench_catalog``.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks._common import Row
from benchmarks.catalog_surfaces import SURFACE_NAMES, large_catalog
from dsh_tools import AssembleContext, ContentBlock, Context, ToolExecution, ToolExecutionInput, boot, text_block
from dsh_tools.code_mode.search.builtins import Builtins
from dsh_tools.testing import ScriptedCodeRuntime

QUERIES: list[dict[str, str]] = json.loads((Path(__file__).parent / "retrieval_queries.json").read_text(encoding="utf-8"))
MAX_SECTION_CHARS = 8_000
MIN_RECALL = 0.9
MAX_SEARCH_MS = 2.0
SPILL_LIMIT = 16_384


class _Tool:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.name, self.description, self.parameters = spec["name"], spec["description"], spec["parameters"]

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("ok")]


def _registry(count: int, catalog: str) -> Context:
    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime(), catalog=catalog)  # type: ignore[arg-type]
    for spec in large_catalog(count):
        ctx.tools.register(_Tool(spec))
    return ctx


def _section(ctx: Context) -> str:
    assembly = asyncio.run(ctx.system_prompt.assemble(AssembleContext()))
    return next(section.text for section in assembly.sections if section.name == "tools:sdk")


def _prompt_rows() -> list[Row]:
    rows: list[Row] = []
    for count in (100, 1_000, 10_000):
        searched = len(_section(_registry(count, "search")))
        full = len(_section(_registry(count, "full")))
        holds = searched <= MAX_SECTION_CHARS
        figure = f"catalog=search, {count:,} tools: tools:sdk section"
        rows.append((f"{figure} chars", searched, f"<= {MAX_SECTION_CHARS:,}", holds))
        rows.append((f"{figure} est. tokens (chars/4)", searched / 4, f"<= {MAX_SECTION_CHARS // 4:,}", holds))
        rows.append((f"catalog=full, {count:,} tools: tools:sdk section chars (for comparison)", full, "report", True))
    return rows


def _search(builtins: Builtins, query: str, limit: int = 5) -> list[str]:
    builtins.calls = 0  # the per-run bound is a program's; the bench asks many times
    hits: Any = asyncio.run(builtins.search({"query": query, "limit": limit}))
    return [hit["name"] for hit in hits]


def _recall_rows() -> list[Row]:
    ctx = _registry(1_000, "search")
    builtins = Builtins(ctx.tools, None)
    hits = {surface: [0, 0] for surface in SURFACE_NAMES}
    for row in QUERIES:
        hits[row["surface"]][1] += 1
        hits[row["surface"]][0] += row["tool"] in _search(builtins, row["query"])
    overall = sum(found for found, _ in hits.values()) / len(QUERIES)
    rows: list[Row] = [(f"$search recall@5, {len(QUERIES)} labelled queries, 1,000 tools", overall, f">= {MIN_RECALL}", overall >= MIN_RECALL)]
    for surface, (found, total) in hits.items():
        rows.append((f"$search recall@5, surface {surface} ({total} queries)", found / total, "report", True))
    return rows


def _latency_rows() -> list[Row]:
    ctx = _registry(10_000, "search")
    code_mode = ctx.tools.code_mode
    start = time.perf_counter()
    code_mode.catalog_index()
    built_ms = (time.perf_counter() - start) * 1000.0
    builtins = Builtins(ctx.tools, None)
    for row in QUERIES:  # warm: the per-term weights are made on first use after a change
        _search(builtins, row["query"])
    async def timed() -> list[float]:
        samples = []
        for _ in range(3):
            for row in QUERIES:
                builtins.calls = 0
                begin = time.perf_counter()
                await builtins.search({"query": row["query"], "limit": 10})
                samples.append((time.perf_counter() - begin) * 1000.0)
        return samples

    samples = asyncio.run(timed())
    p50 = statistics.median(samples)
    ctx.tools.register(_Tool({"name": "zz_added", "description": "One more tool.", "parameters": {}}))
    start = time.perf_counter()
    code_mode.catalog_index()
    added_ms = (time.perf_counter() - start) * 1000.0
    return [
        ("$search p50 at 10,000 tools (host side, limit 10) ms", p50, f"<= {MAX_SEARCH_MS:g} ms", p50 <= MAX_SEARCH_MS),
        ("catalog index build at 10,000 tools ms", built_ms, "report", True),
        ("catalog index: one tool registered at 10,000 ms", added_ms, "report", True),
    ]


def _spill_rows() -> list[Row]:
    big = ("añb€c😀 " * 1_500_000)[:10_000_000]

    class Dump:
        name, description, parameters = "dump", "A 10 MB text.", {"type": "object", "properties": {}}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            return [text_block(big)]

    ctx = boot(max_inline_bytes=SPILL_LIMIT)
    ctx.tools.register(Dump())

    async def call() -> tuple[int, float]:
        start = time.perf_counter()
        result = await ctx.tools.execute(ToolExecutionInput("c1", "dump", {}))
        return len(result.text.encode("utf-8")), (time.perf_counter() - start) * 1000.0

    size, took = asyncio.run(call())
    return [
        ("spill: a 10 MB result reaches the model as bytes", size, f"<= {SPILL_LIMIT:,}", size <= SPILL_LIMIT),
        ("spill: the 10 MB call, kept in a MemoryStore, ms", took, "report", True),
    ]


def run() -> list[Row]:
    return [*_prompt_rows(), *_recall_rows(), *_latency_rows(), *_spill_rows()]


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure:<72} {value:12,.3f}  {target:<10} {'ok' if holds else 'MISSED'}")
