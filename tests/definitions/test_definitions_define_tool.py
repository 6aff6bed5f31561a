"""define_tool: definition-time checks, validation before the body, soft presenters."""

from __future__ import annotations

import asyncio
import math
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict

import pytest

from dsh_tools.content import ContentBlock, text_block
from dsh_tools.definitions import DefinedTool, Prop, define_tool
from dsh_tools.errors import ToolArgsError
from dsh_tools.execution import ToolExecution, mint_token
from dsh_tools.json_values import JsonValue, freeze_json, thaw_json
from dsh_tools.tool_types import ToolDefinition
from dsh_tools.presentation import (
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    ToolResult,
)


class ReadArgs(TypedDict):
    path: Required[Annotated[str, Prop(description="Absolute file path")]]
    offset: NotRequired[int]
    mode: NotRequired[Literal["text", "bytes"]]
    tags: NotRequired[list[str]]


SPEC = {
    "path": Prop("string", required=True, description="Absolute file path"),
    "offset": Prop("integer"),
    "mode": Prop("string", enum=["text", "bytes"]),
    "tags": Prop("array", items=Prop("string")),
}

calls: list[Any] = []


async def read(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
    calls.append(args)
    return [text_block(args["path"])]


async def read_any(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    calls.append(args)
    return [text_block(str(args["path"]))]


def execution(arguments: object) -> ToolExecution:
    return ToolExecution(mint_token(), "call-1", "read_file", freeze_json(arguments).unwrap())


def typed_tool(**extra: Any) -> DefinedTool[ReadArgs]:
    return define_tool(name="read_file", description="Read a file.", args=ReadArgs, execute=read, **extra)


@pytest.fixture(autouse=True)
def _reset_calls() -> None:
    calls.clear()


def test_both_spellings_give_identical_parameters() -> None:
    spec_tool = define_tool(name="read_file", description="Read a file.", parameters=SPEC, execute=read_any)
    assert typed_tool().parameters == spec_tool.parameters
    assert thaw_json(spec_tool.parameters)["required"] == ["path"]  # type: ignore[index]


def test_definition_is_immutable_and_parameters_frozen() -> None:
    tool = typed_tool()
    with pytest.raises(AttributeError):
        tool.name = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        tool.execute = read  # type: ignore[method-assign, assignment]
    parameters: Any = tool.parameters
    with pytest.raises(TypeError):
        parameters["type"] = "array"


async def test_a_definition_is_a_record_compared_by_identity_and_set_keeps_the_rest() -> None:
    tool = typed_tool()
    described = tool.set(description="Read a file, briefly.")
    assert type(described) is DefinedTool and described is not tool and described != tool and tool == tool
    assert described.description == "Read a file, briefly." and tool.description != described.description
    assert (described.parameters, described.validator, described.body) == (tool.parameters, tool.validator, tool.body)
    assert len({tool, described, tool}) == 2  # hashable, by identity
    args = {"path": "a.txt"}
    result = await described.execute(freeze_json(args).unwrap(), execution(args))
    assert result == await tool.execute(freeze_json(args).unwrap(), execution(args))
    with pytest.raises(AttributeError, match=r"cannot replace \['spec', 'validator'\]: define the tool again"):
        tool.set(spec={}, validator=len)
    with pytest.raises((TypeError, ValueError)):
        tool.set(name="")
    with pytest.raises((TypeError, ValueError)):
        tool.set(timeout_ms=-5)
    with pytest.raises(AttributeError, match="no evolver"):
        tool.evolver()


async def test_execute_validates_before_the_body_and_lists_every_violation() -> None:
    tool = typed_tool()
    bad = {"offset": 1.5, "mode": "x", "tags": ["a", 2]}
    with pytest.raises(ToolArgsError) as caught:
        await tool.execute(freeze_json(bad).unwrap(), execution(bad))
    assert caught.value.violations == (
        "path: missing required property",
        "offset: expected integer, got number",
        'mode: expected one of "text", "bytes"',
        "tags[1]: expected string, got integer",
    )
    assert caught.value.code == "INVALID_ARGS"
    assert "path: missing required property" in str(caught.value)
    assert calls == []


async def test_execute_refuses_bad_arguments_at_once_and_hands_back_the_bodys_own_awaitable() -> None:
    tool = typed_tool()
    bad = {"offset": 1.5}
    with pytest.raises(ToolArgsError):
        _ = tool.execute(freeze_json(bad).unwrap(), execution(bad))  # raised by the call itself: nothing to await
    good = {"path": "p"}
    pending = tool.execute(freeze_json(good).unwrap(), execution(good))
    assert isinstance(pending, types.CoroutineType) and pending.cr_code is read.__code__  # the function's own, not a wrapper's
    await pending


async def test_a_body_that_hands_back_another_awaitable_is_awaited_in_a_coroutine() -> None:
    async def answer() -> list[ContentBlock]:
        return [text_block("from a task")]

    def spec_body(args: Mapping[str, JsonValue], exec: ToolExecution) -> asyncio.Task[list[ContentBlock]]:
        return asyncio.ensure_future(answer())  # awaitable, but not a coroutine

    tool = define_tool(name="t", description="d", parameters={}, execute=spec_body)
    pending = tool.execute(freeze_json({}).unwrap(), execution({}))
    assert isinstance(pending, types.CoroutineType)  # what create_task and the type say it is
    assert await pending == [text_block("from a task")]


async def test_typed_body_receives_plain_detached_values() -> None:
    tool = typed_tool()
    args = freeze_json({"path": "/a", "tags": ["x"]}).unwrap()
    assert await tool.execute(args, execution(args)) == [{"type": "text", "text": "/a"}]
    (received,) = calls
    assert type(received) is dict and type(received["tags"]) is list


async def test_spec_body_receives_the_validated_mapping() -> None:
    tool = define_tool(name="read_file", description="d", parameters=SPEC, execute=read_any)
    args = freeze_json({"path": "/a"}).unwrap()
    await tool.execute(args, execution(args))
    assert calls == [args]
    with pytest.raises(ToolArgsError):
        await tool.execute({"path": 1}, execution({"path": 1}))


@pytest.mark.parametrize("timeout_ms", [0, -1, math.inf, math.nan, True, "100", [100]])
def test_bad_timeout_ms_is_a_value_error_naming_it(timeout_ms: Any) -> None:
    with pytest.raises(ValueError, match="timeout_ms"):
        typed_tool(timeout_ms=timeout_ms)


def test_good_timeout_ms_is_kept() -> None:
    assert typed_tool(timeout_ms=5_000).timeout_ms == 5_000
    assert typed_tool(timeout_ms=0.5).timeout_ms == 0.5
    assert typed_tool().timeout_ms is None


@pytest.mark.parametrize("name", ["", None, 3, b"read"])
def test_bad_name_is_a_value_error(name: Any) -> None:
    with pytest.raises(ValueError, match="name"):
        define_tool(name=name, description="d", args=ReadArgs, execute=read)


define_untyped: Any = define_tool
"""``define_tool`` with the static checks off, to reach its run-time checks."""


def test_definition_satisfies_the_registry_protocol() -> None:
    definition: ToolDefinition = typed_tool()
    assert definition.name == "read_file"


def test_other_definition_errors() -> None:
    with pytest.raises(ValueError, match="description"):
        define_untyped(name="t", description=None, args=ReadArgs, execute=read)
    with pytest.raises(TypeError, match="exactly one"):
        define_untyped(name="t", description="d", args=ReadArgs, parameters=SPEC, execute=read)
    with pytest.raises(TypeError, match="exactly one"):
        define_untyped(name="t", description="d", execute=read)
    with pytest.raises(TypeError, match="TypedDict"):
        define_untyped(name="t", description="d", args=dict, execute=read)
    with pytest.raises(TypeError, match="execute"):
        define_untyped(name="t", description="d", args=ReadArgs, execute="not callable")
    with pytest.raises(TypeError, match="present_call"):
        define_untyped(name="t", description="d", args=ReadArgs, execute=read, present_call=3)
    with pytest.raises(ValueError, match="has no type"):
        define_tool(name="t", description="d", parameters={"x": Prop()}, execute=read_any)


def test_unsupported_typed_dict_field_names_tool_and_field() -> None:
    class Bad(TypedDict):
        when: complex

    with pytest.raises(TypeError, match='tool "t".*"when"'):
        define_tool(name="t", description="d", args=Bad, execute=read)  # type: ignore[arg-type]


def test_present_call_gets_typed_args_and_returns_the_view() -> None:
    seen: list[object] = []

    def present(args: ReadArgs) -> GenericCallView:
        seen.append(args)
        return GenericCallView(f"Read {args['path']}", kind="read")

    tool = typed_tool(present_call=present)
    view = tool.present_call(freeze_json({"path": "/a"}).unwrap())
    assert view == GenericCallView("Read /a", kind="read")
    assert type(seen[0]) is dict


@pytest.mark.parametrize("args", [None, {}, {"path": 1}, [], "x", {"path": "/a", "offset": True}])
def test_present_call_returns_none_on_malformed_args(args: object) -> None:
    tool = typed_tool(present_call=lambda a: GenericCallView(a["path"]))
    assert tool.present_call(args) is None


def test_presenters_never_raise() -> None:
    def explode(args: ReadArgs) -> GenericCallView:
        raise RuntimeError("boom")

    def wrong_kind(args: ReadArgs) -> Any:
        return {"card": "generic", "title": "dict is not a view"}

    def result_for_call(args: ReadArgs) -> Any:
        return GenericResultView(title="wrong union")

    for presenter in (explode, wrong_kind, result_for_call):
        assert typed_tool(present_call=presenter).present_call({"path": "/a"}) is None
    assert typed_tool().present_call({"path": "/a"}) is None
    assert typed_tool().present_result({"path": "/a"}, ToolResult([], False)) is None


def test_present_result_gets_args_and_result() -> None:
    def present(args: ReadArgs, result: ToolResult) -> TerminalResultView | None:
        text = result.content[0].get("text") if result.content else None
        return TerminalResultView(title=args["path"], output=text if isinstance(text, str) else None)

    tool = typed_tool(present_result=present)
    result = ToolResult([text_block("out")], False, meta={"n": 1})
    assert tool.present_result({"path": "/a"}, result) == TerminalResultView(title="/a", output="out")
    assert tool.present_result({"path": 1}, result) is None
    assert tool.present_result({"path": "/a"}, {"content": [], "isError": False}) is None  # type: ignore[arg-type]
    assert tool.present_result({"path": "/a"}, ToolResult([], False)) == TerminalResultView(title="/a")


def test_spec_tool_presenters_receive_mappings() -> None:
    tool = define_tool(
        name="bash",
        description="Run a shell command.",
        parameters={"command": Prop("string", required=True), "description": Prop("string", required=True)},
        execute=read_any,
        present_call=lambda args: TerminalCallView(str(args["command"]), description=str(args["description"])),
    )
    assert tool.present_call({"command": "ls", "description": "List"}) == TerminalCallView("ls", description="List")
    assert tool.present_call({"command": "ls"}) is None


def test_validate_method_is_total() -> None:
    tool = typed_tool()
    assert tool.validate({"path": "/a"}) == []
    assert tool.validate(object()) == ["(root): expected object, got non-JSON object"]


def test_execute_is_awaitable_and_runs_once() -> None:
    tool = typed_tool()
    asyncio.run(_run_twice(tool))
    assert len(calls) == 2


async def _run_twice(tool: DefinedTool[ReadArgs]) -> None:
    for _ in range(2):
        await tool.execute({"path": "/a"}, execution({"path": "/a"}))
