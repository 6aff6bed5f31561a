"""mypy --strict accepts a matching ``execute`` and rejects one whose args type differs,
or (a typed tool) whose return type does not match ``output=``."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mypy_snippets import check_snippet, mypy_cache  # noqa: F401 - mypy_cache is a fixture

PRELUDE = """
from collections.abc import Mapping
from typing import NotRequired, TypedDict
from dsh_tools.content import ContentBlock, ToolOutput, text_block
from dsh_tools.definitions import DefinedTool, Prop, define_tool
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import JsonValue
from dsh_tools.presentation import GenericCallView, ToolResult, TerminalResultView

class ReadArgs(TypedDict):
    path: str
    offset: NotRequired[int]

class OtherArgs(TypedDict):
    count: int

class FileStat(TypedDict):
    path: str
    lines: int
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

async def stat(args: ReadArgs, exec: ToolExecution) -> FileStat:
    return {"path": args["path"], "lines": 1}

async def stat_or_content(args: ReadArgs, exec: ToolExecution) -> FileStat | ToolOutput:
    return ToolOutput([text_block("1 line")], value={"path": args["path"], "lines": 1})

async def names(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[str]:
    return ["a"]

async def anything(args: ReadArgs, exec: ToolExecution) -> JsonValue:
    return {"ok": True}

def render_stat(args: ReadArgs, value: FileStat) -> list[ContentBlock]:
    return [text_block(f"{args['path']}: {value['lines']}")]

typed_out: DefinedTool[ReadArgs] = define_tool(
    name="stat", description="Stat.", args=ReadArgs, output=FileStat, execute=stat, render=render_stat,
)
own_content = define_tool(name="stat2", description="Stat.", args=ReadArgs, output=FileStat, execute=stat_or_content)
listed = define_tool(
    name="names", description="Names.", parameters={}, output=list[str], execute=names,
    render=lambda args, value: [text_block(", ".join(value))],
)
schema_out = define_tool(
    name="any", description="Any.", args=ReadArgs, output={"type": "object"}, execute=anything,
)
"""

BAD_OUTPUT = PRELUDE + """
async def stat(args: ReadArgs, exec: ToolExecution) -> FileStat:
    return {"path": args["path"], "lines": 1}

async def content(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
    return []

async def text(args: ReadArgs, exec: ToolExecution) -> str:
    return ""

def render_text(args: ReadArgs, value: str) -> list[ContentBlock]:
    return []

wrong_type = define_tool(name="a", description="A.", args=ReadArgs, output=str, execute=stat)
content_body = define_tool(name="b", description="B.", args=ReadArgs, output=FileStat, execute=content)
wrong_list = define_tool(name="c", description="C.", args=ReadArgs, output=list[FileStat], execute=stat)
wrong_render = define_tool(name="d", description="D.", args=ReadArgs, output=FileStat, execute=stat, render=render_text)
value_as_content = define_tool(name="e", description="E.", args=ReadArgs, execute=text)
"""

BAD = PRELUDE + """
async def count(args: OtherArgs, exec: ToolExecution) -> list[ContentBlock]:
    return []

tool = define_tool(name="count", description="Count.", args=ReadArgs, execute=count)
"""


def test_mypy_accepts_a_matching_execute(tmp_path: Path, mypy_cache: Path) -> None:
    result = check_snippet(tmp_path, mypy_cache, "good_tool.py", GOOD)
    assert result.errors == [], result.stdout


def test_mypy_rejects_an_execute_whose_args_do_not_match(tmp_path: Path, mypy_cache: Path) -> None:
    result = check_snippet(tmp_path, mypy_cache, "bad_tool.py", BAD)
    errors = result.errors
    assert result.returncode != 0
    assert any('Argument "execute" to "define_tool" has incompatible type' in line for line in errors), result.stdout
    assert any("OtherArgs" in line and "ReadArgs" in line for line in errors), result.stdout


def test_mypy_rejects_a_typed_body_whose_return_does_not_match_output(tmp_path: Path, mypy_cache: Path) -> None:
    result = check_snippet(tmp_path, mypy_cache, "bad_output.py", BAD_OUTPUT)
    errors = result.errors
    assert result.returncode != 0
    flagged = {int(line.split(":")[1]) for line in errors if ": error:" in line}
    source = textwrap.dedent(BAD_OUTPUT).splitlines()
    for name in ("wrong_type", "content_body", "wrong_list", "wrong_render", "value_as_content"):
        line = next(number for number, text in enumerate(source, 1) if text.startswith(f"{name} = "))
        assert line in flagged, (name, result.stdout)
    assert any("Awaitable[str | ToolOutput]" in line for line in errors), result.stdout
