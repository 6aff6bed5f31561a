"""Shared by the adapter suites: tools, and real SDK clients over a scripted HTTP transport.

``ScriptedServer`` answers each POST with the next scripted JSON body and
keeps every request body, so a test can check what the SDK actually sent on
the wire after our adapters built it. No network: the transport is
``httpx2.MockTransport`` (the HTTP client the SDKs are built on).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

import httpx2 as httpx
import orjson
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from dsh_tools import Agent, ContentBlock, Context, ToolExecution, boot, define_tool, image_block, text_block

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
"""A 1x1 PNG, base64."""


class EchoArgs(TypedDict):
    text: str
    times: NotRequired[int]


async def _echo(args: EchoArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(args["text"] * args.get("times", 1))]


class NoArgs(TypedDict):
    pass


async def _snapshot(args: NoArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block("the screen:"), image_block(PIXEL, "image/png")]


async def _fail(args: NoArgs, exec: ToolExecution) -> list[ContentBlock]:
    raise RuntimeError("disk on fire")


ECHO = define_tool(name="echo", description="Repeat a text.", args=EchoArgs, execute=_echo)
SNAPSHOT = define_tool(name="snapshot", description="Take a screenshot.", args=NoArgs, execute=_snapshot)
FAIL = define_tool(name="fail", description="Always fails.", args=NoArgs, execute=_fail)


def booted() -> tuple[Context, Agent]:
    """A registry with echo, snapshot and fail, and an agent to call them as."""
    ctx = boot(timeouts=False)
    for tool in (ECHO, SNAPSHOT, FAIL):
        ctx.tools.register(tool)
    return ctx, Agent(ctx, name="looper")


class ScriptedServer:
    """Answers POSTs with scripted JSON bodies, in order; remembers what was sent."""

    def __init__(self, *replies: Mapping[str, Any]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        self.requests.append(orjson.loads(request.content))
        if not self.replies:
            return httpx.Response(500, json={"error": {"message": "no more scripted replies"}})
        return httpx.Response(200, json=dict(self.replies.pop(0)))

    def http_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handle))

    def openai(self) -> AsyncOpenAI:
        return AsyncOpenAI(api_key="test", base_url="http://mock.invalid/v1", http_client=self.http_client(), max_retries=0)

    def anthropic(self) -> AsyncAnthropic:
        return AsyncAnthropic(api_key="test", base_url="http://mock.invalid", http_client=self.http_client(), max_retries=0)


def chat_completion(*tool_calls: Mapping[str, Any], content: str | None = None, finish: str | None = None,
                    refusal: str | None = None) -> dict[str, Any]:
    """A chat completion body with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [
            {"index": 0, "message": message, "logprobs": None,
             "finish_reason": finish or ("tool_calls" if tool_calls else "stop")}
        ],
    }


def chat_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def response_body(*items: Mapping[str, Any], response_id: str = "resp-1", status: str = "completed") -> dict[str, Any]:
    """A Responses API body."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "status": status,
        "output": list(items),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def function_call(call_id: str, name: str, arguments: str, status: str = "completed") -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc-{call_id}", "call_id": call_id, "name": name,
            "arguments": arguments, "status": status}


def output_text(text: str) -> dict[str, Any]:
    return {"type": "message", "id": "msg-1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def anthropic_message(*content: Mapping[str, Any], stop: str = "end_turn") -> dict[str, Any]:
    """A Messages API body."""
    return {
        "id": "msg-1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(content),
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def tool_use(call_id: str, name: str, input: object) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": input}
