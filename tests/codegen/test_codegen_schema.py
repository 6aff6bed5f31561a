"""json_schema_to_ts: one test (or table row) per rendering rule."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyrsistent import freeze
from value_shapes import deep_frozen, frozen

from dsh_tools_codegen import json_schema_to_ts
from dsh_tools_codegen._text import literal_union as _literal_union
from dsh_tools_codegen._text import union as _union


def obj(props: dict[str, object], required: list[str] | None = None) -> dict[str, object]:
    schema: dict[str, object] = {"type": "object", "properties": props}
    if required is not None:
        schema["required"] = required
    return schema


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string"}, "string"),
        ({"type": "number"}, "number"),
        ({"type": "integer"}, "number"),
        ({"type": "boolean"}, "boolean"),
        ({"type": "null"}, "null"),
        ({"type": ["string", "null"]}, "string | null"),
        ({"type": ["integer", "number"]}, "number"),  # deduplicated
        ({"type": ["string", "bogus"]}, "unknown"),  # unknown absorbs a union
        ({"type": []}, "unknown"),
        ({"enum": ["a", "b"]}, '"a" | "b"'),
        ({"type": "string", "enum": ["x"]}, '"x"'),
        ({"enum": [1, 2.5, -3, None, True, False]}, "1 | 2.5 | -3 | null | true | false"),
        ({"enum": ["a", 1]}, '"a" | 1'),
        ({"enum": [{"a": 1}]}, "unknown"),
        ({"enum": [float("nan")]}, "null"),  # canonical JSON has no NaN
        ({"enum": []}, "unknown"),
        ({"const": "fixed"}, '"fixed"'),
        ({"const": 3}, "3"),
        ({"const": 1.0}, "1.0"),
        ({"const": None}, "null"),
        ({"const": False}, "false"),
        ({"const": ["a"]}, "unknown"),
        ({"const": 'q"uo\\te\n'}, '"q\\"uo\\\\te\\n"'),
        ({"type": "array", "items": {"type": "string"}}, "string[]"),
        ({"type": "array", "items": {"type": ["string", "number"]}}, "(string | number)[]"),
        ({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, "(string | null)[]"),
        ({"type": "array", "items": {"type": "array", "items": {"type": "boolean"}}}, "boolean[][]"),
        ({"type": "array"}, "unknown[]"),
        ({"type": "array", "items": [{"type": "string"}]}, "unknown[]"),  # tuple form
        ({"type": ["array", "null"], "items": {"type": "string"}}, "string[] | null"),
        ({"type": "object"}, "Record<string, unknown>"),
        ({"type": "object", "properties": {}}, "Record<string, unknown>"),
        ({"type": "object", "additionalProperties": {"type": "number"}}, "Record<string, number>"),
        ({"type": "object", "additionalProperties": True}, "Record<string, unknown>"),
        ({"type": "object", "additionalProperties": False}, "Record<string, unknown>"),
        ({"anyOf": [{"type": "string"}, {"type": "number"}]}, "string | number"),
        ({"oneOf": [{"const": "a"}, {"const": "b"}]}, '"a" | "b"'),
        ({"anyOf": [{"type": "string"}, {}]}, "unknown"),
        ({"anyOf": [], "type": "string"}, "string"),  # empty combinator is ignored
        ({"allOf": [{"type": "string"}]}, "string"),
        ({"allOf": [{}, {"type": "number"}]}, "number"),
        ({"allOf": [{"type": ["string", "null"]}, {"type": "string"}]}, "(string | null) & string"),
        ({}, "unknown"),
        ({"type": "bogus"}, "unknown"),
        ({"not": {"type": "string"}}, "unknown"),
        ({"description": "only words"}, "unknown"),
        (True, "unknown"),
        (None, "unknown"),
        ("string", "unknown"),
        (42, "unknown"),
        ([{"type": "string"}], "unknown"),
    ],
)
def test_rules(schema: object, expected: str) -> None:
    assert json_schema_to_ts(schema) == expected


def test_object_members_required_and_optional() -> None:
    schema = obj({"path": {"type": "string"}, "offset": {"type": "integer"}}, ["path"])
    assert json_schema_to_ts(schema) == "{\n  path: string;\n  offset?: number;\n}"


def test_indent_is_the_level_of_the_rendered_type() -> None:
    schema = obj({"a": obj({"b": {"type": "string"}}, ["b"])})
    assert json_schema_to_ts(schema, indent=2) == (
        "{\n      a?: {\n        b: string;\n      };\n    }"
    )


@pytest.mark.parametrize("indent", [-3, "x", None, 2.5])
def test_odd_indent_is_clamped_to_zero(indent: object) -> None:
    assert json_schema_to_ts(obj({"a": {}}), indent) == "{\n  a?: unknown;\n}"  # type: ignore[arg-type]


def test_exotic_property_names_are_quoted() -> None:
    schema = obj({"my-key": {}, "ok_$1": {}, "1st": {}, "": {}, "with space": {}, "é": {}, 'q"': {}})
    assert json_schema_to_ts(schema).splitlines()[1:-1] == [
        '  "my-key"?: unknown;',
        "  ok_$1?: unknown;",
        '  "1st"?: unknown;',
        '  ""?: unknown;',
        '  "with space"?: unknown;',
        '  "é"?: unknown;',
        '  "q\\""?: unknown;',
    ]


def test_reserved_words_are_fine_as_property_names() -> None:
    schema = obj({"new": {"type": "string"}, "default": {"type": "string"}}, ["new", "default"])
    assert json_schema_to_ts(schema) == "{\n  new: string;\n  default: string;\n}"


def test_property_descriptions_become_one_line_jsdoc() -> None:
    schema = obj({"p": {"type": "string", "description": "Ends */ here.\nSecond\r\n\tline  ."}})
    assert json_schema_to_ts(schema) == "{\n  /** Ends *\\/ here. Second line . */\n  p?: string;\n}"


@pytest.mark.parametrize("description", ["", "   \n ", None, 5, ["x"]])
def test_blank_or_non_string_descriptions_are_omitted(description: object) -> None:
    assert json_schema_to_ts(obj({"p": {"description": description}})) == "{\n  p?: unknown;\n}"


def test_description_control_characters_and_surrogates_are_defused() -> None:
    text = json_schema_to_ts(obj({"p": {"description": "a\x00b\u2028c\ud800d"}}))
    assert text.splitlines()[1] == "  /** a b c\ufffdd */"
    text.encode("utf-8")


def test_union_of_object_blocks_and_arrays_of_objects() -> None:
    schema = {
        "type": "array",
        "items": {"anyOf": [obj({"a": {"type": "string"}}, ["a"]), {"type": "null"}]},
    }
    assert json_schema_to_ts(schema) == "({\n  a: string;\n} | null)[]"


def test_additional_properties_of_an_object_schema() -> None:
    schema = {"type": "object", "additionalProperties": obj({"x": {"type": "number"}}, ["x"])}
    assert json_schema_to_ts(schema, 1) == "Record<string, {\n    x: number;\n  }>"


def test_missing_type_is_inferred_from_properties_and_items() -> None:
    assert json_schema_to_ts({"properties": {"a": {"type": "string"}}}) == "{\n  a?: string;\n}"
    assert json_schema_to_ts({"items": {"type": "string"}}) == "string[]"


def test_ref_to_defs_and_definitions() -> None:
    schema = {
        "$defs": {"Id": {"type": "string"}},
        "definitions": {"Count": {"type": "integer"}},
        "type": "object",
        "properties": {"id": {"$ref": "#/$defs/Id"}, "n": {"$ref": "#/definitions/Count"}},
        "required": ["id", "n"],
    }
    assert json_schema_to_ts(schema) == "{\n  id: string;\n  n: number;\n}"


def test_ref_json_pointer_escapes_and_misses() -> None:
    schema = {
        "$defs": {"a/b": {"type": "string"}, "t~n": {"type": "number"}, "sp ace": {"type": "boolean"}},
        "properties": {
            "slash": {"$ref": "#/$defs/a~1b"},
            "tilde": {"$ref": "#/$defs/t~0n"},
            "pct": {"$ref": "#/$defs/sp%20ace"},
            "missing": {"$ref": "#/$defs/Nope"},
            "remote": {"$ref": "https://example.com/s.json"},
            "anchor": {"$ref": "#anchor"},
            "bad": {"$ref": 5},
        },
    }
    assert json_schema_to_ts(schema).splitlines()[1:-1] == [
        "  slash?: string;",
        "  tilde?: number;",
        "  pct?: boolean;",
        "  missing?: unknown;",
        "  remote?: unknown;",
        "  anchor?: unknown;",
        "  bad?: unknown;",
    ]


def test_recursive_ref_renders_unknown_at_the_recursion_point() -> None:
    schema = {
        "$defs": {"Node": obj({"name": {"type": "string"}, "next": {"$ref": "#/$defs/Node"}}, ["name"])},
        "$ref": "#/$defs/Node",
    }
    assert json_schema_to_ts(schema) == "{\n  name: string;\n  next?: unknown;\n}"


def test_ref_to_the_root_is_a_cycle() -> None:
    assert json_schema_to_ts(obj({"self": {"$ref": "#"}})) == "{\n  self?: unknown;\n}"


def test_shared_non_cyclic_subschema_renders_each_time() -> None:
    shared = {"type": "string"}
    assert json_schema_to_ts(obj({"a": shared, "b": shared})) == "{\n  a?: string;\n  b?: string;\n}"


def test_frozen_and_plain_objects_keep_the_authors_order() -> None:
    schema = obj({"zeta": {"type": "string"}, "alpha": {"type": "integer"}, "Beta": {}}, ["zeta"])
    authors = "{\n  zeta: string;\n  alpha?: number;\n  Beta?: unknown;\n}"
    assert json_schema_to_ts(schema) == authors
    assert json_schema_to_ts(frozen(schema)) == authors
    assert json_schema_to_ts(deep_frozen(schema)) == authors


def test_pyrsistent_maps_render_with_keys_in_code_point_order() -> None:
    # a PMap iterates in string-hash order (per process): code-point order is the stable one
    schema = obj({"zeta": {"type": "string"}, "alpha": {"type": "integer"}, "Beta": {}}, ["zeta"])
    assert json_schema_to_ts(freeze(schema)) == (
        "{\n  Beta?: unknown;\n  alpha?: number;\n  zeta: string;\n}"
    )


def test_frozen_refs_and_sequences() -> None:
    schema = frozen(
        {
            "$defs": {"S": {"type": ["string", "null"]}},
            "properties": {"x": {"$ref": "#/$defs/S"}, "e": {"enum": [1, "a"]}},
            "required": ["x"],
        }
    )
    assert json_schema_to_ts(schema) == '{\n  x: string | null;\n  e?: 1 | "a";\n}'


def test_tuples_work_like_lists() -> None:
    schema = {"type": ("string", "null"), "enum": ("a", None)}
    assert json_schema_to_ts(schema) == '"a" | null'


def test_huge_integers_and_lone_surrogates_still_render() -> None:
    # Neither has canonical JSON bytes; the direct renderer handles them.
    assert json_schema_to_ts({"const": 2**70}) == str(2**70)
    assert json_schema_to_ts({"const": "\ud800"}) == '"\\ud800"'
    assert json_schema_to_ts({"enum": ["\u2028"]}) == '"\\u2028"'


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        ([], ("unknown", 0)),
        ([("string", 0)], ("string", 0)),
        ([("string", 0), ("null", 0)], ("string | null", 2)),
        ([("A & B", 1), ("A & B", 1)], ("A & B", 1)),
        ([("unknown", 0), ("null", 0)], ("unknown", 0)),
        ([("string", 0), ("unknown", 0)], ("unknown", 0)),
        ([("a", 0), ("b", 0), ("a", 0)], ("a | b", 2)),
        ([("a", 0), ("a", 0), ("a", 0)], ("a", 0)),
    ],
)
def test_union_combinator(members: list[tuple[str, int]], expected: tuple[str, int]) -> None:
    assert _union(members) == expected


def test_literal_union_stops_at_the_first_member_without_a_literal() -> None:
    read: list[str | None] = []

    def literals() -> Iterator[str | None]:
        for text in ('"a"', None, '"b"'):
            read.append(text)
            yield text

    assert _literal_union(literals()) == ("unknown", 0)
    assert read == ['"a"', None]
    assert _literal_union(['"a"', '"b"', '"a"']) == ('"a" | "b"', 2)
    assert _literal_union([]) == ("unknown", 0)


def test_a_long_required_list_of_names_is_read_not_counted() -> None:
    """``required`` names are read by the object rule at any length, so they never count against the value budget."""
    from dsh_tools_codegen._read import MAX_VALUES
    from dsh_tools_codegen._schema import render

    names = ["a"] + [f"x{index}" for index in range(MAX_VALUES + 1)]
    text, sure = render({"type": "object", "properties": {"a": {"type": "string"}}, "required": names}, 1)
    assert sure and "a: string;" in text
