"""mypy --strict accepts a matching ``execute`` and rejects one whose args type differs."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PRELUDE = """
from collections.abc import Mapping
from typing import NotRequired, TypedDict
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.definitions import DefinedTool, Prop, define_tool
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import JsonValue
from dsh_tools.presentation import GenericCallView, ToolResult, TerminalResultView

class ReadArgs(TypedDict):
    path: str
    offset: NotRequired[int]

class OtherArgs(TypedDict):
    count: int
"""

GOOD = PRELUDE + """
async def read(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(args["path"])]

async def read_any(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    return []

def present(args: ReadArgs) -> GenericCallView:
    return GenericCallView(args["path"], kind="read")

def present_result(args: ReadArgs, result: ToolResult) -> TerminalResultView | None:
    return None

typed: DefinedTool[ReadArgs] = define_tool(
    name="read_file", description="Read.", args=ReadArgs, execute=read,
    timeout_ms=5_000, present_call=present, present_result=present_result,
)
spec: DefinedTool[Mapping[str, JsonValue]] = define_tool(
    name="read_file", description="Read.",
    parameters={"path": Prop("string", required=True)}, execute=read_any,
)
"""

BAD = PRELUDE + """
async def count(args: OtherArgs, exec: ToolExecution) -> list[ContentBlock]:
    return []

tool = define_tool(name="count", description="Count.", args=ReadArgs, execute=count)
"""


def _mypy(tmp_path: Path, cache: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    snippet = tmp_path / name
    snippet.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), "--no-error-summary", str(snippet)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")


def _own_lines(output: str, name: str) -> list[str]:
    """Only the snippet's diagnostics (the package is checked by its own job)."""
    return [line for line in output.splitlines() if line.startswith(name) or f"/{name}:" in line]


def test_mypy_accepts_a_matching_execute(tmp_path: Path, mypy_cache: Path) -> None:
    result = _mypy(tmp_path, mypy_cache, "good_tool.py", GOOD)
    assert _own_lines(result.stdout, "good_tool.py") == [], result.stdout


def test_mypy_rejects_an_execute_whose_args_do_not_match(tmp_path: Path, mypy_cache: Path) -> None:
    result = _mypy(tmp_path, mypy_cache, "bad_tool.py", BAD)
    errors = _own_lines(result.stdout, "bad_tool.py")
    assert result.returncode != 0
    assert any('Argument "execute" to "define_tool" has incompatible type' in line for line in errors), result.stdout
    assert any("OtherArgs" in line and "ReadArgs" in line for line in errors), result.stdout
