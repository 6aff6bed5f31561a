"""A scripted stand-in for a model API, so the loop examples run offline (no key, no network).

``python -m examples.openai_loop`` and ``python -m examples.anthropic_loop``
hand the real SDK client an HTTP transport (``httpx2``, the SDKs' client) that answers each request
with the next body of a script: a reply asking for a tool, then a final
answer. Everything between (the SDK's request building and parsing, the
adapters, the registry's pipeline) is the real thing; only the model is
played from a script. Pass a real client to the loops to talk to a model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import httpx2 as httpx

from dsh_tools import ToolExecution, define_tool, text_block
from dsh_tools.definitions import DefinedTool, Prop
from dsh_tools.json_values import JsonValue

__all__ = ["GREET", "scripted_http_client"]


def scripted_http_client(replies: Sequence[Mapping[str, Any]]) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` answering each request with the next reply (500 once the script ends)."""
    script = list(replies)

    def answer(request: httpx.Request) -> httpx.Response:
        if not script:
            return httpx.Response(500, json={"error": {"message": "the script has no more replies"}})
        return httpx.Response(200, content=json.dumps(script.pop(0)).encode(), headers={"content-type": "application/json"})

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


async def _greet(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[Any]:
    return [text_block(f"Hello, {args['name']}!")]


GREET: DefinedTool[Mapping[str, JsonValue]] = define_tool(
    name="greet",
    description="Greet someone by name.",
    parameters={"name": Prop("string", required=True, description="Who to greet")},
    execute=_greet,
)
"""The one tool the scripted conversations use."""
