"""API.md "Order": the author's property order and the model's argument order hold everywhere.

Every place a schema or an argument object passes through is checked with
names that are *not* in code-point order (``query`` before ``path``, ``zeta``
before ``alpha``), so a sort anywhere on the way shows up as a failure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

import orjson

from dsh_tools import (
    CODE_RUNTIME,
    RUN_CODE_NAME,
    Agent,
    CodeRunRequest,
    CodeRunResult,
    ContentBlock,
    FrozenDict,
    JsonValue,
    Prop,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolOutput,
    boot,
    define_tool,
    text_block,
    thaw_json,
)
from dsh_tools.adapters.openai import calls_from_chat, chat_tools
from dsh_tools.json_values import dumps
from dsh_tools.testing import Bindings, ScriptedCodeRuntime
from dsh_tools_codegen import json_schema_to_ts, render_tools_sdk


class SearchArgs(TypedDict):
    query: str
    path: NotRequired[str]
    max_results: NotRequired[int]
    case_sensitive: bool


SEARCH_ORDER = ["query", "path", "max_results", "case_sensitive"]
seen_typed: list[list[str]] = []
seen_spec: list[list[str]] = []


async def search(args: SearchArgs, exec: ToolExecution) -> list[ContentBlock]:
    seen_typed.append(list(args))
    return [text_block("found")]


async def record(args: Mapping[str, JsonValue], exec: ToolExecution) -> ToolOutput:
    seen_spec.append(list(args))
    return ToolOutput(content=[text_block("ok")], meta={"zeta": 1, "alpha": {"second": 2, "first": 1}})


def tools() -> tuple[Any, Any]:
    typed = define_tool(name="search_text", description="Search.", args=SearchArgs, execute=search)
    spec = define_tool(
        name="record",
        description="Record.",
        parameters={
            "zeta": Prop("string", required=True),
            "alpha": Prop("object", properties={"second": Prop("integer"), "first": Prop("integer", required=True)}),
            "mid": Prop("number", required=True),
        },
        execute=record,
    )
    return typed, spec


def properties(parameters: Any) -> list[str]:
    return list(parameters["properties"])


def test_define_tool_keeps_typed_dict_field_and_prop_spec_order_and_required_follows_it() -> None:
    typed, spec = tools()
    assert type(typed.parameters) is FrozenDict
    assert properties(typed.parameters) == SEARCH_ORDER
    assert list(typed.parameters["required"]) == ["query", "case_sensitive"]
    assert properties(spec.parameters) == ["zeta", "alpha", "mid"]
    assert list(spec.parameters["required"]) == ["zeta", "mid"]
    assert list(spec.parameters["properties"]["alpha"]["properties"]) == ["second", "first"]


def test_registration_snapshots_schemas_get_and_to_json_keep_the_order() -> None:
    ctx = boot()
    typed, spec = tools()
    ctx.tools.register(typed)
    ctx.tools.register(spec)
    registered = ctx.tools.get("search_text")
    assert registered is not None and properties(registered.parameters) == SEARCH_ORDER
    by_name = {schema.name: schema for schema in ctx.tools.schemas()}
    assert properties(by_name["search_text"].parameters) == SEARCH_ORDER
    wire = by_name["record"].to_json()
    assert list(wire["parameters"]["properties"]) == ["zeta", "alpha", "mid"]
    assert list(wire["parameters"]) == ["type", "properties", "required"]
    assert list(thaw_json(by_name["record"].parameters)["properties"]) == ["zeta", "alpha", "mid"]  # type: ignore[index]
    text = dumps(by_name["search_text"].parameters).decode()
    assert text.index('"query"') < text.index('"path"') < text.index('"max_results"') < text.index('"case_sensitive"')


def test_openai_format_keeps_the_order_both_ways() -> None:
    ctx = boot()
    typed, spec = tools()
    ctx.tools.register(typed)
    ctx.tools.register(spec)
    functions = {entry["function"]["name"]: entry["function"] for entry in chat_tools(ctx.tools.schemas())}
    properties = functions["search_text"]["parameters"]["properties"]
    assert isinstance(properties, dict) and list(properties) == SEARCH_ORDER
    encoded = orjson.dumps(functions["record"]["parameters"]).decode()
    assert encoded.index('"zeta"') < encoded.index('"alpha"') < encoded.index('"mid"')
    message = {"tool_calls": [{"id": "c1", "function": {"name": "record", "arguments": '{"mid": 1, "zeta": "z"}'}}]}
    (call,) = calls_from_chat(message)
    assert isinstance(call.arguments, Mapping) and list(call.arguments) == ["mid", "zeta"]


def test_sdk_text_lists_members_in_the_authors_order() -> None:
    typed, spec = tools()
    sdk = render_tools_sdk([typed, spec])
    search_line = sdk[sdk.index("search_text(args:") :]
    assert search_line.index("query:") < search_line.index("path?:") < search_line.index("max_results?:")
    assert search_line.index("max_results?:") < search_line.index("case_sensitive:")
    record_text = json_schema_to_ts(spec.parameters)
    assert record_text.index("zeta:") < record_text.index("alpha?:") < record_text.index("mid:")
    assert record_text.index("second?:") < record_text.index("first:")


async def test_the_models_argument_order_survives_the_pipeline() -> None:
    ctx = boot()
    typed, spec = tools()
    ctx.tools.register(typed)
    ctx.tools.register(spec)
    seen_typed.clear()
    seen_spec.clear()
    observed: list[list[str]] = []

    def observe(exec: ToolExecution, result: ToolExecutionResult) -> None:
        assert isinstance(exec.arguments, FrozenDict)
        observed.append(list(exec.arguments))

    ctx.on("tools/result", observe)
    arguments: dict[str, JsonValue] = {"case_sensitive": False, "query": "q", "max_results": 3}
    result = await ctx.tools.execute(ToolExecutionInput("c1", "search_text", arguments))
    assert not result.is_error, result.text
    assert seen_typed == [["case_sensitive", "query", "max_results"]]  # the model's order, thawed for the body
    assert observed == [["case_sensitive", "query", "max_results"]]  # what observers (and logs) see
    spec_result = await ctx.tools.execute(ToolExecutionInput("c2", "record", {"mid": 1.5, "zeta": "z"}))
    assert seen_spec == [["mid", "zeta"]]
    assert list(spec_result.meta) == ["zeta", "alpha"]  # type: ignore[arg-type]
    wire = spec_result.to_json()
    assert list(wire["meta"]) == ["zeta", "alpha"] and list(wire["meta"]["alpha"]) == ["second", "first"]


async def test_code_mode_sub_call_arguments_keep_their_order_into_the_session_log() -> None:
    async def program(bindings: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await bindings["record"]({"mid": 2, "zeta": "z", "alpha": {"first": 1, "second": 2}})
        return CodeRunResult(logs=[])

    ctx = boot(mode="code")
    ctx.provide(CODE_RUNTIME, ScriptedCodeRuntime({"go": program}))
    _, spec = tools()
    ctx.tools.register(spec)
    seen_spec.clear()
    agent = Agent(ctx, name="coder")
    result = await ctx.tools.execute(ToolExecutionInput("r1", RUN_CODE_NAME, {"code": "go"}, agent=agent))
    assert not result.is_error, result.text
    assert seen_spec == [["mid", "zeta", "alpha"]]
    (dispatch,) = [data for kind, data in agent.session.events() if kind == "tool/code-dispatch"]
    logged: Any = thaw_json(dispatch)
    assert list(logged["arguments"]) == ["mid", "zeta", "alpha"]
    assert list(logged["arguments"]["alpha"]) == ["first", "second"]
