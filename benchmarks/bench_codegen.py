"""Code Mode SDK text: ``render_tools_sdk`` for 1,000 new tools within 15 ms cold, 2 ms warm.

The targets come from issue 22: the TypeScript reference renders this
catalog in about 16 ms, and a warm render (the same tool set as last time)
should cost little more than checking that nothing changed.

The registry renders the SDK at every prompt assembly. Warm (the same tool
objects as last time) the memo's last tool set answers: each tool costs
reading its fields and one fingerprint (orjson writes its parameters, to
see they did not change; none for the frozen input, whose caller vouches);
cold (:func:`_clear_cache` empties the member memo, the output schemas'
texts *and* the renderer's memoised key, literal and union texts, as in a
fresh process seeing 1,000 new tools)
every schema is rendered. Both are measured, for plain ``dict`` schemas
(what a caller holding JSON passes, and what the TypeScript reference
measures) and for the registry's deep-frozen schemas
(``ToolSchema.parameters``: ``FrozenDict`` and ``tuple``, from
``freeze_json``).

The catalog is built so that no two tools share a schema *object* (each tool
owns fresh containers, as schemas arriving from separate plugins and MCP
servers do), while many share *content* (``{"type": "string"}`` properties,
common enums), as real catalogs do.

The renderer runs as the install built it: compiled with mypyc where the
machine can compile (a row says which), else its Python sources.

The Python SDK renderer (:func:`render_tools_sdk_python`, no memo) is
measured cold beside the TypeScript one, rounds interleaved, and must not
be slower (issue 26).

Run standalone: ``python -m benchmarks.bench_codegen``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dsh_tools.json_values import freeze_json
from dsh_tools_codegen import render_frozen_tools_sdk, render_tools_sdk, render_tools_sdk_python
from dsh_tools_codegen._implementation import IMPLEMENTATION
from dsh_tools_codegen._sdk import _clear_cache

TOOL_COUNT = 1_000
COLD_TARGET_MS = 15.0  # issue 22
WARM_TARGET_MS = 2.0  # issue 22
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
    frozen = [FrozenTool(tool["name"], tool["description"], freeze_json(tool["parameters"]).unwrap()) for tool in plain]
    medians: dict[str, float] = {}
    # The frozen schemas are rendered as the registry renders its snapshots (render_frozen_tools_sdk).
    cases: list[tuple[str, list[Any], bool]] = [("plain dict", plain, False), ("frozen", frozen, True)]
    for label, tools, frozen_input in cases:
        render = render_frozen_tools_sdk if frozen_input else render_tools_sdk
        expected = render_tools_sdk(tools)
        cold = _sample(lambda: render(tools), COLD_ROUNDS, cold=True)
        warm = _sample(lambda: render(tools), WARM_ROUNDS, cold=False)
        if render(tools) != expected:
            raise RuntimeError("cold and warm renders differ")
        medians[f"{label} cold"] = statistics.median(cold)
        medians[f"{label} warm"] = statistics.median(warm)
    return medians


def run() -> list[Row]:
    """Rows of (figure, value, target text, whether the target holds)."""
    rows: list[Row] = []
    medians = measure()
    for case, median in medians.items():
        target = COLD_TARGET_MS if case.endswith("cold") else WARM_TARGET_MS
        figure = f"codegen render_tools_sdk, {TOOL_COUNT} tools, {case}: median ms"
        rows.append((figure, median, f"<= {target:g} ms", median <= target))
    rows.append(("codegen renderer compiled with mypyc (1 yes, 0 its Python sources)",
                 float(IMPLEMENTATION == "compiled"), "informational", True))
    ratio = medians["frozen cold"] / medians["plain dict cold"]
    rows.append(("codegen cold render, frozen / plain dict schemas: ratio", ratio, "informational", True))
    ts_ms, py_ms = python_against_typescript()
    rows.append((f"codegen render_tools_sdk_python, {TOOL_COUNT} tools, plain dict cold: median ms", py_ms,
                 f"<= TS {ts_ms:.1f}", py_ms <= ts_ms))
    return rows


def python_against_typescript() -> tuple[float, float]:
    """Median cold ms of the TypeScript and the Python renderer, rounds interleaved (issue 26).

    The Python renderer keeps no memo, so each of its renders is cold; the
    TypeScript one's memos are emptied before each of its rounds.
    """
    tools = realistic_tools()
    ts = _sample(lambda: render_tools_sdk(tools), 1, cold=True)
    py = _sample(lambda: render_tools_sdk_python(tools), 1, cold=True)
    for _ in range(COLD_ROUNDS - 1):
        ts += _sample(lambda: render_tools_sdk(tools), 1, cold=True)
        py += _sample(lambda: render_tools_sdk_python(tools), 1, cold=True)
    return statistics.median(ts), statistics.median(py)


if __name__ == "__main__":
    for figure, value, target_text, holds in run():
        print(f"{figure:<84} {value:8.3f}  {target_text:<13} {'ok' if holds else 'MISSED'}")
