"""A server's image whose data is not base64: a protocol error for the call, never an image block.

MCP carries image data (``ImageContent.data``, an image resource's
``blob``) as base64, and the SDK does not check it. Passed on as an
``image_block``, the garbage would reach the model API with the rest of
the conversation, which refuses the whole request, on this turn and every
later one that still carries the result. So the call settles
``MCP_PROTOCOL_ERROR`` naming the block, as for any content the SDK cannot
read; a valid image still maps one to one (``test_mcp_client.py``).
"""

from __future__ import annotations



from dsh_tools import boot
from dsh_tools.mcp import mcp_tools
from mcp_support import HOSTILE_SERVER, call, code, stdio_params
from mcp_support import nothing_left_behind  # noqa: F401 - an autouse fixture: no process or task outlives a test


async def test_image_data_that_is_not_base64_is_a_protocol_error_naming_the_block() -> None:
    ctx = boot()
    toolset = await mcp_tools(ctx, stdio_params(script=HOSTILE_SERVER), allow=["bad_image", "bad_image_blob"])
    try:
        image = await call(ctx, "bad_image")
        assert code(image) == "MCP_PROTOCOL_ERROR"
        assert image.text == 'Error: MCP tool "bad_image": the server sent a malformed result: content.1: image data is not base64'
        assert not any(block.get("type") == "image" for block in image.content)
        blob = await call(ctx, "bad_image_blob")
        assert code(blob) == "MCP_PROTOCOL_ERROR" and "content.0: image data is not base64" in blob.text
    finally:
        await toolset.aclose()
