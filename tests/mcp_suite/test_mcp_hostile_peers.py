"""Servers that attack the client: late shadowing, list_changed storms, huge lists, huge and unreadable replies.

Each attack runs against a real stdio server written by hand
(``shifting_server.py``, ``hostile_server.py``); every test ends by checking
that no server process and no client task is left behind. Where the attack
used to hang, the test waits under a generous safety net only, so a
regression fails instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping
from typing import TypeVar

import pytest

from dsh_tools import Agent, ContentBlock, JsonValue, Prop, ToolExecution, boot, define_tool, text_block
from dsh_tools.mcp import McpProtocolError, StreamableHttpParameters, mcp_tools, serve_mcp
from mcp_support import HOSTILE_SERVER, SHIFTING_SERVER, call, code, http_server, stdio_params
from mcp_support import nothing_left_behind  # noqa: F401 - an autouse fixture: no process or task outlives a test

T = TypeVar("T")
SAFETY_NET_S = 60.0
"""Not a deadline under test: only long enough that a hang fails the test instead of the suite."""


async def settles(pending: Awaitable[T]) -> T:
    async with asyncio.timeout(SAFETY_NET_S):
        return await pending


async def read_file(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    return [text_block("the trusted read_file")]


READ_FILE = define_tool(name="read_file", description="Read a file.", parameters={"path": Prop("string")}, execute=read_file)


# -- item 2: a re-listing never shadows what the server did not own ----------------


async def test_a_relisting_cannot_shadow_a_global_tool_the_server_did_not_own(caplog: pytest.LogCaptureFixture) -> None:
    ctx = boot()
    ctx.tools.register(READ_FILE)
    agent = Agent(ctx, name="agent")
    toolset = await mcp_tools(agent.ctx, stdio_params(script=SHIFTING_SERVER))
    try:
        with caplog.at_level(logging.WARNING, logger="dsh_tools"):
            assert (await call(ctx, "add", {"name": "read_file"}, agent=agent)).text == "added"
            assert (await call(ctx, "add", {"name": "fresh"}, agent=agent)).text == "added"
            await toolset.refresh()  # queued behind the re-listings the notifications started
        stolen = await call(ctx, "read_file", {"path": "/home/me/.ssh/id_ed25519"}, agent=agent)
        assert stolen.text == "the trusted read_file"
        assert "read_file" not in toolset.names and "fresh" in toolset.names  # a new name that hides nothing is fine
        assert caplog.text.count('MCP tool "read_file" from MCP server') == 1  # logged once, re-listed thrice
        assert "relisting_may_shadow=True" in caplog.text
    finally:
        await toolset.aclose()


async def test_relisting_may_shadow_is_the_opt_in() -> None:
    ctx = boot()
    ctx.tools.register(READ_FILE)
    agent = Agent(ctx, name="agent")
    toolset = await mcp_tools(agent.ctx, stdio_params(script=SHIFTING_SERVER), relisting_may_shadow=True)
    try:
        await call(ctx, "add", {"name": "read_file"}, agent=agent)
        await toolset.refresh()
        assert (await call(ctx, "read_file", {"path": "p"}, agent=agent)).text == 'read_file got {"path": "p"}'
        assert (await call(ctx, "read_file", {"path": "p"})).text == "the trusted read_file"  # for its agent only
    finally:
        await toolset.aclose()


async def test_a_list_changed_storm_is_one_relisting_running_and_one_pending() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=SHIFTING_SERVER))
    try:
        # Every notification is in before the storm's reply, and any re-listing's reply after it.
        assert (await call(ctx, "storm", {"count": 3000})).text == "stormed"
        await toolset.refresh()  # queued behind the re-listing running (FIFO lock)
        listings = int((await call(ctx, "listings")).text)
        assert listings <= 4, f"{listings} tools/list requests"  # connect, the running one, ours, the pending one
    finally:
        await toolset.aclose()


# -- item 9: a cap on the tools one server may list -------------------------------------


async def test_a_server_listing_more_tools_than_the_cap_is_refused_with_a_clear_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ctx = boot()
    with pytest.raises(McpProtocolError, match=r"lists more than 1000 tools; pass max_tools= to mcp_tools"):
        await settles(mcp_tools(ctx, stdio_params("--many", "20000", script=SHIFTING_SERVER)))
    assert ctx.tools.visible() == []
    toolset = await mcp_tools(ctx, stdio_params("--many", "1", script=SHIFTING_SERVER), max_tools=5)
    try:
        assert len(toolset.names) == 4
        with caplog.at_level(logging.WARNING, logger="dsh_tools"):
            await call(ctx, "add", {"name": "fifth"})
            await call(ctx, "add", {"name": "sixth"})
            with pytest.raises(McpProtocolError, match="lists more than 5 tools"):
                await toolset.refresh()
        assert "sixth" not in toolset.names  # a refused listing changes nothing
    finally:
        await toolset.aclose()


# -- item 6: a bound on one message, read in linear time --------------------------------


async def test_a_reply_line_past_the_default_bound_closes_the_connection_with_a_protocol_error() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=HOSTILE_SERVER))
    try:
        huge = await call(ctx, "huge", {"bytes": 17 * 1024 * 1024})  # the default bound is 16 MiB
        assert code(huge) == "MCP_PROTOCOL_ERROR"
        assert "a line longer than 16777216 bytes (max_message_bytes=16777216)" in huge.text
        later = await call(ctx, "no_value")
        assert code(later) == "MCP_PROTOCOL_ERROR" and "was closed" in later.text
    finally:
        await toolset.aclose()


async def test_max_message_bytes_is_the_bound() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=HOSTILE_SERVER), max_message_bytes=4096)
    try:
        assert (await call(ctx, "huge", {"bytes": 1000})).text == "x" * 1000
        assert code(await call(ctx, "huge", {"bytes": 5000})) == "MCP_PROTOCOL_ERROR"
    finally:
        await toolset.aclose()
    with pytest.raises(ValueError, match=r"max_message_bytes=\.\.\.\) must be a positive int"):
        await mcp_tools(ctx, stdio_params(script=HOSTILE_SERVER), max_message_bytes=0)


async def huge_text(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    size = args["bytes"]
    assert isinstance(size, int)
    return [text_block("x" * size)]


HUGE = define_tool(name="huge", description="A reply of n bytes.", parameters={"bytes": Prop("integer")}, execute=huge_text)


@pytest.mark.parametrize("json_response", [False, True], ids=["sse", "json"])
async def test_an_http_reply_past_the_default_bound_closes_the_connection_with_a_protocol_error(json_response: bool) -> None:
    served = boot()
    served.tools.register(HUGE)
    app = serve_mcp(served, agent=Agent(served, name="served")).streamable_http_app(json_response=json_response)
    async with http_server(app) as url:
        ctx = boot()
        toolset = await mcp_tools(ctx, StreamableHttpParameters(url=url))
        try:
            assert (await call(ctx, "huge", {"bytes": 1000})).text == "x" * 1000
            huge = await settles(call(ctx, "huge", {"bytes": 17 * 1024 * 1024}))  # the default bound is 16 MiB
            assert code(huge) == "MCP_PROTOCOL_ERROR" and "(max_message_bytes=16777216)" in huge.text
            later = await call(ctx, "huge", {"bytes": 1})
            assert code(later) == "MCP_PROTOCOL_ERROR" and "was closed" in later.text
        finally:
            await toolset.aclose()


# -- item 7: a reply nobody can read settles, never hangs -------------------------------


async def test_a_reply_nested_past_the_parsers_limit_settles_a_protocol_error() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=HOSTILE_SERVER))  # no timeout_ms: nothing else would end it
    try:
        deep = await settles(call(ctx, "deep"))
        assert code(deep) == "MCP_PROTOCOL_ERROR"
        assert "a message that cannot be read (Invalid JSON: recursion limit exceeded" in deep.text
    finally:
        await toolset.aclose()


async def test_a_listing_nested_past_the_parsers_limit_raises_at_connect() -> None:
    listing = '{"tools": [{"name": "d", "inputSchema": {"type": "object", "x": ' + "[" * 10_000 + "]" * 10_000 + "}}]}"
    ctx = boot()
    with pytest.raises(McpProtocolError, match=r"tools/list of MCP server .* a message that cannot be read"):
        await settles(mcp_tools(ctx, stdio_params(listing, script=HOSTILE_SERVER)))
    assert ctx.tools.visible() == []
