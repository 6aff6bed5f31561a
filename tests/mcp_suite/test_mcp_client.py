"""``mcp_tools`` against a real stdio MCP server (the SDK test server, one process for the module).

Each test registers the server's tools into a fresh context over the shared,
initialized ``ClientSession`` (the "bring your own session" form); the suites
beside this one cover connections the toolset opens itself.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from dsh_tools import (
    AbortController,
    Agent,
    ContentBlock,
    Context,
    Deny,
    PreNext,
    PreToolDecision,
    Prop,
    ExecuteNext,
    ToolExecution,
    ToolExecutionResult,
    boot,
    define_tool,
    text_block,
    thaw_json,
)
from dsh_tools.code_mode.install import SDK_SECTION
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
from dsh_tools.mcp import McpToolset, mcp_tools
from dsh_tools.testing import Bindings, ScriptedCodeRuntime
from dsh_tools_codegen import render_tools_sdk
from mcp_support import PNG_PREFIX, call, code, stdio_params

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared() -> AsyncIterator[McpToolset]:
    toolset = await mcp_tools(boot(), stdio_params())
    yield toolset
    await toolset.aclose()


async def fresh(shared: McpToolset, **options: Any) -> tuple[Context, McpToolset]:
    ctx = boot()
    assert shared.session is not None
    return ctx, await mcp_tools(ctx, shared.session, **options)


async def test_registers_every_server_tool_with_its_schema(shared: McpToolset) -> None:
    ctx = boot()
    assert shared.session is not None
    toolset = await mcp_tools(ctx, shared.session)
    listed = (await shared.session.list_tools()).tools
    assert toolset.names == tuple(tool.name for tool in listed)
    echo = ctx.tools.get("echo")
    assert echo is not None
    assert echo.description == "Echo the text back."
    assert thaw_json(echo.parameters) == {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


async def test_text_result_is_a_text_block(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)
    result = await call(ctx, "echo", {"text": "hi"})
    assert not result.is_error
    assert list(result.content) == [text_block("hi")]


async def test_media_maps_image_resources_links_and_audio(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)
    result = await call(ctx, "media")
    blocks = [dict(block) for block in result.content]
    assert blocks[0] == {"type": "text", "text": "caption"}
    assert blocks[1]["type"] == "image" and blocks[1]["mimeType"] == "image/png"
    assert str(blocks[1]["data"]).startswith(PNG_PREFIX)
    assert blocks[2] == {"type": "text", "text": "notes"}
    assert blocks[3] == {"type": "text", "text": "[binary resource file:///a.pdf (application/pdf), 3 bytes, not shown]"}
    assert blocks[4] == {"type": "text", "text": "[resource link readme: file:///README.md]"}
    assert blocks[5] == {"type": "text", "text": "[audio (audio/wav), not shown]"}
    assert result.text == "caption\nnotes\n" + "\n".join(str(b["text"]) for b in blocks[3:])


async def test_invalid_arguments_never_reach_the_server_and_read_like_our_own(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)

    async def body(args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []

    ours = define_tool(name="ours", description="d", parameters={"text": Prop("string", required=True)}, execute=body)
    ctx.tools.register(ours)
    theirs = await call(ctx, "echo", {"text": 1})
    local = await call(ctx, "ours", {"text": 1})
    assert code(theirs) == "INVALID_ARGS"
    assert theirs.text == local.text == "Error: invalid arguments: text: expected string, got integer"
    missing = await call(ctx, "echo", {})
    assert missing.text == "Error: invalid arguments: text: missing required property"


async def test_arguments_that_are_not_an_object_are_invalid(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)
    result = await call(ctx, "echo", ["hi"])
    assert code(result) == "INVALID_ARGS"


async def test_is_error_becomes_an_error_result_with_the_servers_text(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)
    result = await call(ctx, "fail")
    assert result.is_error and code(result) == "MCP_TOOL_ERROR"
    assert result.text == "Error: it broke"


async def test_a_json_rpc_error_is_a_protocol_error_result(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)
    result = await call(ctx, "malformed")  # the SDK server refuses its own bad result
    assert result.is_error and code(result) == "MCP_PROTOCOL_ERROR"


async def test_schema_outside_the_subset_still_registers_renders_and_checks_what_it_can(shared: McpToolset) -> None:
    ctx, toolset = await fresh(shared)
    exotic = ctx.tools.get("exotic")
    assert exotic is not None
    sdk = render_tools_sdk(ctx.tools.schemas())
    assert "exotic(args:" in sdk
    bad = await call(ctx, "exotic", {"when": "2026", "kind": "c", "extra": 1})
    assert code(bad) == "INVALID_ARGS"
    assert bad.text == 'Error: invalid arguments: kind: expected one of "a", "b", null; extra: unexpected property'
    good = await call(ctx, "exotic", {"when": "2026", "kind": None, "maybe": 3, "point": {"x": 1}})
    assert not good.is_error and good.text == "ok"
    assert next(t for t in toolset.definitions if t.name == "exotic").output_schema is None


async def test_output_schema_in_the_subset_makes_a_typed_tool_with_structured_content_as_value(shared: McpToolset) -> None:
    ctx, toolset = await fresh(shared)
    add = next(t for t in toolset.definitions if t.name == "add")
    schema = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}
    assert add.output_schema == schema
    registered = ctx.tools.get("add")
    assert registered is not None and thaw_json(registered.output_schema) == schema
    result = await call(ctx, "add", {"a": 1, "b": 2})
    assert not result.is_error and result.value == {"sum": 3}
    assert result.text == '{"sum": 3}'  # the server's own text, not re-rendered
    assert "value" not in result.to_json()
    plain = await call(ctx, "echo", {"text": "x"})
    assert plain.value is None


async def test_structured_content_that_breaks_its_schema_is_an_error_result(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)
    result = await call(ctx, "lie")
    assert result.is_error and code(result) == "MCP_PROTOCOL_ERROR"  # the SDK checks it against the schema first
    assert result.value is None


async def test_deny_policy_and_guards_apply(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared)

    async def no_echo(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Deny("echo is off") if exec.name == "echo" else await next()

    ctx.on("tools/pre-execute", no_echo)
    ctx.tools.guard(lambda exec: "no adding" if exec.name == "add" else None)
    assert (await call(ctx, "echo", {"text": "x"})).text == "Error: echo is off"
    assert (await call(ctx, "add", {"a": 1, "b": 2})).text == "Error: no adding"


async def test_prefix_allow_and_deny(shared: McpToolset) -> None:
    ctx, toolset = await fresh(shared, prefix="srv", allow=["echo", "add", "fail"], deny=["fail"])
    assert toolset.names == ("srv_echo", "srv_add")
    result = await call(ctx, "srv_echo", {"text": "p"})
    assert result.text == "p"
    assert ctx.tools.get("echo") is None


@pytest.mark.parametrize("bad", ["echo", ["echo", 3]])
async def test_allow_must_be_a_sequence_of_names(shared: McpToolset, bad: object) -> None:
    with pytest.raises(ValueError, match="sequence of tool names"):
        await fresh(shared, allow=bad)


async def test_registration_through_an_agent_is_that_agents_alone(shared: McpToolset) -> None:
    ctx = boot()
    agent = Agent(ctx, name="a")
    other = Agent(ctx, name="b")
    assert shared.session is not None
    toolset = await mcp_tools(agent.ctx, shared.session, allow=["echo"])
    assert [t.name for t in ctx.tools.visible(agent)] == ["echo"]
    assert ctx.tools.visible(other) == [] and ctx.tools.visible() == []
    assert (await call(ctx, "echo", {"text": "a"}, agent=agent)).text == "a"
    assert code(await call(ctx, "echo", {"text": "b"}, agent=other)) == "UNKNOWN_TOOL"
    await agent.dispose()
    assert toolset.closed and ctx.tools.visible(agent) == []


async def test_a_name_clash_with_a_local_tool_is_refused_and_nothing_stays(shared: McpToolset) -> None:
    ctx = boot()

    async def body(args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []

    ctx.tools.register(define_tool(name="fail", description="local", parameters={}, execute=body))
    assert shared.session is not None
    with pytest.raises(ValueError, match=r'MCP tool "fail" .* cannot be registered as "fail": .*already registered.*prefix='):
        await mcp_tools(ctx, shared.session)
    assert [t.name for t in ctx.tools.visible()] == ["fail"]
    prefixed = await mcp_tools(ctx, shared.session, prefix="s")
    assert "s_fail" in prefixed.names


async def test_timeouts_apply_and_the_server_is_told(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared, allow=["hang", "hang_started", "cancelled_seen"], timeout_ms=1_000)
    running = asyncio.ensure_future(call(ctx, "hang"))
    assert (await call(ctx, "hang_started")).text == "yes"
    result = await running
    assert code(result) == "TOOL_TIMEOUT"
    assert (await call(ctx, "cancelled_seen")).text == "yes"


async def test_an_aborted_signal_cancels_the_server_call(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared, allow=["hang", "hang_started", "cancelled_seen"])
    controller = AbortController()
    started = asyncio.Event()

    async def mark(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        started.set()
        return await next()

    ctx.on("tools/execute", mark)
    running = asyncio.ensure_future(call(ctx, "hang", signal=controller.signal))
    await started.wait()
    assert (await call(ctx, "hang_started")).text == "yes"  # the server is running it
    controller.abort("stop")
    result = await running
    assert code(result) == "ABORTED"
    assert (await call(ctx, "cancelled_seen")).text == "yes"


async def test_a_signal_aborted_before_the_call_sends_nothing(shared: McpToolset) -> None:
    ctx, toolset = await fresh(shared, allow=["echo"])
    controller = AbortController()
    controller.abort()
    result = await call(ctx, "echo", {"text": "x"}, signal=controller.signal)
    assert result.is_error and code(result) == "ABORTED_BEFORE_DISPATCH"  # the pipeline stops it before the body


async def test_cancelling_the_task_cancels_the_server_call(shared: McpToolset) -> None:
    ctx, _ = await fresh(shared, allow=["hang", "hang_started", "cancelled_seen"])
    started = asyncio.Event()

    async def mark(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        started.set()
        return await next()

    ctx.on("tools/execute", mark)
    running = asyncio.ensure_future(call(ctx, "hang"))
    await started.wait()
    assert (await call(ctx, "hang_started")).text == "yes"
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert (await call(ctx, "cancelled_seen")).text == "yes"


async def test_call_after_close_is_a_clear_error(shared: McpToolset) -> None:
    ctx, toolset = await fresh(shared, allow=["echo"])
    definition = toolset.definitions[0]
    await toolset.aclose()
    assert toolset.closed and ctx.tools.get("echo") is None
    assert code(await call(ctx, "echo", {"text": "x"})) == "UNKNOWN_TOOL"
    ctx.tools.register(definition)  # a definition kept past its toolset
    late = await call(ctx, "echo", {"text": "x"})
    assert code(late) == "MCP_CLOSED"
    assert "was closed" in late.text
    await toolset.aclose()  # idempotent


async def test_disposing_the_context_closes_the_toolset_and_an_in_flight_call(shared: McpToolset) -> None:
    ctx, toolset = await fresh(shared, allow=["hang"])
    started = asyncio.Event()

    async def mark(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        started.set()
        return await next()

    ctx.on("tools/execute", mark)
    running = asyncio.ensure_future(call(ctx, "hang"))
    await started.wait()
    await ctx.dispose()
    result = await running
    assert code(result) == "MCP_CLOSED"
    assert toolset.closed and toolset.session is None
    assert shared.session is not None and not shared.closed  # the caller's session stays open
    assert (await call(boot(), "echo")).is_error


async def test_code_mode_binds_mcp_tools_and_types_their_results(shared: McpToolset) -> None:
    runtime = ScriptedCodeRuntime()
    ctx = boot(mode="code", code_runtime=runtime)
    assert shared.session is not None
    await mcp_tools(ctx, shared.session, allow=["add", "echo"])

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        total = await tools["add"]({"a": 2, "b": 3})
        echoed = await tools["echo"]({"text": "hi"})
        return CodeRunResult(logs=(), value={"total": total, "echoed": echoed})

    runtime.programs["both"] = program
    result = await call(ctx, "run_code", {"code": "both"})
    assert json.loads(result.text) == {"total": {"sum": 5}, "echoed": "hi"}  # the typed tool's value, the content tool's text
    assembly = await ctx.system_prompt.assemble()
    sdk = next(section.text for section in assembly.sections if section.name == SDK_SECTION)
    add_line = next(line for line in sdk.splitlines() if "add(args:" in line)
    assert "Promise<string>" not in add_line  # typed: the SDK declares the structured result
    assert "echo(args:" in sdk


async def test_needs_approval_asks_for_every_server_tool_after_validating_the_call(shared: McpToolset) -> None:
    from dsh_tools import Agent

    ctx = boot(approval="defer")
    assert shared.session is not None
    toolset = await mcp_tools(ctx, shared.session, allow=["echo"], needs_approval=True)
    agent = Agent(ctx, name="client", id="client-1")
    invalid = await call(ctx, "echo", {"text": 5}, agent=agent)
    assert invalid.outcome == "invalid-args" and await ctx.tools.pending_approvals() == []  # nobody is asked about it
    parked = await call(ctx, "echo", {"text": "hi"}, agent=agent)
    assert parked.outcome == "approval-pending"
    await toolset.aclose()


async def test_a_servers_idempotent_hint_counts_only_when_trusted(shared: McpToolset) -> None:
    import mcp_types as mt

    from dsh_tools.mcp.tool import McpTool

    hinted = mt.Tool(name="t", input_schema={"type": "object"}, annotations=mt.ToolAnnotations(idempotent_hint=True))
    assert shared.session is not None
    ignored = McpTool(hinted, name="t", connection=None, timeout_ms=None)  # type: ignore[arg-type]
    trusted = McpTool(hinted, name="t", connection=None, timeout_ms=None, trust_hints=True)  # type: ignore[arg-type]
    assert (ignored.idempotent, trusted.idempotent) == (False, True)
    ctx = boot()
    toolset = await mcp_tools(ctx, shared.session, allow=["echo"], trust_hints=True)
    tool = ctx.tools.get("echo")
    assert tool is not None and tool.idempotent is False  # echo carries no hint
    await toolset.aclose()
    with pytest.raises(TypeError, match="trust_hints"):
        await mcp_tools(boot(), shared.session, trust_hints="yes")  # type: ignore[arg-type]
