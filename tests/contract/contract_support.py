"""Shared helpers for the contract tests (public API only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dsh_tools import (
    Agent,
    ContentBlock,
    Context,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    text_block,
)


class Echo:
    """A raw (non-define_tool) tool: echoes ``text``."""

    description = "Echo the text back."
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }

    def __init__(self, name: str = "echo", timeout_ms: float | None = None) -> None:
        self.name = name
        self.timeout_ms = timeout_ms
        self.calls: list[ToolExecution] = []

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.calls.append(exec)
        return [text_block(f"{self.name}:{args.get('text') if hasattr(args, 'get') else args}")]


async def call(
    ctx: Context,
    name: str,
    arguments: Any,
    *,
    call_id: str = "c1",
    agent: Agent | None = None,
    **extra: Any,
) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput(call_id=call_id, name=name, arguments=arguments, agent=agent, **extra))


def text_of(result: ToolExecutionResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert block["type"] == "text"
    text = block["text"]
    assert isinstance(text, str)
    return text
