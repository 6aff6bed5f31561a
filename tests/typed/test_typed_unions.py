"""Unions and ``dict[str, X]`` as typed outputs: the schema each becomes, and the unions refused.

A union's members must be told apart by their JSON shape (the rule is in
``dsh_tools/definitions/output_unions.py``); one that cannot be is a
definition error naming the tool, for ``@tool`` and ``define_tool`` alike.
"""

from __future__ import annotations

from pathlib import Path
from types import GenericAlias
from typing import Any, Literal, NotRequired, Optional, TypedDict, Union

import pytest

from dsh_tools import OutputSchemaError, ToolExecution, ToolOutput, tool
from dsh_tools.definitions import define_tool
from dsh_tools.json_values import thaw_json


class QueryArgs(TypedDict):
    query: str


class Hit(TypedDict):
    kind: Literal["hit"]
    path: str


class Miss(TypedDict):
    kind: Literal["miss"]
    reason: str


class Found(TypedDict):
    path: str
    line: int


class Failed(TypedDict):
    error: str


class Renamed(TypedDict):  # Found's keys and types under another name
    path: str
    line: int


class FoundMore(TypedDict):  # Found plus a key of its own
    path: str
    line: int
    column: int


class Loose(TypedDict):  # only optional keys
    path: NotRequired[str]


class Sparse(TypedDict):  # only optional keys too: {} fits both
    line: NotRequired[int]


class Number(TypedDict):
    value: int


class Text(TypedDict):
    value: str


class Scored(TypedDict):
    score: int | float  # a field of an output record is judged the same way


async def body(args: Any, exec: ToolExecution) -> Any:
    return None


def defined(output: Any) -> Any:
    return define_tool(name="t", description="d", args=QueryArgs, output=output, execute=body)


def decorated(annotation: object) -> Any:
    async def probe(query: str) -> None:
        """Probe."""

    probe.__annotations__ = {"query": str, "return": annotation}
    return tool(probe)


HIT = {"type": "object", "properties": {"kind": {"type": "string", "enum": ["hit"]}, "path": {"type": "string"}}, "required": ["kind", "path"]}
MISS = {"type": "object", "properties": {"kind": {"type": "string", "enum": ["miss"]}, "reason": {"type": "string"}}, "required": ["kind", "reason"]}


@pytest.mark.parametrize(
    ("output", "schema"),
    [
        (str | int, {"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        (Union[str, int], {"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        (int | None, {"type": ["integer", "null"]}),
        (Optional[Hit], {**HIT, "type": ["object", "null"]}),
        (str | int | None, {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}),
        (bool | int, {"anyOf": [{"type": "boolean"}, {"type": "integer"}]}),
        (Hit | Miss, {"anyOf": [HIT, MISS]}),
        (Hit | Miss | None, {"anyOf": [HIT, MISS, {"type": "null"}]}),
        (Hit | list[Hit], {"anyOf": [HIT, {"type": "array", "items": HIT}]}),
        (list[str | int], {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Literal["a"] | Literal["b"], {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["b"]}]}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (dict[str, Hit], {"type": "object", "additionalProperties": HIT}),
        (dict[str, list[str]], {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}),
        (dict[str, int] | None, {"type": ["object", "null"], "additionalProperties": {"type": "integer"}}),
        (dict[str, str | int], {"type": "object", "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}),
        (dict[str, int] | list[int], {"anyOf": [{"type": "object", "additionalProperties": {"type": "integer"}}, {"type": "array", "items": {"type": "integer"}}]}),
    ],
)
def test_a_union_or_dict_output_becomes_its_schema_for_both_spellings(output: object, schema: dict[str, Any]) -> None:
    assert thaw_json(defined(output).output_schema) == schema
    assert thaw_json(decorated(output).output_schema) == schema


@pytest.mark.parametrize(
    "output",
    [
        Found | Failed,  # each requires a key the other does not declare
        Found | FoundMore,  # "column" says which (the key TypeScript's `in` narrows by)
        Number | Text,  # a common required key whose JSON types differ
        Loose | str,  # different JSON types
        Loose | Found,  # a Loose never holds "line", which a Found requires
        Hit | Miss | str | list[int] | None,
    ],
)
def test_members_told_apart_by_key_tag_or_type_are_accepted(output: object) -> None:
    assert defined(output).output_schema is not None
    assert decorated(output).output_schema is not None


AMBIGUOUS = [
    (int | float, "(integer) and 1 (number) cannot be told apart by their JSON shape: every integer is also a JSON number"),
    (Found | Renamed, 'both are objects, and neither requires a key the other cannot hold'),
    (Loose | Sparse, "members 0 (object with no required key) and 1 (object with no required key)"),
    (dict[str, int] | Found, "members 0 (object of any keys)"),
    (list[int] | list[str], "both admit arrays (an empty array fits both)"),
    (Literal["a"] | str, "members 0 (string enum) and 1 (string)"),
    (Literal[1] | int, "both admit the same integers (only Literal members with none in common are apart)"),
    (Optional[Union[str, Literal["a"]]], "both admit the same strings"),
]


@pytest.mark.parametrize(("output", "why"), AMBIGUOUS)
def test_members_that_json_cannot_tell_apart_are_an_output_schema_error_naming_the_tool(output: object, why: str) -> None:
    with pytest.raises(OutputSchemaError) as caught:
        defined(output)
    assert caught.value.tool == "t"
    assert str(caught.value).startswith('tool "t": unsupported output schema: (root): anyOf members 0 (')
    assert why in str(caught.value)


@pytest.mark.parametrize(("output", "why"), AMBIGUOUS)
def test_tool_refuses_the_same_return_annotations_as_a_type_error(output: object, why: str) -> None:
    with pytest.raises(TypeError) as caught:
        decorated(output)
    assert str(caught.value).startswith('@tool probe: unsupported return annotation: tool "probe": unsupported output schema: ')
    assert why in str(caught.value)


def test_a_union_inside_a_record_is_judged_where_it_is() -> None:
    with pytest.raises(OutputSchemaError) as caught:
        defined(list[Scored])
    assert caught.value.violations == (
        "items.properties.score: anyOf members 0 (integer) and 1 (number) cannot be told apart by their JSON shape: "
        "every integer is also a JSON number; declare the number alone",
    )


def test_a_shared_tag_whose_values_overlap_tells_nothing() -> None:
    class Either(TypedDict):
        kind: Literal["hit", "miss"]
        path: str

    with pytest.raises(OutputSchemaError, match="nor do both require a key whose values differ"):
        defined(Hit | Either)


def test_every_ambiguous_pair_is_listed() -> None:
    with pytest.raises(OutputSchemaError) as caught:
        defined(int | float | Found | Renamed)
    assert [line.split(" cannot")[0] for line in caught.value.violations] == [
        "(root): anyOf members 0 (integer) and 1 (number)",
        '(root): anyOf members 2 (object with required "path", "line") and 3 (object with required "path", "line")',
    ]


def test_other_unsupported_annotations_are_still_type_errors_naming_the_field() -> None:
    class Bad(TypedDict):
        when: bytes

    with pytest.raises(TypeError, match=r'tool "t": output field "\(root\)": unsupported type'):
        defined(str | bytes)
    with pytest.raises(TypeError, match=r'tool "t": output field "\(root\)": mapping keys must be str'):
        defined(dict[int, str])
    with pytest.raises(TypeError, match=r'tool "t": output field "\(root\)\[\*\]\.when": unsupported type'):
        defined(dict[str, Bad])


def test_the_refusal_quoted_in_the_docs_is_the_one_raised() -> None:
    """docs/typed-outputs.md quotes the whole message (too long for a ``#>`` line); it stays true."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "typed-outputs.md").read_text(encoding="utf-8")
    quoted = page.split('```text\ntool "locate"', 1)[1].split("\n```", 1)[0]

    class Query(TypedDict):
        name: str

    with pytest.raises(OutputSchemaError) as caught:
        define_tool(name="locate", description="Locate.", args=Query, output=Found | Renamed, execute=body)
    assert str(caught.value) == 'tool "locate"' + quoted


def test_a_union_beside_tool_output_is_the_value_type() -> None:
    """``-> Hit | Miss | ToolOutput``: the body may also make its own content; the value is still the union."""
    assert thaw_json(decorated(Hit | Miss | ToolOutput).output_schema) == {"anyOf": [HIT, MISS]}
    assert thaw_json(decorated(str | int | ToolOutput).output_schema) == {"anyOf": [{"type": "string"}, {"type": "integer"}]}


class Recursive(TypedDict):
    child: Recursive | int


def dict_of(hint: Any) -> Any:
    return GenericAlias(dict, (str, hint))


def list_of(hint: Any) -> Any:
    return GenericAlias(list, (hint,))


def list_or_str(hint: Any) -> Any:
    return GenericAlias(list, (hint,)) | str


def nested(make: Any, depth: int) -> Any:
    hint: Any = int
    for _ in range(depth):
        hint = make(hint)
    return hint


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        (nested(dict_of, 3_000), "the type nests deeper than 64 levels"),
        (nested(list_of, 70), "the type nests deeper than 64 levels"),
        (nested(list_or_str, 70), "the type nests deeper than 64 levels"),
        (Recursive | str, "recursive TypedDict Recursive is not supported"),
        (Any | str, "unsupported type typing.Any"),
        (dict[str, Any], "unsupported type typing.Any"),
    ],
)
def test_a_hostile_annotation_is_a_type_error_naming_the_tool_never_a_crash(output: object, problem: str) -> None:
    with pytest.raises(TypeError, match='^tool "t": output field "') as caught:
        defined(output)
    assert problem in str(caught.value)


def test_a_parameter_nested_too_deep_is_refused_by_the_same_reader() -> None:
    async def probe(data: str) -> str:
        """Probe."""
        return data

    probe.__annotations__ = {"data": nested(dict_of, 70), "return": str}
    with pytest.raises(TypeError, match='@tool probe: parameter "data.*the type nests deeper than 64 levels'):
        tool(probe)
