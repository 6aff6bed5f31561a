"""mypy --strict sees an ``@tool`` function as a ``ToolDefinition`` and still checks calls of ``.fn``."""

from __future__ import annotations

from pathlib import Path

from mypy_snippets import check_snippet, mypy_cache  # noqa: F401 - mypy_cache is a fixture

PRELUDE = """
from collections.abc import Awaitable, Callable
from typing import Literal
from dsh_tools import ContentBlock, FunctionTool, ToolExecution, boot, text_block, tool
from dsh_tools.tool_types import ToolDefinition

@tool
async def add(a: int, b: int | str = 1, *, exec: ToolExecution) -> str:
    'Add.'
    return f"{a}{b}"

@tool(name="shout", timeout_ms=100)
def shout(text: str, mode: Literal["loud", "quiet"] = "loud") -> list[ContentBlock]:
    'Shout.'
    return [text_block(text.upper())]
"""

GOOD = PRELUDE + """
async def use(execution: ToolExecution) -> None:
    definitions: list[ToolDefinition] = [add, shout]
    boot().tools.register(add)
    total: str = await add.fn(1, "x", exec=execution)
    loud: list[ContentBlock] = shout.fn("hi", "quiet")
    typed: FunctionTool[Callable[..., Awaitable[str]]] = add
    name: str = add.name
"""

BAD = PRELUDE + """
async def use(execution: ToolExecution) -> None:
    await add.fn("one", exec=execution)
    await add.fn(1)
    shout.fn("hi", "whisper")
    wrong: int = await add.fn(1, exec=execution)
"""


def test_mypy_accepts_function_tools_as_definitions_and_typed_direct_calls(tmp_path: Path, mypy_cache: Path) -> None:
    result = check_snippet(tmp_path, mypy_cache, "good_function_tool.py", GOOD)
    assert result.errors == [], result.stdout


def test_mypy_checks_direct_calls_of_fn(tmp_path: Path, mypy_cache: Path) -> None:
    result = check_snippet(tmp_path, mypy_cache, "bad_function_tool.py", BAD)
    errors = result.errors
    assert result.returncode != 0
    assert any('Argument 1 to "add" has incompatible type "str"; expected "int"' in line for line in errors), errors
    assert any('Missing named argument "exec" for "add"' in line for line in errors), errors
    assert any('Argument 2 to "shout" has incompatible type' in line for line in errors), errors
    assert any('Incompatible types in assignment (expression has type "str", variable has type "int")' in line for line in errors), errors
    assert len(errors) == 4, errors
