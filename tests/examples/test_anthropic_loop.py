"""The Anthropic loop example, run against the real ``AsyncAnthropic`` client over a mock transport."""

from __future__ import annotations

import pytest

from provider_support import PIXEL, ScriptedServer, anthropic_message, booted, tool_use
from examples.anthropic_loop import messages_loop


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic, serializing the hostile non-object input back
async def test_every_tool_use_is_answered_in_one_user_message_with_errors_and_images() -> None:
    ctx, agent = booted()
    server = ScriptedServer(
        anthropic_message(
            {"type": "text", "text": "let me look"},
            tool_use("t1", "echo", {"text": "hi", "times": 2}),
            tool_use("t2", "snapshot", {}),
            tool_use("t3", "fail", {}),
            tool_use("t4", "echo", ["not", "an", "object"]),
            stop="tool_use",
        ),
        anthropic_message({"type": "text", "text": "done"}),
    )
    messages = await messages_loop(ctx, agent, server.anthropic(), "go")
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    first, second = server.requests
    assert server.paths == ["/v1/messages", "/v1/messages"]
    assert {t["name"] for t in first["tools"]} == {"echo", "fail", "snapshot"}
    assert "input_schema" in first["tools"][0] and isinstance(first["system"], str)
    assistant, answer = second["messages"][1], second["messages"][2]
    assert [b["type"] for b in assistant["content"]] == ["text", "tool_use", "tool_use", "tool_use", "tool_use"]
    assert answer["role"] == "user"
    results = answer["content"]
    assert [r["tool_use_id"] for r in results] == ["t1", "t2", "t3", "t4"]
    assert results[0] == {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "hihi"}], "is_error": False}
    assert results[1]["content"][1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PIXEL}}
    assert results[2]["is_error"] is True and results[2]["content"] == [{"type": "text", "text": "Error: disk on fire"}]
    assert results[3]["is_error"] is True
    assert results[3]["content"][0]["text"] == "Error: invalid arguments: the arguments must be a JSON object, got array"
