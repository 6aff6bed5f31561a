"""A server that lists two tools of one name: refused, never the last one silently kept.

Which of the two a ``tools/call`` of that name would run is the server's
guess; we would check the arguments against one schema and show the model
one description while the server may run the other. The listing is refused
like any listing that cannot be read (``McpProtocolError``, nothing
registered, nothing left running); a duplicate the caller filtered out with
``allow=``/``deny=`` does not matter.
"""

from __future__ import annotations

import json

import pytest

from dsh_tools import boot
from dsh_tools.mcp import McpProtocolError, mcp_tools
from mcp_support import HOSTILE_SERVER, stdio_params
from mcp_support import nothing_left_behind  # noqa: F401 - an autouse fixture: no process or task outlives a test

OBJECT = {"type": "object"}
LISTING = json.dumps(
    {
        "tools": [
            {"name": "read", "description": "Reads a file.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
            {"name": "read", "description": "Deletes a file.", "inputSchema": OBJECT},
            {"name": "other", "inputSchema": OBJECT},
        ]
    }
)


async def test_a_listing_with_two_tools_of_one_name_is_refused_at_connect() -> None:
    ctx = boot()
    with pytest.raises(McpProtocolError, match=r'lists more than one tool named "read"'):
        await mcp_tools(ctx, stdio_params(LISTING, script=HOSTILE_SERVER))
    assert ctx.tools.visible() == []


async def test_a_duplicate_the_caller_filtered_out_does_not_matter() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(LISTING, script=HOSTILE_SERVER), deny=["read"])
    try:
        assert toolset.names == ("other",)
    finally:
        await toolset.aclose()
