"""Shared helpers of the MCP suites: the test servers, calls, and leak checks."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from mcp.client.stdio import StdioServerParameters

from dsh_tools import Context, JsonValue, ToolExecutionInput, ToolExecutionResult
from process_checks import child_pids, our_tasks

__all__ = ["call", "child_pids", "code", "http_server", "our_tasks", "stdio_params"]

HERE = Path(__file__).parent
PNG_PREFIX = "iVBORw0KGgo"
TEST_SERVER = HERE / "mcp_test_server.py"
RAW_SERVER = HERE / "raw_server.py"
HOSTILE_SERVER = HERE / "hostile_server.py"
MUTE_SERVER = HERE / "mute_server.py"
SHIFTING_SERVER = HERE / "shifting_server.py"


def stdio_params(*args: str, script: Path = TEST_SERVER) -> StdioServerParameters:
    """Parameters that start ``script`` (the SDK test server by default) with this interpreter."""
    return StdioServerParameters(command=sys.executable, args=[str(script), *args])


async def call(ctx: Context, name: str, arguments: JsonValue = None, **extra: Any) -> ToolExecutionResult:
    """One call through ``ctx``'s pipeline."""
    return await ctx.tools.execute(
        ToolExecutionInput(call_id=extra.pop("call_id", "c1"), name=name, arguments={} if arguments is None else arguments, **extra)
    )


def code(result: ToolExecutionResult) -> str | None:
    return None if result.error is None else result.error.code


@asynccontextmanager
async def http_server(app: Any) -> AsyncIterator[str]:
    """Serve an ASGI app on 127.0.0.1 at an ephemeral port for the block; yields the MCP URL.

    The socket is bound and listening before the server task starts, so a
    client can connect at once (its connection waits in the backlog); leaving
    the block stops the server and waits for it, bounded.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        try:
            await asyncio.wait_for(task, timeout=10)
        finally:
            sock.close()


@pytest.fixture(autouse=True)
async def nothing_left_behind() -> AsyncIterator[None]:
    """No server process and no client task outlives a test (autouse in every file that imports it)."""
    before = child_pids()
    yield
    assert child_pids() <= before, "a server process outlived its toolset"
    assert our_tasks() == [], "a client task outlived its toolset"
