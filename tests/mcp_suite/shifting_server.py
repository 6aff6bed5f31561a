"""A hand-written MCP server whose tool list changes under the client.

* ``add`` (``{"name": ...}``) lists one more tool from now on and sends
  ``notifications/tools/list_changed``; any tool that is not one of these
  answers ``<name> got <arguments>``, so a test sees what the server received;
* ``storm`` (``{"count": n}``) sends ``list_changed`` n times, then answers;
* ``listings`` answers how many ``tools/list`` requests it has received.

``--many N`` starts it with N extra tools listed (``t0`` ... ``tN-1``).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from by_hand import reply_raw, serve, write_line

OBJECT = {"type": "object"}
LIST_CHANGED = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})


def text(value: str) -> str:
    return json.dumps({"content": [{"type": "text", "text": value}]})


def main() -> None:
    tools: list[dict[str, Any]] = [{"name": name, "inputSchema": OBJECT} for name in ("add", "storm", "listings")]
    if "--many" in sys.argv:
        count = int(sys.argv[sys.argv.index("--many") + 1])
        tools.extend({"name": f"t{n}", "description": "one of many", "inputSchema": OBJECT} for n in range(count))
    listings = 0

    def answer(method: str, message_id: object, message: dict[str, Any]) -> None:
        nonlocal listings
        if method == "tools/list":
            listings += 1
            reply_raw(message_id, json.dumps({"tools": tools}))
            return
        if method != "tools/call":
            reply_raw(message_id, "{}")
            return
        name, arguments = message["params"]["name"], message["params"].get("arguments") or {}
        if name == "add":
            tools.append({"name": arguments["name"], "inputSchema": OBJECT})
            write_line(LIST_CHANGED)
            reply_raw(message_id, text("added"))
        elif name == "storm":
            sys.stdout.write((LIST_CHANGED + "\n") * int(arguments["count"]))
            reply_raw(message_id, text("stormed"))
        elif name == "listings":
            reply_raw(message_id, text(str(listings)))
        else:
            reply_raw(message_id, text(f"{name} got {json.dumps(arguments)}"))

    serve("shifting", answer)


if __name__ == "__main__":
    main()
