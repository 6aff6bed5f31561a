"""A hostile MCP server speaking JSON-RPC by hand, for what the SDK server refuses to send.

It answers the handshake and ``tools/list`` correctly, then replies to every
``tools/call`` with a result whose content is not MCP (a text block without
``text``), after first writing a line that is not JSON at all.
"""

from __future__ import annotations

import json
import sys


def reply(message_id: object, result: object) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue  # a notification
        if method == "initialize":
            reply(message_id, {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "0"},
            })
        elif method == "tools/list":
            reply(message_id, {"tools": [{"name": "bad", "inputSchema": {"type": "object"}}]})
        elif method == "tools/call":
            sys.stdout.write("this is not JSON\n")
            reply(message_id, {"content": [{"type": "text"}, {"type": "image", "data": 5}]})
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "error": {"code": -32601, "message": "no"}}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
