"""``serve_mcp`` connected to the SDK's own ``ClientSession`` over in-memory streams (the real protocol).

The last test runs both directions at once: our ``mcp_tools`` client over a
session to our ``serve_mcp`` server.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as mt
import pytest
from mcp.client.session import ClientRequestContext, ClientSession, ElicitationFnT
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from mcp.shared.memory import create_client_server_memory_streams

from dsh_tools import (
    APPROVAL,
    Agent,
    Ask,
    AssembleContext,
    Context,
    Deny,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    define_tool,
)
from dsh_tools.mcp import StdioServerParameters, StreamableHttpParameters, mcp_tools, serve_mcp
from dsh_tools.testing import ScriptedCodeRuntime
from mcp_support import http_server
from served_tools import TOOLS


@asynccontextmanager
async def connected(server: Server[Any], elicitation: ElicitationFnT | None = None) -> AsyncIterator[ClientSession]:
    """An initialized client session talking to ``server`` over memory streams, for the block."""
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        async with anyio.create_task_group() as group:
            group.start_soon(server.run, server_streams[0], server_streams[1], server.create_initialization_options())
            async with ClientSession(*client_streams, elicitation_callback=elicitation) as session:
                await session.initialize()
                yield session
            group.cancel_scope.cancel()


def served(mode: str = "native") -> tuple[Context, Agent, list[tuple[ToolExecution, ToolExecutionResult]]]:
    ctx = boot(mode=mode, code_runtime=ScriptedCodeRuntime() if mode != "native" else None)  # type: ignore[arg-type]
    for tool in TOOLS:
        ctx.tools.register(tool)
    seen: list[tuple[ToolExecution, ToolExecutionResult]] = []
    ctx.on("tools/result", lambda execution, result: seen.append((execution, result)))
    return ctx, Agent(ctx, name="served"), seen


def text(result: mt.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, mt.TextContent))


async def test_lists_the_agents_tools_and_runs_calls_through_the_pipeline() -> None:
    ctx, agent, seen = served()
    async with connected(serve_mcp(ctx, agent=agent)) as session:
        listed = (await session.list_tools()).tools
        assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
        assert [tool.name for tool in listed] == [schema.name for schema in assembly.tools]  # the prompt's order
        assert sorted(tool.name for tool in listed) == ["measure", "picture", "shout", "wait_for_cancel"]
        shout = next(tool for tool in listed if tool.name == "shout")
        assert shout.input_schema == {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        result = await session.call_tool("shout", {"text": "hi"})
        assert not result.is_error and text(result) == "HI"
        picture = await session.call_tool("picture", {})
        assert isinstance(picture.content[1], mt.ImageContent) and picture.content[1].mime_type == "image/png"
        invalid = await session.call_tool("shout", {"text": 3})
        assert invalid.is_error and text(invalid) == "Error: invalid arguments: text: expected string, got integer"
        measured = await session.call_tool("measure", {"text": "four"})
        assert measured.structured_content == {"length": 4, "unit": "characters"}
        assert next(tool for tool in listed if tool.name == "measure").output_schema == {
            "type": "object",
            "properties": {"length": {"type": "integer"}, "unit": {"type": "string"}},
            "required": ["length", "unit"],
        }
        assert all(tool.output_schema is None for tool in listed if tool.name != "measure")
        unknown = await session.call_tool("nope", {})
        assert unknown.is_error and text(unknown) == 'Error: unknown tool "nope"'
    assert [(execution.name, execution.agent) for execution, _ in seen] == [
        ("shout", agent), ("picture", agent), ("shout", agent), ("measure", agent), ("nope", agent)
    ]


async def test_policy_applies_to_served_calls() -> None:
    ctx, agent, _ = served()

    async def deny_shout(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return Deny("no shouting") if execution.name == "shout" else await next()

    ctx.on("tools/pre-execute", deny_shout)
    async with connected(serve_mcp(ctx, agent=agent)) as session:
        result = await session.call_tool("shout", {"text": "hi"})
        assert result.is_error and text(result) == "Error: no shouting"


def asking(ctx: Context) -> None:
    async def ask(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("shouting is loud") if execution.name == "shout" else await next()

    ctx.on("tools/pre-execute", ask)


@pytest.mark.parametrize(
    ("action", "expected"),
    [("accept", "HI"), ("decline", 'Error: the user rejected tool "shout"'), ("cancel", 'Error: approval for tool "shout" was cancelled')],
)
async def test_ask_goes_to_the_client_as_elicitation(action: str, expected: str) -> None:
    ctx, agent, _ = served()
    asking(ctx)
    questions: list[str] = []

    async def answer(context: ClientRequestContext, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        assert isinstance(params, mt.ElicitRequestFormParams)
        questions.append(params.message)
        return mt.ElicitResult(action=action)  # type: ignore[arg-type]

    async with connected(serve_mcp(ctx, agent=agent), elicitation=answer) as session:
        result = await session.call_tool("shout", {"text": "hi"})
    assert text(result) == expected
    assert questions == ['Allow tool "shout" (shouting is loud)?\nArguments: {"text":"hi"}']


async def test_an_accepted_elicitation_is_an_approval_so_a_failing_effect_is_not_retried() -> None:
    """Accepting is allowing once: a tool that is not idempotent starts its body at most once after it."""
    from collections.abc import Mapping

    from dsh_tools import JsonValue, Retry, define_tool

    ctx, agent, _ = served()
    runs: list[str] = []

    async def flaky(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[Mapping[str, JsonValue]]:
        runs.append(exec.idempotency_key)
        raise ConnectionError("reset")

    ctx.tools.register(define_tool(name="charge", description="Charge.", parameters={}, execute=flaky, retry=Retry(3)))

    async def ask(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("charges cost money") if execution.name == "charge" else await next()

    async def accept(context: ClientRequestContext, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        return mt.ElicitResult(action="accept")

    ctx.on("tools/pre-execute", ask)
    async with connected(serve_mcp(ctx, agent=agent), elicitation=accept) as session:
        result = await session.call_tool("charge", {})
    assert result.is_error and "not retried" in text(result) and len(runs) == 1


async def test_an_elicitation_never_answered_is_withdrawn_when_the_client_cancels_and_the_call_is_recorded() -> None:
    ctx, agent, seen = served()
    asking(ctx)
    asked, withdrawn, recorded = asyncio.Event(), asyncio.Event(), asyncio.Event()
    ctx.on("tools/result", lambda execution, result: recorded.set())

    async def never(context: ClientRequestContext, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        asked.set()
        try:
            await asyncio.Event().wait()  # a client that never answers
        finally:
            withdrawn.set()  # the server's notifications/cancelled reached the client
        raise AssertionError("unreachable")

    async with connected(serve_mcp(ctx, agent=agent), elicitation=never) as session:
        running = asyncio.ensure_future(session.call_tool("shout", {"text": "hi"}))
        await asked.wait()
        running.cancel()  # the SDK sends notifications/cancelled for the tools/call
        with pytest.raises(asyncio.CancelledError):
            await running
        async with asyncio.timeout(60):  # a safety net: before the fix the call never settled
            await recorded.wait()
            await withdrawn.wait()
        assert (await session.call_tool("measure", {"text": "abc"})).structured_content  # nothing is stuck
    calls = [result for execution, result in seen if execution.name == "shout"]
    assert len(calls) == 1 and calls[0].text == 'Error: approval for tool "shout" was cancelled'


async def test_ask_without_elicitation_support_is_denied_with_the_no_service_text() -> None:
    ctx, agent, _ = served()
    asking(ctx)
    async with connected(serve_mcp(ctx, agent=agent)) as session:
        result = await session.call_tool("shout", {"text": "hi"})
    assert result.is_error and text(result) == "Error: shouting is loud"
    assert ctx.get(APPROVAL) is None


async def test_a_client_cancel_aborts_the_call_and_the_call_is_recorded() -> None:
    ctx, agent, seen = served()
    started = asyncio.Event()

    async def mark(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        started.set()
        return await next()

    ctx.on("tools/pre-execute", mark)
    async with connected(serve_mcp(ctx, agent=agent)) as session:
        running = asyncio.ensure_future(session.call_tool("wait_for_cancel", {}))
        await started.wait()
        running.cancel()  # the SDK sends notifications/cancelled
        with pytest.raises(asyncio.CancelledError):
            await running
        assert (await session.call_tool("shout", {"text": "after"})).content  # the connection is still usable
    calls = [(execution.name, result) for execution, result in seen if execution.name == "wait_for_cancel"]
    assert len(calls) == 1
    _, result = calls[0]  # the body saw the abort and returned; the pipeline marks the call aborted
    assert result.error is not None and result.error.code == "ABORTED"


async def test_code_mode_serves_run_code_with_the_sdk_in_its_description_and_the_instructions() -> None:
    ctx, agent, _ = served("code")
    server = serve_mcp(ctx, agent=agent, name="coder")
    async with connected(server) as session:
        assert session.initialize_result is not None
        instructions = session.initialize_result.instructions or ""
        listed = (await session.list_tools()).tools
    assert [tool.name for tool in listed] == ["run_code"]
    description = listed[0].description or ""
    for text_ in (instructions, description):
        assert "declare const tools" in text_ and "shout(args: {" in text_ and "Upper-case the text." in text_
    assert session.initialize_result.server_info.name == "coder"


async def test_both_directions_our_client_over_our_server() -> None:
    served_ctx, agent, seen = served()
    async with connected(serve_mcp(served_ctx, agent=agent)) as session:
        client_ctx = boot()
        toolset = await mcp_tools(client_ctx, session, prefix="remote")
        assert sorted(toolset.names) == ["remote_measure", "remote_picture", "remote_shout", "remote_wait_for_cancel"]
        result = await client_ctx.tools.execute(ToolExecutionInput(call_id="x", name="remote_shout", arguments={"text": "both"}))
        assert result.text == "BOTH"
        bad = await client_ctx.tools.execute(ToolExecutionInput(call_id="y", name="remote_shout", arguments={"text": 1}))
        assert bad.error is not None and bad.error.code == "INVALID_ARGS"
        typed = await client_ctx.tools.execute(ToolExecutionInput(call_id="z", name="remote_measure", arguments={"text": "four"}))
        assert typed.value == {"length": 4, "unit": "characters"} and typed.text == '{"length":4,"unit":"characters"}'
        await toolset.aclose()
    assert [execution.name for execution, _ in seen] == ["shout", "measure"]  # the invalid call never left the client


async def test_the_mcp_serve_command_serves_a_module_over_stdio() -> None:
    repo = Path(__file__).resolve().parents[2]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "dsh_tools.cli", "mcp-serve", str(Path(__file__).with_name("served_tools.py")), "--name", "cli"],
        env={"PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")])},
    )
    ctx = boot()
    toolset = await mcp_tools(ctx, params, allow=["shout"])
    try:
        assert toolset.names == ("shout",)
        assert toolset.session is not None and toolset.session.server_info is not None
        assert toolset.session.server_info.name == "cli"
        result = await ctx.tools.execute(ToolExecutionInput(call_id="cli", name="shout", arguments={"text": "served"}))
        assert result.text == "SERVED"
    finally:
        await toolset.aclose()


async def test_a_client_that_disconnects_mid_call_still_leaves_one_recorded_result() -> None:
    ctx, agent, seen = served()
    started = asyncio.Event()

    async def mark(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        started.set()
        return await next()

    ctx.on("tools/pre-execute", mark)
    async with connected(serve_mcp(ctx, agent=agent)) as session:
        running = asyncio.ensure_future(session.call_tool("wait_for_cancel", {}))
        await started.wait()
    # the client session is gone and the server stopped under the call
    outcome = (await asyncio.gather(running, return_exceptions=True))[0]
    assert isinstance(outcome, MCPError) and outcome.code == mt.CONNECTION_CLOSED
    assert [execution.name for execution, _ in seen] == ["wait_for_cancel"]
    result = seen[0][1]  # the body saw the abort and returned; the pipeline marks the call aborted
    assert result.error is not None and result.error.code == "ABORTED"


async def test_serve_mcp_over_streamable_http_to_our_own_client() -> None:
    served_ctx, agent, seen = served()
    async with http_server(serve_mcp(served_ctx, agent=agent).streamable_http_app()) as url:
        ctx = boot()
        toolset = await mcp_tools(ctx, StreamableHttpParameters(url=url), allow=["shout", "measure"])
        try:
            assert sorted(toolset.names) == ["measure", "shout"]
            shouted = await ctx.tools.execute(ToolExecutionInput(call_id="h1", name="shout", arguments={"text": "http"}))
            assert shouted.text == "HTTP"
            measured = await ctx.tools.execute(ToolExecutionInput(call_id="h2", name="measure", arguments={"text": "abc"}))
            assert measured.value == {"length": 3, "unit": "characters"}
        finally:
            await toolset.aclose()
    assert [execution.name for execution, _ in seen] == ["shout", "measure"]


async def test_hostile_names_and_arguments_from_a_client_are_error_results() -> None:
    ctx, agent, seen = served()

    async def missing(args: Any, exec: ToolExecution) -> list[Any]:
        name = os.fsdecode(b"notes-\xff.txt")  # an undecodable file name: a lone surrogate (surrogateescape)
        raise FileNotFoundError(f"no such file: {name}")

    ctx.tools.register(define_tool(name="open_file", description="Open a file.", parameters={}, execute=missing))
    async with connected(serve_mcp(ctx, agent=agent)) as session:
        surrogate = await session.call_tool("shout\udc80", {"text": "hi"})
        assert surrogate.is_error and text(surrogate) == 'Error: unknown tool "shout\ufffd"'
        broken = await session.call_tool("open_file", {})
        assert broken.is_error and text(broken) == "Error: no such file: notes-\ufffd.txt"
        too_big = await session.call_tool("shout", {"text": "hi", "n": 2**64})
        assert too_big.is_error and text(too_big) == "Error: invalid tool call: arguments are not JSON (n: integer outside the 64-bit range)"
        deep: Any = "x"
        for _ in range(200):
            deep = [deep]
        nested = await session.call_tool("shout", {"text": deep})
        assert nested.is_error and "nesting deeper than" in text(nested)
        odd = await session.call_tool("", {})
        assert odd.is_error and text(odd) == 'Error: unknown tool ""'
        assert not (await session.call_tool("shout", {"text": "still here"})).is_error
    assert len(seen) == 6


async def test_a_remembered_decision_answers_instead_of_eliciting() -> None:
    """A rule the agent remembered decides its call: the client is not asked (issue 35)."""
    from dsh_tools import APPROVAL, DeferringApprovalService, ToolExecutionInput

    ctx, agent, _ = served()
    asking(ctx)
    ctx.provide(APPROVAL, DeferringApprovalService())
    parked = await ctx.tools.execute(ToolExecutionInput("c1", "shout", {"text": "hi"}, agent))  # not over MCP: it parks
    approval_id = parked.meta_get("approvalId")
    assert isinstance(approval_id, str)
    await ctx.tools.resume(approval_id, "allowed-once", remember="agent", decided_by="ops")
    questions: list[str] = []

    async def answer(context: ClientRequestContext, params: mt.ElicitRequestParams) -> mt.ElicitResult:
        questions.append("asked")
        return mt.ElicitResult(action="decline")

    async with connected(serve_mcp(ctx, agent=agent), elicitation=answer) as session:
        result = await session.call_tool("shout", {"text": "again"})
    assert (text(result), questions) == ("AGAIN", [])
