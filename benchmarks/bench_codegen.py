"""Code Mode SDK text: ``render_tools_sdk`` for 1,000 tools within 10 ms.

The registry renders the SDK at every prompt assembly. Warm (the same tool
set as last time) only the per-tool memo lookups, the sort and the join run;
cold (:func:`_clear_cache` empties the member memo *and* the memoised JSDoc
and key text, as in a fresh process seeing 1,000 new tools) every schema is
rendered. Both are measured, for plain ``dict`` schemas (what a caller
holding JSON passes, and what the TypeScript reference measures) and for the
deep-frozen ``PMap``/``PVector`` schemas the registry passes
(``ToolSchema.parameters``).

The catalog is built so that no two tools share a schema *object* (each tool
owns fresh containers, as schemas arriving from separate plugins and MCP
servers do), while many share *content* (``{"type": "string"}`` properties,
common enums), as real catalogs do.

The rows measure the implementation this process runs (mypyc-compiled when
the build could compile it, see ``dsh_tools_codegen/_implementation.py``);
the same figures for the pure-Python sources come from a child process with
``DSH_TOOLS_PURE_PYTHON=1``, with the speed-up as a ratio of the two.

Where the time goes, measured with perf on the reference machine (compiled):
a cold frozen render spends ~5 ms just reading 12,000 ``PMap`` nodes out of
pyrsistent's bucket vectors (pointer chasing: ``PVector.tolist`` and the
copies), on top of what the same tree costs as dicts. A dict schema is read
live, so keying its memo entry soundly costs a bounded size count and two
``orjson`` dumps (before and after the read, ~2 ms per 1,000 tools; the warm
path pays the count and one dump). The rest is CPython string and dict work
spread thin.

Run standalone: ``python -m benchmarks.bench_codegen``.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from pyrsistent import freeze

from dsh_tools_codegen import render_tools_sdk
from dsh_tools_codegen._implementation import IMPLEMENTATION, PURE_ENV
from dsh_tools_codegen._sdk import _clear_cache

TOOL_COUNT = 1_000
TARGET_MS = 10.0
COLD_ROUNDS = 31
WARM_ROUNDS = 51

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


def measure() -> dict[str, float]:
    """Median milliseconds per case, keyed ``"<input> <phase>"``, in this process."""
    plain = realistic_tools()
    frozen = [FrozenTool(tool["name"], tool["description"], freeze(tool["parameters"])) for tool in plain]
    medians: dict[str, float] = {}
    cases: list[tuple[str, list[Any]]] = [("plain dict", plain), ("frozen PMap", frozen)]
    for label, tools in cases:
        expected = render_tools_sdk(tools)
        cold = _sample(lambda: render_tools_sdk(tools), COLD_ROUNDS, cold=True)
        warm = _sample(lambda: render_tools_sdk(tools), WARM_ROUNDS, cold=False)
        if render_tools_sdk(tools) != expected:
            raise RuntimeError("cold and warm renders differ")
        medians[f"{label} cold"] = statistics.median(cold)
        medians[f"{label} warm"] = statistics.median(warm)
    return medians


def _measure_pure() -> dict[str, float]:
    """:func:`measure` in a child process running the pure-Python sources."""
    environ = {**os.environ, PURE_ENV: "1"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_codegen", "--json"],
        capture_output=True,
        env=environ,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=600,
    )
    figures: dict[str, float] = orjson.loads(done.stdout)
    return figures


def run() -> list[Row]:
    """Rows of (figure, value, target text, whether the target holds)."""
    target = f"<= {TARGET_MS:g} ms"
    rows: list[Row] = []
    here = measure()
    for case, median in here.items():
        figure = f"codegen render_tools_sdk, {TOOL_COUNT} tools, {case} ({IMPLEMENTATION}): median ms"
        rows.append((figure, median, target, median <= TARGET_MS))
    if IMPLEMENTATION == "compiled":
        pure = _measure_pure()
        for case in ("plain dict cold", "frozen PMap cold"):
            figure = f"codegen render_tools_sdk, {TOOL_COUNT} tools, {case} (pure Python): median ms"
            rows.append((figure, pure[case], "informational", True))
        for case in ("plain dict cold", "frozen PMap cold"):
            figure = f"codegen {case} render, pure Python / compiled: ratio"
            rows.append((figure, pure[case] / here[case], "informational", True))
    return rows


if __name__ == "__main__":
    if sys.argv[1:] == ["--json"]:
        sys.stdout.buffer.write(orjson.dumps(measure()))
    else:
        for figure, value, target_text, holds in run():
            print(f"{figure:<84} {value:8.3f}  {target_text:<13} {'ok' if holds else 'MISSED'}")
