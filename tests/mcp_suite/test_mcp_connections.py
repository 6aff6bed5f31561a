"""Connections the toolset opens itself: stdio processes and streamable HTTP, faults and teardown.

Every test ends by checking that no server process and no client task is
left behind.
"""

from __future__ import annotations

import asyncio
import sys

import pytest
from mcp.client.stdio import StdioServerParameters

from dsh_tools import ExecuteNext, ToolExecution, ToolExecutionResult, boot
from dsh_tools.mcp import McpConnectionError, McpProtocolError, StreamableHttpParameters, mcp_tools
from mcp_support import HOSTILE_SERVER, MUTE_SERVER, RAW_SERVER, call, code, http_server, stdio_params
from mcp_support import nothing_left_behind  # noqa: F401 - an autouse fixture: no process or task outlives a test
from mcp_test_server import build_server


def changed_event(ctx: object) -> asyncio.Event:
    event = asyncio.Event()
    ctx.on("tools/change", event.set)  # type: ignore[attr-defined]
    return event


async def test_list_changed_reregisters_and_dispose_reaps_the_process() -> None:
    ctx = boot()
    plugin = ctx.fork()
    toolset = await mcp_tools(plugin, stdio_params())
    assert "extra" not in toolset.names
    changed = changed_event(ctx)
    assert (await call(ctx, "grow")).text == "grown"
    await changed.wait()
    assert toolset.names[-1] == "extra"
    assert (await call(ctx, "extra")).text == "extra"
    await plugin.dispose()
    assert toolset.closed and ctx.tools.visible() == []
    await toolset.aclose()  # waits until the process is reaped


async def test_a_server_that_dies_mid_call_is_a_connection_error_for_this_and_later_calls() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params())
    died = await call(ctx, "die")
    assert code(died) == "MCP_CONNECTION_LOST"
    assert "was lost" in died.text
    later = await call(ctx, "echo", {"text": "x"})
    assert code(later) == "MCP_CONNECTION_LOST"
    await toolset.aclose()


async def test_malformed_content_from_a_hostile_server_is_a_protocol_error() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=RAW_SERVER))
    result = await call(ctx, "bad")
    assert code(result) == "MCP_PROTOCOL_ERROR"
    assert "malformed result" in result.text and "more problems" in result.text
    await toolset.aclose()


async def test_a_server_that_cannot_start_raises_at_connect_and_leaves_nothing() -> None:
    ctx = boot()
    with pytest.raises(McpConnectionError, match="cannot connect to MCP server `/nonexistent/server`"):
        await mcp_tools(ctx, stdio_params().model_copy(update={"command": "/nonexistent/server", "args": []}))
    assert ctx.tools.visible() == []


async def test_run_code_clash_in_code_mode_is_refused_until_prefixed() -> None:
    from dsh_tools.testing import ScriptedCodeRuntime

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime())
    async with http_server(build_server(with_run_code=True).streamable_http_app()) as url:
        with pytest.raises(ValueError, match=r'MCP tool "run_code" .*reserved Code Mode transport.*prefix='):
            await mcp_tools(ctx, StreamableHttpParameters(url=url))
        assert [t.name for t in ctx.tools.end_capabilities()] == []
        toolset = await mcp_tools(ctx, StreamableHttpParameters(url=url), prefix="srv", allow=["run_code"])
        assert toolset.names == ("srv_run_code",)
        await toolset.aclose()


async def test_streamable_http_server_round_trip_list_changed_and_timeout() -> None:
    async with http_server(build_server().streamable_http_app()) as url:
        ctx = boot()
        toolset = await mcp_tools(ctx, StreamableHttpParameters(url=url), timeout_ms=1_000)
        assert (await call(ctx, "echo", {"text": "over http"})).text == "over http"
        assert code(await call(ctx, "echo", {"text": 5})) == "INVALID_ARGS"
        changed = changed_event(ctx)
        await call(ctx, "grow")
        await changed.wait()
        assert "extra" in toolset.names
        running = asyncio.ensure_future(call(ctx, "hang"))
        assert (await call(ctx, "hang_started")).text == "yes"
        assert code(await running) == "TOOL_TIMEOUT"
        assert (await call(ctx, "cancelled_seen")).text == "yes"
        await toolset.aclose()


async def test_an_http_server_that_goes_away_mid_call_is_an_error_result() -> None:
    ctx = boot()
    async with http_server(build_server().streamable_http_app()) as url:
        toolset = await mcp_tools(ctx, StreamableHttpParameters(url=url, timeout=2, sse_read_timeout=2), timeout_ms=5_000)
        started = asyncio.Event()

        async def mark(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
            started.set()
            return await next()

        ctx.on("tools/execute", mark)
        running = asyncio.ensure_future(call(ctx, "hang"))
        assert (await call(ctx, "hang_started")).text == "yes"
    result = await running  # the server stopped under the call
    assert result.is_error and code(result) is not None
    await toolset.aclose()


async def test_hostile_results_are_error_results_naming_the_problem() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=HOSTILE_SERVER))
    try:
        unknown = await call(ctx, "unknown_block")
        assert code(unknown) == "MCP_PROTOCOL_ERROR" and "malformed result: content.0" in unknown.text
        empty = await call(ctx, "error_without_content")
        assert code(empty) == "MCP_TOOL_ERROR" and empty.text == 'Error: MCP tool "error_without_content" reported an error'
        nan = await call(ctx, "nan_value")
        assert code(nan) == "OUTPUT_INVALID" and nan.value is None and "not JSON: x: non-finite number" in nan.text
        huge = await call(ctx, "huge_value")
        assert code(huge) == "OUTPUT_INVALID" and "not JSON: x: integer outside the 64-bit range" in huge.text
        listed = await call(ctx, "list_value")
        assert code(listed) == "MCP_PROTOCOL_ERROR" and "structuredContent" in listed.text
        missing = await call(ctx, "no_value")
        assert code(missing) == "MCP_PROTOCOL_ERROR" and "did not return structured content" in missing.text
    finally:
        await toolset.aclose()


async def test_a_listed_schema_that_is_not_json_is_refused_naming_the_tool() -> None:
    too_big = '{"tools": [{"name": "big", "inputSchema": {"type": "object", "properties": {"n": {"maximum": 123456789012345678901234567890}}}}]}'
    with pytest.raises(ValueError, match='MCP tool "big" .* cannot be registered as "big": .*integer outside the 64-bit range'):
        await mcp_tools(boot(), stdio_params(too_big, script=HOSTILE_SERVER))


async def test_a_listing_the_sdk_cannot_read_is_a_protocol_error_at_connect() -> None:
    """Not pydantic's own ValidationError: one of ours, naming the server and the first problem."""
    listing = '{"tools": [{"name": "s", "inputSchema": {"type": "string"}}]}'
    with pytest.raises(McpProtocolError, match=r"tools/list of MCP server .*: the server sent a malformed result: tools\.0\.inputSchema\.type: "):
        await mcp_tools(boot(), stdio_params(listing, script=HOSTILE_SERVER))


async def test_connecting_to_a_server_that_never_answers_ends_with_the_callers_timeout() -> None:
    """Connecting has no deadline of its own (docs/mcp.md): the caller's ``asyncio.timeout``
    ends it, and nothing stays registered or running (the autouse fixture checks the process)."""
    silent = StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.stdin.read()"])
    ctx = boot()
    await connect_under_a_deadline(ctx, silent)  # the server never answers initialize
    assert ctx.tools.visible() == []


async def connect_under_a_deadline(ctx: object, params: StdioServerParameters) -> None:
    """``mcp_tools`` under a short ``asyncio.timeout``, which must end it with ``TimeoutError``.

    The deadline is the behaviour under test; the outer wait is only a safety
    net, so that a connection ignoring its cancellation fails the test instead
    of hanging it.
    """

    async def connect() -> None:
        async with asyncio.timeout(0.5):
            await mcp_tools(ctx, params)  # type: ignore[arg-type]

    attempt = asyncio.ensure_future(connect())
    done, _ = await asyncio.wait({attempt}, timeout=15)
    if not done:
        attempt.cancel()
        pytest.fail("connecting ignored the caller's deadline")
    with pytest.raises(TimeoutError):
        attempt.result()


async def test_a_server_that_never_lists_its_tools_ends_with_the_callers_timeout() -> None:
    ctx = boot()
    await connect_under_a_deadline(ctx, stdio_params(script=MUTE_SERVER))  # initialize is answered, tools/list never
    assert ctx.tools.visible() == []
