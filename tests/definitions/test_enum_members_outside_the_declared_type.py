"""An enum member its node's ``type`` refuses never makes a value valid, on either validation path.

JSON Schema applies ``type`` and ``enum`` both: ``{"type": "integer", "enum":
["a", 1]}`` accepts only ``1``. Props and output schemas refuse such an enum
when they are defined, but an MCP server's ``inputSchema`` is lowered as it
comes, and :class:`Shape` is public. The checker's shortcut for a string
member and the generated fast path's shortcuts (string members, ``null``)
settled a value by membership alone, before its type: the checker accepted
``"a"`` above, and the fast path accepted ``None`` for ``{"type": "string",
"enum": ["a", null]}`` where the checker refused it.
"""

from __future__ import annotations

import pytest

from dsh_tools.definitions.validation import Shape, compile_shape, compile_validator, total_validator
from dsh_tools.mcp.input_schema import input_validator

CASES: list[tuple[Shape, object, str]] = [
    (Shape(("integer",), enum=("a", 1)), "a", "(root): expected integer, got string"),
    (Shape(("null",), enum=("b",), const=True), "b", "(root): expected null, got string"),
    (Shape(("string",), enum=("a", None)), None, "(root): expected string, got null"),
    (Shape(("number",), enum=(None, 1.5)), None, "(root): expected number, got null"),
    (
        Shape(("object",), properties=(("k", Shape(("boolean",), enum=(True, "yes", None))),)),
        {"k": "yes"},
        "k: expected boolean, got string",
    ),
]


@pytest.mark.parametrize(("shape", "value", "message"), CASES)
def test_the_checker_and_the_fast_path_both_refuse_the_type(shape: Shape, value: object, message: str) -> None:
    assert total_validator(compile_shape(shape))(value) == [message]
    assert compile_validator(shape)(value) == [message]


def test_members_the_type_admits_still_pass_both_ways() -> None:
    shape = Shape(("string", "null"), enum=("a", None, 3))
    for value in ("a", None):
        assert total_validator(compile_shape(shape))(value) == compile_validator(shape)(value) == []
    assert compile_validator(shape)(3) == ["(root): expected string or null, got integer"]
    untyped = Shape(None, enum=("a", None))
    assert compile_validator(untyped)("a") == compile_validator(untyped)(None) == []


def test_an_mcp_schema_whose_enum_contradicts_its_type_refuses_the_stray_member() -> None:
    validate = input_validator({"type": "object", "properties": {"n": {"type": "integer", "enum": ["a", 1]}}})
    assert validate({"n": 1}) == []
    assert validate({"n": "a"}) == ["n: expected integer, got string"]
