"""The part every hand-written MCP test server shares: read JSON-RPC lines, answer the handshake.

The servers that send what the SDK's own server refuses to (``raw_server.py``,
``hostile_server.py``) run as scripts, so Python puts this directory on their
path and they import this module.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

Answer = Callable[[str, object, dict[str, Any]], None]
"""``answer(method, message_id, message)`` for every request after ``initialize``."""


def write_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def reply_raw(message_id: object, result: str) -> None:
    """A result given as raw JSON text (so it may hold what ``json.dumps`` would not write)."""
    write_line(f'{{"jsonrpc": "2.0", "id": {json.dumps(message_id)}, "result": {result}}}')


def serve(name: str, answer: Answer) -> None:
    """Answer ``initialize`` as server ``name``, skip notifications, hand every other request to ``answer``."""
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue  # a notification
        if method == "initialize":
            handshake = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "0"},
            }
            reply_raw(message_id, json.dumps(handshake))
        else:
            answer(method, message_id, message)
