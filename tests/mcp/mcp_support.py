"""Shared helpers of the MCP suites: the test servers, calls, and leak checks."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import uvicorn
from mcp.client.stdio import StdioServerParameters

from dsh_tools import Context, JsonValue, ToolExecutionInput, ToolExecutionResult

HERE = Path(__file__).parent
PNG_PREFIX = "iVBORw0KGgo"
TEST_SERVER = HERE / "mcp_test_server.py"
RAW_SERVER = HERE / "raw_server.py"


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


def child_pids() -> set[int]:
    """Live (non-zombie) child processes of this process, from /proc."""
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids.update(int(pid) for pid in (task / "children").read_text().split())
        except OSError:
            continue
    live = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(pid)
    return live


def our_tasks() -> list[asyncio.Task[Any]]:
    """Pending tasks other than the current one that run dsh_tools or mcp client code."""
    current = asyncio.current_task()
    found = []
    for task in asyncio.all_tasks():
        if task is current or task.done():
            continue
        coro = task.get_coro()
        filename = getattr(getattr(coro, "cr_code", None), "co_filename", "")
        if "dsh_tools" in filename or "/mcp/client/" in filename or "/mcp/shared/" in filename:
            found.append(task)
    return found


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
