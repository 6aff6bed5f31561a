"""The generated declarations are real TypeScript: ``deno check`` accepts a
program using them correctly and rejects one passing wrong arguments.

Uses the Deno binary from the ``deno`` PyPI package, an isolated DENO_DIR and
no network (the files have no imports).
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from codegen_catalog import CATALOG
from pyrsistent import freeze
from value_shapes import frozen

from dsh_tools_codegen import render_tools_sdk

GOLDEN = Path(__file__).parent / "golden"
Check = Callable[..., "subprocess.CompletedProcess[str]"]

GOOD_USAGE = """
async function main(): Promise<string> {
  const text: string = await tools.read_file({ path: "/x", offset: 1 });
  await tools.write_file({ path: "/x", content: "hi" });
  await tools.edit_file({ path: "/x", edits: [{ oldText: "a", newText: "b" }], dryRun: true });
  await tools.bash({ command: "ls", timeout: null, env: { HOME: "/root" } });
  await tools.grep({ pattern: "x", "-i": true, "-A": 2, context: null, globs: ["*.py", 1] });
  await tools["mcp.search"]({ query: "q", filter: { field: "f", value: 2 }, mode: "fuzzy" });
  await tools["mcp.search"]({ query: "q", filter: "plain" });
  await tools["my-tool"]({ version: 2, flag: true, nothing: null });
  await tools.set_level({ level: 2.5, scale: 100 });
  await tools.set_level({ level: null });
  await tools.tree({ root: { name: "r", children: [{ anything: 1 }] } });
  await tools.http_request({ url: "u", method: "GET", headers: { A: "b" }, body: { a: 1 } });
  await tools["new"]({ kind: "dir" });
  await tools.config_patch({ target: "t", dry: true });
  await tools.list_tools({});
  await tools["搜索"]({ 词: "x" });
  const all: string[] = await Promise.all([tools.list_tools({}), tools.bash({ command: "pwd" })]);
  try {
    await tools.bash({ command: "false" });
  } catch (error) {
    console.log(String(error), all.length);
  }
  return text;
}
"""

# One wrong call per line; every line must be reported.
BAD_USAGE = """
async function main(): Promise<void> {
  await tools.read_file({ path: 5 });
  await tools.read_file({});
  await tools.set_level({ level: 7 });
  await tools["my-tool"]({ version: 3 });
  await tools.grep({ pattern: "x", output_mode: "everything" });
  await tools.nope({});
  const n: number = await tools.list_tools({});
}
"""


def deno_bin() -> str:
    module = importlib.import_module("deno")
    return str(module.find_deno_bin())


@pytest.fixture(scope="module")
def deno_check(tmp_path_factory: pytest.TempPathFactory) -> Check:
    root = tmp_path_factory.mktemp("deno")
    env = {
        **os.environ,
        "DENO_NO_UPDATE_CHECK": "1",
        "DENO_DIR": str(root / "deno_dir"),
        "NO_COLOR": "1",
    }

    def run(*files: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [deno_bin(), "check", "--quiet", *map(str, files)],
            capture_output=True,
            text=True,
            env=env,
            cwd=root,
            timeout=120,
            check=False,
        )

    return run


def declarations(tools: list[Any]) -> str:
    text = render_tools_sdk(tools)
    return text.split("```ts\n", 1)[1].rsplit("```", 1)[0]


def test_declarations_and_goldens_type_check(deno_check: Check, tmp_path: Path) -> None:
    files: list[Path] = []
    for name, tools in (
        ("plain", list(CATALOG)),
        ("frozen", [frozen(t) for t in CATALOG]),
        ("pyrsistent", [freeze(t) for t in CATALOG]),
    ):
        path = tmp_path / f"sdk_{name}.ts"
        path.write_text(declarations(tools) + GOOD_USAGE, encoding="utf-8")
        files.append(path)
    for golden in sorted(GOLDEN.glob("*.ts")):
        files.append(golden)
    result = deno_check(*files)
    assert result.returncode == 0, result.stdout + result.stderr


def test_wrong_arguments_fail_the_check(deno_check: Check, tmp_path: Path) -> None:
    path = tmp_path / "bad.ts"
    block = declarations(list(CATALOG))
    path.write_text(block + BAD_USAGE, encoding="utf-8")
    result = deno_check(path)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    first_bad = block.count("\n") + 3  # BAD_USAGE starts with a newline, then the function line
    reported = {int(line) for line in re.findall(r"bad\.ts:(\d+):\d+", output)}
    expected = set(range(first_bad, first_bad + BAD_USAGE.strip().count("\n") - 1))
    assert expected <= reported, output
