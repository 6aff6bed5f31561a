"""API.md "Tool definitions": define_tool, Prop, TypedDict mapping, validation messages,
structured-output subset and presentation soft-validation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict

import pytest

from dsh_tools import (
    ContentBlock,
    GenericCallView,
    JsonValue,
    OutputSchemaError,
    Prop,
    TerminalResultView,
    ToolArgsError,
    ToolErrorInfo,
    ToolExecution,
    ToolResult,
    assert_supported_output_schema,
    boot,
    define_tool,
    schema_spec_to_json_schema,
    text_block,
    validate_args,
    validate_structured_value,
)
from dsh_tools.json_values import thaw_json

from contract_support import call, text_of


class ReadArgs(TypedDict):
    path: Required[Annotated[str, Prop(description="Absolute file path")]]
    offset: NotRequired[int]
    mode: NotRequired[Literal["text", "bytes"]]


async def read(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(f"{args['path']}@{args.get('offset', 0)}")]


async def read_any(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(str(args["path"]))]


def test_two_spellings_identical_json_schema() -> None:
    typed = define_tool(name="read_file", description="Read a file.", args=ReadArgs, execute=read, timeout_ms=5_000)
    spec = define_tool(
        name="read_file",
        description="Read a file.",
        parameters={
            "path": Prop("string", required=True, description="Absolute file path"),
            "offset": Prop("integer"),
            "mode": Prop("string", enum=["text", "bytes"]),
        },
        execute=read_any,
    )
    expected = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Absolute file path"},
            "offset": {"type": "integer"},
            "mode": {"type": "string", "enum": ["text", "bytes"]},
        },
        "required": ["path"],
    }
    assert thaw_json(typed.parameters) == expected
    assert thaw_json(spec.parameters) == expected
    assert typed.name == "read_file" and typed.description == "Read a file."
    assert typed.timeout_ms == 5_000


def test_schema_spec_to_json_schema() -> None:
    out = schema_spec_to_json_schema(
        {
            "path": Prop("string", required=True, description="p"),
            "tags": Prop("array", items=Prop("string")),
            "cfg": Prop("object", properties={"host": Prop("string", required=True)}),
            "n": Prop("number", default=1),
        }
    )
    assert isinstance(out, dict)
    assert out == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "p"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "cfg": {"type": "object", "properties": {"host": {"type": "string"}}, "required": ["host"]},
            "n": {"type": "number", "default": 1},
        },
        "required": ["path"],
    }


class Inner(TypedDict):
    host: str
    port: NotRequired[int]


class Mapped(TypedDict):
    s: str
    i: int
    f: float
    b: bool
    lit: Literal["a", "b"]
    tags: list[str]
    seq: Sequence[int]
    cfg: Inner
    bag: dict[str, int]
    m: Mapping[str, str]
    maybe: str | None
    maybe_lit: Literal["a", "b"] | None
    maybe_list: list[int] | None
    maybe_cfg: Inner | None


async def mapped_body(args: Mapped, exec: ToolExecution) -> list[ContentBlock]:
    return []


def test_typed_dict_mapping() -> None:
    tool = define_tool(name="m", description="d", args=Mapped, execute=mapped_body)
    params: Any = thaw_json(tool.parameters)
    props = params["properties"]
    inner = {"type": "object", "properties": {"host": {"type": "string"}, "port": {"type": "integer"}}, "required": ["host"]}
    assert props["s"] == {"type": "string"}
    assert props["i"] == {"type": "integer"}
    assert props["f"] == {"type": "number"}
    assert props["b"] == {"type": "boolean"}
    assert props["lit"] == {"type": "string", "enum": ["a", "b"]}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["seq"] == {"type": "array", "items": {"type": "integer"}}
    assert props["cfg"] == inner
    assert props["bag"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["m"] == {"type": "object", "additionalProperties": {"type": "string"}}
    # Settled: "``X | None`` adds ``"null"`` to X's type list (and ``None`` to X's ``enum``)"
    assert props["maybe"] == {"type": ["string", "null"]}
    assert props["maybe_lit"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    assert props["maybe_list"] == {"type": ["array", "null"], "items": {"type": "integer"}}
    assert props["maybe_cfg"] == {**inner, "type": ["object", "null"]}
    assert sorted(params["required"]) == sorted(Mapped.__annotations__)


def test_unsupported_field_type_error_names_field() -> None:
    class Bad(TypedDict):
        fine: str
        when: bytes

    async def body(args: Bad, exec: ToolExecution) -> list[ContentBlock]:
        return []

    with pytest.raises(TypeError, match="when"):
        define_tool(name="bad", description="d", args=Bad, execute=body)


class Deep(TypedDict):
    culprit_field: set[int]


class Outer(TypedDict):
    outer: Deep


def test_unsupported_nested_field_names_inner_field() -> None:
    async def body(args: Outer, exec: ToolExecution) -> list[ContentBlock]:
        return []

    with pytest.raises(TypeError, match="culprit_field"):
        define_tool(name="bad", description="d", args=Outer, execute=body)


def test_prop_unknown_type_is_value_error() -> None:
    with pytest.raises(ValueError):
        Prop("str")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Prop("null")  # type: ignore[arg-type]


def test_prop_without_type_only_inside_annotated() -> None:
    with pytest.raises(ValueError):
        define_tool(name="t", description="d", parameters={"x": Prop()}, execute=read_any)


@pytest.mark.parametrize("budget", [0, -5, float("inf"), float("nan")], ids=str)
def test_define_tool_timeout_ms_value_error(budget: float) -> None:
    with pytest.raises(ValueError, match="timeout_ms"):
        define_tool(name="t", description="d", args=ReadArgs, execute=read, timeout_ms=budget)


def test_define_tool_bad_name_value_error() -> None:
    with pytest.raises(ValueError):
        define_tool(name="", description="d", args=ReadArgs, execute=read)


# -- runtime validation ---------------------------------------------------------------------


async def test_define_tool_validates_before_execute() -> None:
    ctx = boot()
    ran: list[object] = []

    async def body(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
        ran.append(args)
        return []

    ctx.tools.register(define_tool(name="read_file", description="d", args=ReadArgs, execute=body))
    result = await call(ctx, "read_file", {"offset": 1.5, "mode": "lines"})
    assert ran == []
    assert result.is_error
    assert result.error == ToolErrorInfo(name="ToolArgsError", code="INVALID_ARGS")
    text = text_of(result)
    assert text.startswith("Error: ")
    for violation in ("path: missing required property", "offset: expected integer, got number", 'mode: expected one of "text", "bytes"'):
        assert violation in text
    ok = await call(ctx, "read_file", {"path": "/a", "offset": 2, "extra": True})
    assert not ok.is_error and len(ran) == 1


async def test_raw_registered_tools_not_validated() -> None:
    ctx = boot()
    seen: list[object] = []

    class Raw:
        name = "raw"
        description = "d"
        parameters = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            seen.append(thaw_json(args))
            return []

    ctx.tools.register(Raw())
    result = await call(ctx, "raw", {"n": "not a number"})
    assert not result.is_error and seen == [{"n": "not a number"}]


def test_validate_args_messages() -> None:
    spec = {
        "path": Prop("string", required=True),
        "count": Prop("integer"),
        "ratio": Prop("number"),
        "mode": Prop("string", enum=["text", "bytes"]),
        "config": Prop("object", properties={"host": Prop("string", required=True)}),
        "tags": Prop("array", items=Prop("string")),
        "servers": Prop("array", items=Prop("object", properties={"host": Prop("string", required=True)})),
        "bag": Prop("object", additional_properties=Prop("integer")),
        "loose": Prop("object"),
        "anylist": Prop("array"),
    }
    assert validate_args(spec, {"path": "x"}) == []
    assert validate_args(spec, {"path": "x", "extra": object()}) == []  # extra keys allowed
    assert validate_args(spec, {}) == ["path: missing required property"]
    assert validate_args(spec, {"path": 1}) == ["path: expected string, got integer"]
    assert validate_args(spec, {"path": 1.5}) == ["path: expected string, got number"]
    assert validate_args(spec, {"path": True}) == ["path: expected string, got boolean"]
    assert validate_args(spec, {"path": None}) == ["path: expected string, got null"]
    assert validate_args(spec, {"path": []}) == ["path: expected string, got array"]
    assert validate_args(spec, {"path": {}}) == ["path: expected string, got object"]
    assert validate_args(spec, {"path": "x", "count": 1.0}) == ["count: expected integer, got number"]
    assert validate_args(spec, {"path": "x", "count": True}) == ["count: expected integer, got boolean"]
    assert validate_args(spec, {"path": "x", "ratio": 1}) == []  # ints accepted as numbers
    assert validate_args(spec, {"path": "x", "ratio": True}) == ["ratio: expected number, got boolean"]
    assert validate_args(spec, {"path": "x", "mode": "lines"}) == ['mode: expected one of "text", "bytes"']
    assert validate_args(spec, {"path": "x", "config": {}}) == ["config.host: missing required property"]
    assert validate_args(spec, {"path": "x", "tags": ["a", 2]}) == ["tags[1]: expected string, got integer"]
    assert validate_args(spec, {"path": "x", "servers": [{"host": "a"}, {"host": 3}]}) == [
        "servers[1].host: expected string, got integer"
    ]
    assert validate_args(spec, {"path": "x", "bag": {"k": "v"}}) == ["bag.k: expected integer, got string"]
    assert validate_args(spec, {"path": "x", "bag": {"my key": "v"}}) == ['bag["my key"]: expected integer, got string']
    assert validate_args(spec, {"path": "x", "loose": {"any": object()}, "anylist": [object()]}) == []
    assert validate_args(spec, {"path": "x", "loose": [], "anylist": {}}) == [
        "loose: expected object, got array",
        "anylist: expected array, got object",
    ]
    assert validate_args(spec, "nope") == ["(root): expected object, got string"]
    # "one violation per problem"
    assert len(validate_args(spec, {"count": "a", "mode": 1})) == 3


def test_validate_args_none_is_violation_for_optional() -> None:
    """"``None`` is JSON null, a value: it is a violation for a non-nullable property, required or not."""
    assert validate_args({"o": Prop("string")}, {"o": None}) == ["o: expected string, got null"]
    assert validate_args({"o": Prop("string", required=True)}, {"o": None}) == ["o: expected string, got null"]


def test_validate_args_defaults_not_applied_and_total() -> None:
    spec = {"n": Prop("integer", required=True, default=3)}
    assert validate_args(spec, {}) == ["n: missing required property"]

    class Hostile:
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError("boom")

    assert validate_args(spec, Hostile())  # total: reports, never raises
    assert validate_args(spec, {"n": Hostile()})


def test_tool_args_error_joins_violations() -> None:
    error = ToolArgsError(["a: missing required property", "b: expected string, got null"])
    assert "a: missing required property" in str(error) and "b: expected string, got null" in str(error)


# -- structured output ----------------------------------------------------------------------


def test_assert_supported_output_schema() -> None:
    assert_supported_output_schema(
        {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"], "additionalProperties": False}
    )
    with pytest.raises(OutputSchemaError) as caught:
        assert_supported_output_schema(
            {"type": ["object", "null"], "properties": {"x": {"type": "string", "pattern": "a+"}}, "required": ["y"]}
        )
    assert caught.value.code == "UNSUPPORTED_SCHEMA"
    assert len(caught.value.violations) >= 3


def test_validate_structured_value() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "n": {"type": "integer"},
        },
        "required": ["name"],
    }
    assert validate_structured_value(schema, {"name": "a"}) == []
    assert validate_structured_value(schema, {}) == ["name: missing required property"]
    assert validate_structured_value(schema, {"name": "a", "tags": ["x", 1]}) == ["tags[1]: expected string, got integer"]
    assert validate_structured_value(schema, {"name": "a", "n": True}) == ["n: expected integer, got boolean"]
    assert validate_structured_value(schema, 3) == ["(root): expected object, got integer"]
    # never raises, even for a schema it would not accept: reports it as a violation
    out = validate_structured_value({"type": "object", "oneOf": []}, {})
    assert out and all(isinstance(v, str) for v in out)
    assert validate_structured_value(object(), {})


# -- presentation ------------------------------------------------------------------------------


def test_present_call_and_result_receive_typed_args_and_soft_validate() -> None:
    def present_call(args: ReadArgs) -> GenericCallView:
        return GenericCallView(title=args["path"], kind="read")

    def present_result(args: ReadArgs, result: ToolResult) -> TerminalResultView:
        return TerminalResultView(output=args["path"])

    tool = define_tool(
        name="read_file",
        description="d",
        args=ReadArgs,
        execute=read,
        present_call=present_call,
        present_result=present_result,
    )
    view = tool.present_call({"path": "/a"})
    assert view == GenericCallView(title="/a", kind="read")
    result = ToolResult(content=[text_block("x")], is_error=False)
    assert tool.present_result({"path": "/a"}, result) == TerminalResultView(output="/a")
    # malformed args → None, never raise
    assert tool.present_call({"path": 3}) is None
    assert tool.present_call(None) is None
    assert tool.present_result({}, result) is None


def test_presenter_that_raises_returns_none() -> None:
    def present_call(args: ReadArgs) -> GenericCallView:
        raise RuntimeError("buggy presenter")

    tool = define_tool(name="r", description="d", args=ReadArgs, execute=read, present_call=present_call)
    assert tool.present_call({"path": "/a"}) is None


async def test_registered_snapshot_keeps_presenters() -> None:
    def present_call(args: ReadArgs) -> GenericCallView:
        return GenericCallView(title=args["path"])

    ctx = boot()
    ctx.tools.register(define_tool(name="r", description="d", args=ReadArgs, execute=read, present_call=present_call))
    snapshot: Any = ctx.tools.get("r")
    assert snapshot.present_call({"path": "/p"}) == GenericCallView(title="/p")


class IntLiteralArgs(TypedDict):
    level: Literal[1, 2, 3]


async def int_literal_body(args: IntLiteralArgs, exec: ToolExecution) -> list[ContentBlock]:
    return []


def test_non_str_literal_is_type_error() -> None:
    """"``Literal[...]`` of str→string+enum ...; anything else is a ``TypeError`` at definition time naming the field"."""
    with pytest.raises(TypeError, match="level"):
        define_tool(name="t", description="d", args=IntLiteralArgs, execute=int_literal_body)
