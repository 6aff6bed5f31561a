"""The OpenAI-style loop example against a scripted model (no network)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from dsh_tools import (
    Accept,
    Agent,
    HookContext,
    PluginSource,
    PostNext,
    PostToolDecision,
    ToolExecution,
    ToolExecutionResult,
    boot,
    text_block,
)
from dsh_tools.adapters.openai import tool_call_inputs
from examples.openai_loop import Message, chat_loop
from dsh_tools.demo.tools.text import make_tools


def scripted(*replies: Message) -> Any:
    seen: list[tuple[list[Message], list[dict[str, Any]]]] = []

    async def model(messages: list[Message], tools: list[dict[str, Any]]) -> Message:
        seen.append((list(messages), tools))
        return replies[len(seen) - 1]

    model.seen = seen  # type: ignore[attr-defined]
    return model


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


async def test_a_tool_round_trip_with_a_validation_error_and_context(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha beta gamma\n", encoding="utf-8")
    ctx = boot()
    for tool in make_tools(tmp_path):
        ctx.tools.register(tool)
    agent = Agent(ctx, name="chat")

    async def note(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        return Accept(additional_context=HookContext([text_block("counted")], PluginSource("audit")))

    ctx.on("tools/post-execute", note)
    name = ctx.tools.visible(agent)[0].name
    model = scripted(
        {"role": "assistant", "content": None, "tool_calls": [call("a", name, "{not json"), call("b", name, "{}")]},
        {"role": "assistant", "content": "done"},
    )
    messages = await chat_loop(ctx, agent, model, "count the words")
    tools_sent = model.seen[0][1]
    assert {t["function"]["name"] for t in tools_sent} == {t.name for t in ctx.tools.visible(agent)}
    assert tools_sent[0]["type"] == "function" and tools_sent[0]["function"]["parameters"]["type"] == "object"
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "tool", "tool", "user", "user", "assistant"]
    assert messages[3]["tool_call_id"] == "a" and messages[3]["content"].startswith("Error:")
    assert messages[5]["content"] == "[context] counted"
    assert messages[-1]["content"] == "done"


def test_tool_calls_parse_ids_names_and_json_arguments() -> None:
    inputs = tool_call_inputs({"tool_calls": [call("x", "read", orjson.dumps({"path": "a"}).decode())]})
    assert [(i.call_id, i.name, i.arguments) for i in inputs] == [("x", "read", {"path": "a"})]
    assert tool_call_inputs({"content": "no calls"}) == []
