"""A hostile MCP server speaking JSON-RPC by hand, for what the SDK server refuses to send.

It answers the handshake and ``tools/list`` correctly, then replies to every
``tools/call`` with a result whose content is not MCP (a text block without
``text``), after first writing a line that is not JSON at all.
"""

from __future__ import annotations

import json
from typing import Any

from by_hand import reply_raw, serve, write_line


def answer(method: str, message_id: object, message: dict[str, Any]) -> None:
    if method == "tools/list":
        reply_raw(message_id, json.dumps({"tools": [{"name": "bad", "inputSchema": {"type": "object"}}]}))
    elif method == "tools/call":
        write_line("this is not JSON")
        reply_raw(message_id, json.dumps({"content": [{"type": "text"}, {"type": "image", "data": 5}]}))
    else:
        error = {"code": -32601, "message": "no"}
        write_line(json.dumps({"jsonrpc": "2.0", "id": message_id, "error": error}))


if __name__ == "__main__":
    serve("raw", answer)
