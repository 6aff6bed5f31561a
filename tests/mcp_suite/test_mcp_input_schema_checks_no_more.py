"""An MCP tool's lowered ``inputSchema`` never refuses arguments the schema itself accepts.

:mod:`dsh_tools.mcp.input_schema` keeps the keywords our subset enforces and
leaves the rest to the server: checking less than the schema is safe (the
server still refuses), checking more refuses a valid call before the server
sees it. A keyword outside the subset that changes what a kept keyword means
(``patternProperties`` exempts keys from ``additionalProperties``,
``prefixItems`` exempts leading members from ``items``) must therefore relax
the kept one. Every value here is valid under JSON Schema 2020-12 (the MCP
default dialect; each was checked with ``jsonschema`` when it was written).
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools.mcp.input_schema import input_validator

ACCEPTED_BY_THE_SCHEMA: list[tuple[dict[str, Any], object]] = [
    ({"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": False}, {"x1": 1}),
    (
        {"type": "object", "patternProperties": {"^x": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
        {"x1": 1, "other": "s"},
    ),
    (
        {"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"^x-": {}}, "additionalProperties": False},
        {"a": "s", "x-trace": [1]},
    ),
    ({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}, ["a", 1, 2]),
    (
        {"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}}},
        {"pair": ["a", 3]},
    ),
]


@pytest.mark.parametrize(("schema", "value"), ACCEPTED_BY_THE_SCHEMA)
def test_a_value_the_schema_accepts_is_never_refused(schema: dict[str, Any], value: object) -> None:
    assert input_validator(schema)(value) == []


def test_what_the_kept_keywords_say_alone_is_still_enforced() -> None:
    closed = input_validator({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False})
    assert closed({"a": "s", "x1": 1}) == ["x1: unexpected property"]
    typed = input_validator({"type": "object", "additionalProperties": {"type": "string"}})
    assert typed({"x1": 1}) == ["x1: expected string, got integer"]
    items = input_validator({"type": "array", "items": {"type": "integer"}})
    assert items(["a", 1]) == ["[0]: expected integer, got string"]
    prefixed = input_validator({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}})
    assert prefixed({"not": "an array"}) == ["(root): expected array, got object"]


@pytest.mark.xfail(
    strict=True,
    reason="found in review, not fixed: the shared checker's integer is an exact int (documented for our own tools), "
    "so an MCP call with 2.0 for an integer parameter, which JSON Schema and the server accept, is refused",
)
def test_an_integral_float_for_an_integer_parameter_reaches_the_server() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert input_validator(schema)({"n": 2.0}) == []
