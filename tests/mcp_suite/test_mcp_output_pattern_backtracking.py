"""A server's ``outputSchema`` with a backtracking ``pattern`` must not stall the client's event loop.

The schema is outside our subset (``pattern``), so the tool is a content
tool and we do not check its structured content; the SDK's ``call_tool``
still does, with ``jsonschema`` and Python's ``re``, on the event loop. The
server chooses both the pattern (``^(a+)+$``) and the string (26 ``a`` and a
``!``: about 2**26 steps, seconds; 40 would be hours), so it can stop every
task of the host: other calls, the timeout policy's deadline (``timeout_ms``
cannot fire while the loop is blocked), other servers' connections.

Expected: the loop keeps running (a heartbeat task is never starved for a
second) and the call settles ``TOOL_TIMEOUT`` near its budget. Known
failure, not fixed here: avoiding it means not letting the SDK validate a
hostile server's schema (calling ``tools/call`` without ``call_tool``'s
re-validation, or dropping the schemas the SDK cached), a change of what
``MCP_PROTOCOL_ERROR`` covers for schemas outside the subset.
"""

from __future__ import annotations

import asyncio

import pytest

from dsh_tools import boot
from dsh_tools.mcp import mcp_tools
from mcp_support import HOSTILE_SERVER, call, code, stdio_params
from mcp_support import nothing_left_behind  # noqa: F401 - an autouse fixture: no process or task outlives a test

STARVED_S = 1.0
"""A heartbeat gap this long means the loop was blocked (the heartbeat asks for 0.02 s)."""


@pytest.mark.xfail(strict=True, reason="the SDK's call_tool checks the server's outputSchema pattern on the event loop")
async def test_a_backtracking_output_pattern_does_not_block_the_event_loop() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=HOSTILE_SERVER), allow=["backtracking"], timeout_ms=200)
    loop = asyncio.get_running_loop()
    gaps: list[float] = []

    async def heartbeat() -> None:
        last = loop.time()
        while True:
            await asyncio.sleep(0.02)
            now = loop.time()
            gaps.append(now - last)
            last = now

    beating = asyncio.ensure_future(heartbeat())
    try:
        result = await call(ctx, "backtracking")
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)
        await toolset.aclose()
    assert code(result) == "TOOL_TIMEOUT"
    assert max(gaps, default=0.0) < STARVED_S, f"the event loop was blocked for {max(gaps):.1f} s"
