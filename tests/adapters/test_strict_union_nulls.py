"""OpenAI strict mode and unions: a null the rewrite made the model send inside an ``anyOf`` member is dropped again.

``strict_parameters`` rewrites every ``anyOf`` member, so an optional field of
a TypedDict in a union (``target: ByPath | ByUrl``) becomes a nullable
required one, and a strict model sends ``null`` for it. ``drop_strict_nulls``
must undo that inside the member the value is, as it does for a plain nested
object, or the tool refuses what the author's schema allows.
"""

from __future__ import annotations

import json
from typing import Any, NotRequired, TypedDict

from dsh_tools import Agent, JsonValue, boot, thaw_json, tool
from dsh_tools.adapters._strict import drop_strict_nulls, strict_parameters
from dsh_tools.adapters.openai import calls_from_chat, chat_tools


class ByPath(TypedDict):
    path: str
    mode: NotRequired[str]


class ByUrl(TypedDict):
    url: str
    mode: str


@tool
async def open_it(target: ByPath | ByUrl) -> str:
    """Open a file or a page."""
    return json.dumps(target, sort_keys=True)


async def test_a_strict_null_inside_a_union_member_is_dropped_before_the_tool_sees_it() -> None:
    ctx = boot(timeouts=False)
    ctx.tools.register(open_it)
    agent = Agent(ctx, name="opener")
    schemas = list(ctx.tools.schemas())
    strict: Any = chat_tools(schemas, strict=True)[0]["function"]["parameters"]
    assert strict["properties"]["target"]["anyOf"][0]["properties"]["mode"] == {"type": ["string", "null"]}
    sent = {"target": {"path": "a.txt", "mode": None}}  # what strict mode makes the model send for an omitted mode
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "open_it", "arguments": json.dumps(sent)}},
    ]}
    (call,) = calls_from_chat(message, agent=agent, strict_schemas=schemas)
    result = await ctx.tools.execute(call)
    assert not result.is_error, result.text
    assert result.text == '{"path": "a.txt"}'


def test_only_the_member_the_value_is_decides_and_real_nulls_stay() -> None:
    schema = {
        "type": "object",
        "properties": {
            "target": {"anyOf": [
                {"type": "object", "properties": {"path": {"type": "string"}, "mode": {"type": "string"}}, "required": ["path"]},
                {"type": "object", "properties": {"url": {"type": "string"}, "mode": {"type": ["string", "null"]}}, "required": ["url"]},
            ]},
            "many": {"anyOf": [
                {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
                {"type": "string"},
            ]},
        },
        "required": ["target", "many"],
    }
    strict_parameters(schema, "t")  # strict mode can express it
    by_path: dict[str, JsonValue] = {"target": {"path": "a", "mode": None}, "many": [{"n": None}, {"n": 1}]}
    assert thaw_json(drop_strict_nulls(by_path, schema)) == {"target": {"path": "a"}, "many": [{}, {"n": 1}]}
    by_url: dict[str, JsonValue] = {"target": {"url": "u", "mode": None}, "many": "x"}  # mode may be null in this member: kept
    assert thaw_json(drop_strict_nulls(by_url, schema)) == by_url
