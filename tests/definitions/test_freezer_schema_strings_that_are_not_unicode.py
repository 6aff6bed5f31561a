"""A freezer never vouches for a lone surrogate, even one its schema spells out.

``compile_value_freezer`` promises to return only what ``freeze_json`` would
build: a string holding a lone surrogate is not JSON. String *values* are
checked, but a string matched against an enum member, and an object key
matched against a property name, were taken because they equal the schema's
own text: a schema holding a lone surrogate there made the freezer hand back
a "frozen JSON" value that no encoder accepts. (The registry refuses such an
output schema as not JSON, so this guards the function's own contract.)
"""

from __future__ import annotations

from typing import Any

import pytest
from returns.result import Failure

from dsh_tools.definitions.output_schema import compile_value_freezer
from dsh_tools.definitions.shape_code import UNSURE
from dsh_tools.json_values import freeze_json

CASES: list[tuple[dict[str, Any], object]] = [
    ({"type": "string", "enum": ["\ud800", "ok"]}, "\ud800"),
    ({"enum": ["\udfff", None]}, "\udfff"),
    ({"type": "string", "const": "a\ud800"}, "a\ud800"),
    ({"type": "object", "properties": {"k": {"enum": ["a\udfff"]}}}, {"k": "a\udfff"}),
    ({"type": "object", "properties": {"\udfff": {"type": "integer"}}, "required": ["\udfff"]}, {"\udfff": 1}),
    ({"type": "object", "properties": {"\ud800": {"type": "integer"}}}, {"\ud800": 1}),
]


@pytest.mark.parametrize(("schema", "value"), CASES)
def test_a_lone_surrogate_the_schema_names_is_a_doubt(schema: dict[str, Any], value: object) -> None:
    assert type(freeze_json(value)) is Failure
    freeze = compile_value_freezer(schema)
    assert freeze is None or freeze(value) is UNSURE


def test_the_unicode_members_of_such_a_schema_are_still_vouched_for() -> None:
    freeze = compile_value_freezer({"type": "string", "enum": ["\ud800", "ok"]})
    assert freeze is not None and freeze("ok") == "ok"
