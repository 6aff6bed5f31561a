"""A hostile MCP server writing JSON-RPC by hand: results and listings the SDK server would refuse to send.

Its tools answer with the raw JSON text in ``RESULTS`` (``NaN`` and integers
beyond 64 bits included, which Python's and pydantic's JSON readers accept);
``huge`` (``{"bytes": n}``) answers with one line holding n bytes of text, and
``deep`` with structured content nested deeper than pydantic will read.
``argv[1]``, when given, is the raw ``tools/list`` result to answer with.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from by_hand import reply_raw, serve

OBJECT = {"type": "object"}
BACKTRACKING_OUT = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}
"""A pattern Python's ``re`` backtracks on exponentially (2**n steps for n ``a`` and a mismatch)."""
NUMBER_OUT = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
RESULTS = {
    "unknown_block": '{"content": [{"type": "video", "url": "file:///v.mp4"}]}',
    "error_without_content": '{"content": [], "isError": true}',
    "nan_value": '{"content": [], "structuredContent": {"x": NaN}}',
    "huge_value": '{"content": [], "structuredContent": {"x": 123456789012345678901234567890}}',
    "list_value": '{"content": [], "structuredContent": [1, 2]}',
    "no_value": '{"content": [{"type": "text", "text": "forgot"}]}',
    "bad_image": '{"content": [{"type": "text", "text": "a chart"}, {"type": "image", "data": "not base64!", "mimeType": "image/png"}]}',
    "backtracking": '{"content": [], "structuredContent": {"s": "' + "a" * 26 + '!"}}',
    "bad_image_blob": '{"content": [{"type": "resource", "resource": {"uri": "file:///c.png", "mimeType": "image/png", "blob": "%%%"}}]}',
}
TOOLS = [
    {"name": "unknown_block", "inputSchema": OBJECT},
    {"name": "error_without_content", "inputSchema": OBJECT},
    {"name": "nan_value", "inputSchema": OBJECT, "outputSchema": NUMBER_OUT},
    {"name": "huge_value", "inputSchema": OBJECT, "outputSchema": NUMBER_OUT},
    {"name": "list_value", "inputSchema": OBJECT},
    {"name": "no_value", "inputSchema": OBJECT, "outputSchema": NUMBER_OUT},
    {"name": "huge", "inputSchema": OBJECT},
    {"name": "deep", "inputSchema": OBJECT},
    {"name": "bad_image", "inputSchema": OBJECT},
    {"name": "backtracking", "inputSchema": OBJECT, "outputSchema": BACKTRACKING_OUT},
    {"name": "bad_image_blob", "inputSchema": OBJECT},
]
DEPTH = 10_000
"""Nesting past pydantic's JSON recursion limit (and Python's ``json`` module's)."""


def deeply_nested() -> str:
    return "[" * DEPTH + "]" * DEPTH


def result(name: str, arguments: dict[str, Any]) -> str:
    if name == "huge":
        return json.dumps({"content": [{"type": "text", "text": "x" * int(arguments["bytes"])}]})
    if name == "deep":
        return f'{{"content": [], "structuredContent": {{"x": {deeply_nested()}}}}}'
    return RESULTS.get(name, '{"content": []}')


def main() -> None:
    listing = sys.argv[1] if len(sys.argv) > 1 else json.dumps({"tools": TOOLS})

    def answer(method: str, message_id: object, message: dict[str, Any]) -> None:
        if method == "tools/list":
            reply_raw(message_id, listing)
        elif method == "tools/call":
            params = message["params"]
            reply_raw(message_id, result(params["name"], params.get("arguments") or {}))
        else:
            reply_raw(message_id, "{}")

    serve("hostile", answer)


if __name__ == "__main__":
    main()
