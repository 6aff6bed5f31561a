"""The search-mode SDK texts (``catalog="search"``): within the budget, a prefix in the given order,
members byte-identical to the full texts, valid TypeScript (``deno check``) and Python (``mypy --strict``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from codegen_catalog import CATALOG
from mypy import api as mypy_api
from test_codegen_deno import Check, deno_check  # noqa: F401 - the fixture
from test_codegen_hostile import HOSTILE_SETS
from test_codegen_python import HOSTILE_NAMES

from benchmarks.catalog_surfaces import large_catalog
from dsh_tools_codegen import (
    SEARCH_USAGE,
    SEARCH_USAGE_PYTHON,
    describe_tool_python,
    describe_tool_ts,
    render_search_sdk,
    render_search_sdk_python,
    render_tools_sdk,
    render_tools_sdk_python,
)

LARGE = large_catalog(10_000)


@pytest.mark.parametrize("count", [100, 1000, 10_000])
@pytest.mark.parametrize("budget", [2500, 6000, 8000])
def test_the_whole_text_stays_within_the_budget_and_declares_a_prefix(count: int, budget: int) -> None:
    tools = LARGE[:count]
    for render in (render_search_sdk, render_search_sdk_python):
        text, declared = render(tools, budget)
        assert len(text) <= budget
        assert list(declared) == [tool["name"] for tool in tools[: len(declared)]]
        assert f"{count - len(declared):,} more tools are not declared here" in text


def test_every_tool_fits_a_large_enough_budget_and_no_count_line_is_left() -> None:
    text, declared = render_search_sdk(CATALOG, 1_000_000)
    assert len(declared) == len({tool["name"] for tool in CATALOG if isinstance(tool.get("name"), str)})
    assert "more tool" not in text
    text, declared = render_search_sdk_python(CATALOG, 1_000_000)
    assert "more tool" not in text and declared


def test_a_budget_too_small_for_the_instructions_declares_nothing() -> None:
    for render, usage in ((render_search_sdk, SEARCH_USAGE), (render_search_sdk_python, SEARCH_USAGE_PYTHON)):
        text, declared = render(LARGE[:10], 10)
        assert declared == () and text.startswith(usage) and "10 more tools" in text


def test_declared_members_and_descriptions_are_the_full_texts_own() -> None:
    tools = LARGE[:1000]
    full = render_tools_sdk(tools)
    text, declared = render_search_sdk(tools, 8000)
    for tool in tools:
        described = describe_tool_ts(tool)
        assert described is not None and described in full
        if tool["name"] in declared:
            assert described in text
    frozen_text, _ = render_search_sdk(tools, 8000, True)
    assert frozen_text == text


def test_the_text_is_byte_stable_and_follows_the_given_order() -> None:
    tools = LARGE[:500]
    assert render_search_sdk(tools, 6000) == render_search_sdk([dict(tool) for tool in tools], 6000)
    assert render_search_sdk_python(tools, 6000) == render_search_sdk_python(tools, 6000)
    reordered = [tools[7], tools[3], *tools]
    _, declared = render_search_sdk(reordered, 6000)
    assert declared[:2] == (tools[7]["name"], tools[3]["name"])
    assert len(set(declared)) == len(declared)  # a name given twice is declared once


def test_python_names_the_builtins_take_are_reached_by_item() -> None:
    own = [
        {"name": "search_tools", "description": "a user tool", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
        {"name": "describe_tool", "description": "another", "parameters": {}},
        {"name": "read_file", "description": "plain", "parameters": {}},
    ]
    text, declared = render_search_sdk_python(own, 100_000)
    assert declared == ("search_tools", "describe_tool", "read_file")
    assert 'def __getitem__(self, name: Literal["search_tools"])' in text
    assert "async def search_tools(self, *, query: str, limit: int = ...) -> list[ToolSummary]:" in text
    assert "async def read_file(self)" in text
    described = describe_tool_python(own[0])
    assert described is not None and 'Literal["search_tools"]' in described and "@overload" not in described


def test_python_describe_gives_classes_and_the_method() -> None:
    tool = LARGE[5]
    described = describe_tool_python(tool)
    assert described is not None
    assert described.startswith("class ") and "\n\nclass Tools(Protocol):\n    async def " in described
    method = described.split("class Tools(Protocol):", 1)[1]
    assert method in render_tools_sdk_python([tool])


def test_describe_is_total() -> None:
    for tools in (*(tools for tools in HOSTILE_SETS if type(tools) is list), HOSTILE_NAMES):
        for tool in tools:
            for described in (describe_tool_ts(tool), describe_tool_python(tool)):
                assert described is None or isinstance(described, str)
    assert describe_tool_ts({"name": 3}) is None and describe_tool_python(object()) is None  # type: ignore[arg-type]


def _block(text: str, fence: str) -> str:
    return text.split(f"```{fence}\n", 1)[1].rsplit("```", 1)[0]


def _python_texts() -> dict[str, str]:
    texts = {
        "catalog": render_search_sdk_python(CATALOG, 100_000)[0],
        "large": render_search_sdk_python(LARGE[:100], 8000)[0],
        "hostile": render_search_sdk_python(HOSTILE_NAMES, 100_000)[0],
        "one_overload": render_search_sdk_python([{"name": "my-tool", "description": "x", "parameters": {}}], 100_000)[0],
        "none": render_search_sdk_python([], 100_000)[0],
    }
    for index, tools in enumerate(HOSTILE_SETS):
        texts[f"hostile_set_{index}"] = render_search_sdk_python(tools, 100_000)[0]
    for index, tool in enumerate(LARGE[:20]):
        described = describe_tool_python(tool)
        assert described is not None
        texts[f"described_{index}"] = "from typing import Any, Awaitable, Callable, Literal, NotRequired, Protocol, TypedDict, overload\n\n\n" + described
    return texts


def test_python_texts_pass_mypy_strict(tmp_path: Path) -> None:
    paths = []
    for name, text in _python_texts().items():
        path = tmp_path / f"search_{name}.py"
        path.write_text(text if name.startswith("described") else _block(text, "python"), encoding="utf-8")
        paths.append(str(path))
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", "--cache-dir", os.devnull, *paths])
    assert status == 0, stdout + stderr


UNLISTED_USAGE = """
async function main(): Promise<string> {
  const hits: { name: string; description: string }[] = await tools.$search({ query: "archive", limit: 3 });
  const declaration: string | null = await tools.$describe({ name: hits[0].name });
  const value = await tools.fs_extract_archive_not_declared({ archive: "a.tgz" });
  const other = await tools["eu_git_cherry_pick"]({ commits: ["abc"] });
  const count: number = (await tools.any_typed_tool({})).count;
  return `${declaration} ${value} ${other} ${count}`;
}
"""

BAD_BUILTIN_USAGE = """
async function main(): Promise<void> {
  await tools.$search({ limit: 3 });
  await tools.$describe({ name: 5 });
}
"""


def test_deno_checks_a_program_that_calls_unlisted_tools_through_the_index_signature(
    deno_check: Check, tmp_path: Path  # noqa: F811 - the fixture
) -> None:
    for index, tools in enumerate((LARGE[:1000], CATALOG)):
        path = tmp_path / f"search_{index}.ts"
        path.write_text(_block(render_search_sdk(tools, 8000)[0], "ts") + UNLISTED_USAGE, encoding="utf-8")
        result = deno_check(path)
        assert result.returncode == 0, result.stdout + result.stderr
    bad = tmp_path / "bad_builtins.ts"
    bad.write_text(_block(render_search_sdk(LARGE[:100], 8000)[0], "ts") + BAD_BUILTIN_USAGE, encoding="utf-8")
    result = deno_check(bad)
    assert result.returncode != 0 and result.stdout.count("TS2") + result.stderr.count("TS2") >= 2


def test_hostile_catalogs_render_within_budget() -> None:
    for tools in (*HOSTILE_SETS, HOSTILE_NAMES):
        for render in (render_search_sdk, render_search_sdk_python):
            text, declared = render(tools, 4000)
            assert len(text) <= 4000 and isinstance(declared, tuple)
            text.encode("utf-8")

    def broken() -> Any:
        yield LARGE[0]
        raise RuntimeError("an iterable that fails midway")

    assert render_search_sdk(broken(), 6000)[1] == (LARGE[0]["name"],)
    assert render_search_sdk_python(broken(), 6000)[1] == (LARGE[0]["name"],)
