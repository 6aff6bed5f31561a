"""Union and ``dict[str, X]`` typed outputs, from annotation to SDK text in both languages.

The catalog's ``resolve_ref``, ``find_symbol``, ``word_counts`` and
``symbols_by_file`` entries (rendered in the goldens) are exactly what
``@tool`` makes of the functions below. Each SDK declares them as its
language spells a union and a string-keyed map (TypeScript ``A | B`` and
``Record<string, X>``, Python ``A | B`` and ``dict[str, X]``, one rule each,
as for parameters), and a program that narrows a value by its tag type-checks
in both, while one that forgets to is refused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import pytest
from codegen_catalog import CATALOG
from mypy import api as mypy_api
from test_codegen_deno import Check, declarations, deno_check  # noqa: F401 - deno_check is a fixture

from dsh_tools import FunctionTool, Prop, tool
from dsh_tools.json_values import thaw_json
from dsh_tools_codegen import SDK_USAGE_PYTHON, json_schema_to_ts, render_tools_sdk_python


class Hit(TypedDict):
    kind: Literal["hit"]
    path: Annotated[str, Prop(description="Relative to the workspace.")]
    line: int


class Miss(TypedDict):
    kind: Literal["miss"]
    reason: str


@tool
async def resolve_ref(ref: str) -> str | int:
    """A commit id, or a pull request number."""
    return ref


@tool
async def find_symbol(name: str) -> Hit | Miss:
    """Where a symbol is defined."""
    return {"kind": "miss", "reason": name}


@tool
async def word_counts(text: str) -> dict[str, int]:
    """How often each word occurs."""
    return {}


@tool
async def symbols_by_file(names: list[str]) -> dict[str, list[Hit | Miss]] | None:
    """Each file's findings; null when nothing was indexed."""
    return None


TOOLS: list[FunctionTool[Any]] = [resolve_ref, find_symbol, word_counts, symbols_by_file]
ENTRIES = [next(entry for entry in CATALOG if entry["name"] == defined.name) for defined in TOOLS]


@pytest.mark.parametrize("index", range(len(TOOLS)), ids=[defined.name for defined in TOOLS])
def test_tool_maps_union_and_dict_outputs_to_the_catalog_schemas(index: int) -> None:
    assert thaw_json(TOOLS[index].output_schema) == ENTRIES[index]["output_schema"]
    assert thaw_json(TOOLS[index].parameters) == ENTRIES[index]["parameters"]
    assert TOOLS[index].description == ENTRIES[index]["description"]


HIT_TS = '{\n  kind: "hit";\n  /** Relative to the workspace. */\n  path: string;\n  line: number;\n}'
MISS_TS = '{\n  kind: "miss";\n  reason: string;\n}'


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("resolve_ref", "string | number"),
        ("find_symbol", f"{HIT_TS} | {MISS_TS}"),
        ("word_counts", "Record<string, number>"),
        ("symbols_by_file", f"Record<string, ({HIT_TS} | {MISS_TS})[]> | null"),
    ],
)
def test_typescript_spells_a_union_with_a_bar_and_a_dict_as_a_record(name: str, text: str) -> None:
    entry = next(entry for entry in ENTRIES if entry["name"] == name)
    assert json_schema_to_ts(entry["output_schema"]) == text
    # parameters use the same rules: a dict argument is a Record, a union argument a bar
    assert json_schema_to_ts({"type": "object", "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}) == (
        "Record<string, string | number>"
    )


def test_typescript_declarations_resolve_to_the_unions() -> None:
    block = declarations(ENTRIES)
    assert "  resolve_ref(args: {\n    ref: string;\n  }): Promise<string | number>;" in block
    assert "  word_counts(args: {\n    text: string;\n  }): Promise<Record<string, number>>;" in block
    assert '  }): Promise<{\n    kind: "hit";\n' in block and '  } | {\n    kind: "miss";\n    reason: string;\n  }>;' in block


def test_python_spells_a_union_with_a_bar_and_a_dict_as_dict() -> None:
    text = render_tools_sdk_python(ENTRIES)
    assert "async def resolve_ref(self, *, ref: str) -> str | int:" in text
    assert "async def find_symbol(self, *, name: str) -> FindSymbol_Result | FindSymbol_Result2:" in text
    assert 'class FindSymbol_Result(TypedDict):\n    kind: Literal["hit"]\n    path: str  # Relative to the workspace.\n' in text
    assert 'class FindSymbol_Result2(TypedDict):\n    kind: Literal["miss"]\n    reason: str\n' in text
    assert "async def word_counts(self, *, text: str) -> dict[str, int]:" in text
    assert (
        "async def symbols_by_file(self, *, names: list[str]) -> "
        "dict[str, list[SymbolsByFile_Result_Value_Item | SymbolsByFile_Result_Value_Item2]] | None:"
    ) in text


TS_GOOD = """
async function main(): Promise<number> {
  const ref: string | number = await tools.resolve_ref({ ref: "main" });
  const found = await tools.find_symbol({ name: "main" });
  const where: string = found.kind === "hit" ? `${found.path}:${found.line}` : found.reason;
  const counts: Record<string, number> = await tools.word_counts({ text: "a a b" });
  const index = await tools.symbols_by_file({ names: ["main"] });
  let hits = 0;
  for (const findings of Object.values(index ?? {})) {
    for (const finding of findings) hits += "path" in finding ? 1 : 0;
  }
  console.log(ref, where);
  return (counts["a"] ?? 0) + hits;
}
"""

# One mistake per line; every line must be reported.
TS_BAD = """
async function main(): Promise<void> {
  const n: number = await tools.resolve_ref({ ref: "main" });
  const p: string = (await tools.find_symbol({ name: "main" })).path;
  const c: Record<string, string> = await tools.word_counts({ text: "" });
  const i: Record<string, unknown[]> = await tools.symbols_by_file({ names: [] });
}
"""


def test_a_typescript_program_narrows_the_values_and_deno_checks_it(deno_check: Check, tmp_path: Path) -> None:  # noqa: F811
    good, bad = tmp_path / "good.ts", tmp_path / "bad.ts"
    block = declarations(ENTRIES)
    good.write_text(block + TS_GOOD, encoding="utf-8")
    bad.write_text(block + TS_BAD, encoding="utf-8")
    checked = deno_check(good)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = deno_check(bad)
    output = refused.stdout + refused.stderr
    first = (block + TS_BAD[: TS_BAD.index("  const n")]).count("\n") + 1
    for line in range(first, first + 4):
        assert f"bad.ts:{line}:" in output, output


PY_GOOD = """

async def main() -> int:
    ref: str | int = await tools.resolve_ref(ref="main")
    found = await tools.find_symbol(name="main")
    where: str = f"{found['path']}:{found['line']}" if found["kind"] == "hit" else found["reason"]
    counts: dict[str, int] = await tools.word_counts(text="a a b")
    index = await tools.symbols_by_file(names=["main"])
    hits = 0
    for findings in (index or {}).values():
        hits += sum(1 for finding in findings if finding["kind"] == "hit")
    print(ref, where)
    return counts.get("a", 0) + hits
"""

PY_BAD = """

async def main() -> None:
    n: int = await tools.resolve_ref(ref="main")
    p: str = (await tools.find_symbol(name="main"))["path"]
    c: dict[str, str] = await tools.word_counts(text="")
    i: dict[str, list[int]] = await tools.symbols_by_file(names=[])
"""


def test_a_python_program_narrows_the_values_and_mypy_checks_it(tmp_path: Path) -> None:
    text = render_tools_sdk_python(ENTRIES)
    block = text.removeprefix(SDK_USAGE_PYTHON + "\n\n```python\n").removesuffix("```")
    good, bad = tmp_path / "good_sdk.py", tmp_path / "bad_sdk.py"
    good.write_text(block + PY_GOOD, encoding="utf-8")
    bad.write_text(block + PY_BAD, encoding="utf-8")
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", "--cache-dir", os.devnull, str(good)])
    assert status == 0, stdout + stderr
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", "--cache-dir", os.devnull, str(bad)])
    first = (block + PY_BAD[: PY_BAD.index("    n:")]).count("\n") + 1
    assert status != 0
    for line in range(first, first + 4):
        assert f"bad_sdk.py:{line}:" in stdout, stdout
