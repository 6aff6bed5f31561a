"""Shared by the thread suites: tools, provider replies as the APIs send them, and a booted agent on a store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from dsh_tools import Agent, Context, ToolExecution, boot, tool
from dsh_tools.store import CallStore, MemoryStore, SqliteStore

AGENT_ID = "support-1"


@tool(needs_approval=True)
async def refund(order: str, exec: ToolExecution) -> str:
    """Refund an order."""
    return f"refunded {order} ({exec.idempotency_key})"


@tool
async def look(order: str) -> str:
    """Look an order up."""
    return f"order {order}: shipped"


def booted(store: object = None, *, ttl: float | None = None) -> tuple[Context, Agent]:
    """A deferring registry with ``refund`` and ``look`` on ``store``, and the agent ``support-1``."""
    ctx = boot(store=store, approval="defer", approval_ttl_seconds=ttl)  # type: ignore[arg-type]
    ctx.tools.register(refund)
    ctx.tools.register(look)
    return ctx, Agent(ctx, name="support", id=AGENT_ID)


def chat_call(call_id: object, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": orjson.dumps(arguments).decode()}}


def chat_completion(*calls: dict[str, object], content: str | None = None) -> dict[str, Any]:
    message: dict[str, object] = {"role": "assistant", "content": content, "annotations": []}
    if calls:
        message["tool_calls"] = list(calls)
    finish = "tool_calls" if calls else "stop"
    return {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def responses_reply(*calls: tuple[str, str, dict[str, object]], text: str | None = None) -> dict[str, Any]:
    output: list[dict[str, object]] = [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "thinking it over"}],
         "encrypted_content": "opaque"},
    ]
    for call_id, name, arguments in calls:
        output.append({"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
                       "arguments": orjson.dumps(arguments).decode(), "status": "completed"})
    if text is not None:
        output.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    return {"id": "resp_1", "object": "response", "created_at": 0, "model": "m", "status": "completed", "output": output,
            "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def anthropic_reply(*calls: tuple[str, str, dict[str, object]], text: str | None = None) -> dict[str, Any]:
    content: list[dict[str, object]] = [{"type": "thinking", "thinking": "let me check", "signature": "sig-1"}]
    if text is not None:
        content.append({"type": "text", "text": text})
    content.extend({"type": "tool_use", "id": call_id, "name": name, "input": arguments} for call_id, name, arguments in calls)
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": content,
            "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}


@pytest.fixture(params=["memory", "sqlite"])  # PostgreSQL and other processes: tests/store
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[CallStore]:
    made: CallStore = MemoryStore() if request.param == "memory" else SqliteStore(tmp_path / "calls.db")
    async with made:
        yield made
