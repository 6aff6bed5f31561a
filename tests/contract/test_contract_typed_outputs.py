"""API.md, Fourth round, "Typed outputs people reach for", as user code under ``mypy --strict``.

A tool returning ``str | int``, ``A | B`` of TypedDicts or ``dict[str, int]``
(through ``@tool`` and ``define_tool(output=...)``), and
``result.meta_get("approvalId")`` read into ``JsonValue | None``, all
type-check without a cast or an ignore; the mistakes next to them do not.
"""

from __future__ import annotations

from pathlib import Path

from mypy_snippets import check_snippet, mypy_cache  # noqa: F401 - mypy_cache is a fixture

PRELUDE = """
from typing import Literal, TypedDict

from dsh_tools import ContentBlock, JsonValue, ToolExecution, ToolExecutionInput, boot, define_tool, text_block, tool
from dsh_tools.store.records import CallRecord


class Hit(TypedDict):
    kind: Literal["hit"]
    path: str


class Miss(TypedDict):
    kind: Literal["miss"]
    reason: str


class Query(TypedDict):
    query: str


@tool
async def either(query: str) -> str | int:
    'A length, or a word.'
    return len(query) if query else "empty"


@tool
async def find(query: str) -> Hit | Miss:
    'Find a symbol.'
    return {"kind": "hit", "path": query} if query else {"kind": "miss", "reason": "empty query"}


@tool
def counts(text: str) -> dict[str, int]:
    'Count the words.'
    return {word: text.count(word) for word in text.split()}


async def find_body(args: Query, exec: ToolExecution) -> Hit | Miss:
    return {"kind": "miss", "reason": args["query"]}


async def count_body(args: Query, exec: ToolExecution) -> dict[str, int]:
    return {args["query"]: 1}


def render_found(args: Query, value: Hit | Miss) -> list[ContentBlock]:
    return [text_block(value["path"] if value["kind"] == "hit" else value["reason"])]
"""

GOOD = PRELUDE + """
found = define_tool(name="found", description="Find.", args=Query, output=Hit | Miss, execute=find_body, render=render_found)
counted = define_tool(name="counted", description="Count.", args=Query, output=dict[str, int], execute=count_body)
maybe = define_tool(name="maybe", description="Count.", args=Query, output=dict[str, int] | None, execute=count_body)


async def use(record: CallRecord) -> None:
    ctx = boot()
    for definition in (either, find, counts, found, counted, maybe):
        ctx.tools.register(definition)
    value: str | int = await either.fn("x")
    result_of_find: Hit | Miss = await find.fn("x")
    if result_of_find["kind"] == "hit":
        path: str = result_of_find["path"]
    words: dict[str, int] = counts.fn("a b a")
    result = await ctx.tools.execute(ToolExecutionInput("c1", "find", {"query": "x"}))
    approval_id: JsonValue | None = result.meta_get("approvalId")
    journaled: JsonValue | None = record.meta_get("approvalId")
    if isinstance(approval_id, str):
        print(approval_id.upper(), journaled)
"""

BAD = PRELUDE + """
async def wrong_body(args: Query, exec: ToolExecution) -> int:
    return 1


def render_hit(args: Query, value: Hit) -> list[ContentBlock]:
    return []


async def use(record: CallRecord) -> None:
    define_tool(name="a", description="A.", args=Query, output=Hit | Miss, execute=wrong_body)
    define_tool(name="b", description="B.", args=Query, output=Hit | Miss, execute=find_body, render=render_hit)
    define_tool(name="c", description="C.", args=Query, output=dict[str, str], execute=count_body)
    number: int = await either.fn("x")
    words: dict[str, str] = counts.fn("a")
    result = await boot().tools.execute(ToolExecutionInput("c1", "find", {"query": "x"}))
    approval_id: str = result.meta_get("approvalId")
    journaled: str = record.meta_get("approvalId")
"""


def test_union_and_dict_outputs_and_meta_get_type_check_without_casts(tmp_path: Path, mypy_cache: Path) -> None:  # noqa: F811
    checked = check_snippet(tmp_path, mypy_cache, "typed_outputs_good.py", GOOD)
    assert checked.errors == [], checked.stdout
    assert "cast(" not in GOOD and "type: ignore" not in GOOD


def test_the_mistakes_beside_them_are_reported_one_per_line(tmp_path: Path, mypy_cache: Path) -> None:  # noqa: F811
    checked = check_snippet(tmp_path, mypy_cache, "typed_outputs_bad.py", BAD)
    assert checked.returncode != 0
    first = BAD[: BAD.index('    define_tool(name="a"')].count("\n") + 1
    lines = {int(line.split(":")[1]) for line in checked.errors if ": error:" in line}
    assert lines == set(range(first, first + 8)) - {first + 5}, checked.stdout  # first + 5 executes a call: fine
