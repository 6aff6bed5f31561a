"""A tools module for ``dsh-tools mcp-serve`` and the ``serve_mcp`` tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from dsh_tools import ContentBlock, JsonValue, ToolDefinition, ToolExecution, define_tool, image_block, text_block


class ShoutArgs(TypedDict):
    text: str


async def shout(args: ShoutArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(args["text"].upper())]


class Measure(TypedDict):
    length: int
    unit: str


async def measure(args: ShoutArgs, exec: ToolExecution) -> Measure:
    return {"length": len(args["text"]), "unit": "characters"}


async def picture(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    return [text_block("a dot"), image_block("iVBORw0KGgo=", "image/png")]


async def wait_for_cancel(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
    assert exec.signal is not None
    await exec.signal.wait()  # a cooperative body: ends when the call is aborted
    return [text_block("stopped")]


TOOLS: list[ToolDefinition] = [
    define_tool(name="shout", description="Upper-case the text.", args=ShoutArgs, execute=shout),
    define_tool(name="measure", description="Measure the text.", args=ShoutArgs, output=Measure, execute=measure),
    define_tool(name="picture", description="A tiny picture.", parameters={}, execute=picture),
    define_tool(name="wait_for_cancel", description="Runs until cancelled.", parameters={}, execute=wait_for_cancel),
]
