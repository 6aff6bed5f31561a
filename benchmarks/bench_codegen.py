"""Code Mode SDK text: ``render_tools_sdk`` for 1,000 tools within 10 ms.

The registry renders the SDK at every prompt assembly. Warm (the same tool
set as last time) only the per-tool memo lookups, the sort and the join run;
cold (an empty memo: a fresh process, or 1,000 tools it has never seen) every
schema is rendered. Both are measured, for plain ``dict`` schemas and for the
deep-frozen ``PMap``/``PVector`` schemas the registry actually passes
(``ToolSchema.parameters`` is frozen with ``pyrsistent.freeze``).

The catalog is built so that no two tools share a schema *object* (each tool
owns fresh containers, as schemas arriving from separate plugins and MCP
servers do), while many share *content* (``{"type": "string"}`` properties,
common enums), as real catalogs do.

The cold rows are reported against the issue's 10 ms as they stand; on the
reference machine they miss it. The floors, measured: for dicts the canonical
``orjson.dumps`` (the cache key) and ``orjson.loads`` (the tree the text is
rendered from, so a hit can never be stale) take ~6 ms of the budget before
any rendering; for frozen schemas merely reading 12,000 ``PMap`` nodes out of
their buckets takes ~8 ms. Rendering ~10,000 nodes in CPython takes the rest.

Run standalone: ``python benchmarks/bench_codegen.py``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyrsistent import freeze

from dsh_tools_codegen import render_tools_sdk
from dsh_tools_codegen._sdk import _clear_cache

TOOL_COUNT = 1_000
TARGET_MS = 10.0
COLD_ROUNDS = 15
WARM_ROUNDS = 50

Row = tuple[str, float, str, bool]


@dataclass(frozen=True, slots=True)
class FrozenTool:
    """Shaped like the registry's ``ToolSchema``: attributes, frozen parameters."""

    name: str
    description: str
    parameters: object

_WORDS = "read write list find match replace path file line text range node key value mode limit".split()


def _description(rnd: random.Random, words: int) -> str:
    return " ".join(rnd.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _property(rnd: random.Random, depth: int) -> dict[str, Any]:
    """One fresh property schema (a new object every call)."""
    kind = rnd.randrange(10)
    schema: dict[str, Any]
    if kind <= 2:
        schema = {"type": "string"}
    elif kind == 3:
        schema = {"type": "integer", "minimum": 0}
    elif kind == 4:
        schema = {"type": "boolean"}
    elif kind == 5:
        schema = {"type": "string", "enum": rnd.sample(["fast", "slow", "auto", "none", "all"], rnd.randint(2, 4))}
    elif kind == 6:
        schema = {"type": "array", "items": {"type": "string"}}
    elif kind == 7:
        schema = {"type": ["string", "null"]}
    elif kind == 8 and depth == 0:
        names = rnd.sample(_WORDS, rnd.randint(2, 4))
        schema = {
            "type": "object",
            "properties": {name: _property(rnd, depth + 1) for name in names},
            "required": names[:1],
        }
    else:
        schema = {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}
    if rnd.random() < 0.6:
        schema["description"] = _description(rnd, rnd.randint(3, 10))
    return schema


def realistic_tools(count: int = TOOL_COUNT, seed: int = 7) -> list[dict[str, Any]]:
    """``count`` tool mappings with 3–7 properties each, no shared objects."""
    rnd = random.Random(seed)
    tools = []
    for index in range(count):
        names = rnd.sample(_WORDS, rnd.randint(3, 7))
        parameters = {
            "type": "object",
            "properties": {name: _property(rnd, 0) for name in names},
            "required": names[: rnd.randint(0, 2)],
            "additionalProperties": False,
        }
        tools.append(
            {
                "name": f"tool_{index:04d}",
                "description": f"Tool {index}: {_description(rnd, rnd.randint(5, 15))}",
                "parameters": parameters,
            }
        )
    return tools


def _sample(render: Callable[[], object], rounds: int, cold: bool) -> list[float]:
    samples: list[float] = []
    for _ in range(rounds):
        if cold:
            _clear_cache()
        started = time.perf_counter()
        render()
        samples.append((time.perf_counter() - started) * 1000.0)
    return samples


def run() -> list[Row]:
    """Rows of (figure, value in ms, target text, whether the target holds)."""
    plain = realistic_tools()
    frozen = [FrozenTool(tool["name"], tool["description"], freeze(tool["parameters"])) for tool in plain]
    target = f"<= {TARGET_MS:g} ms"
    rows: list[Row] = []
    cases: list[tuple[str, list[Any]]] = [("plain dict", plain), ("frozen PMap", frozen)]
    for label, tools in cases:
        expected = render_tools_sdk(tools)
        cold = _sample(lambda: render_tools_sdk(tools), COLD_ROUNDS, cold=True)
        warm = _sample(lambda: render_tools_sdk(tools), WARM_ROUNDS, cold=False)
        if render_tools_sdk(tools) != expected:
            raise RuntimeError("cold and warm renders differ")
        for phase, samples in (("cold", cold), ("warm", warm)):
            median = statistics.median(samples)
            figure = f"codegen render_tools_sdk, {TOOL_COUNT} tools, {label}, {phase}: median ms"
            rows.append((figure, median, target, median <= TARGET_MS))
    return rows


if __name__ == "__main__":
    for figure, value, target_text, holds in run():
        print(f"{figure:<70} {value:8.3f}  {target_text:<10} {'ok' if holds else 'MISSED'}")
