"""Helpers shared by the pipeline tests: an observer that records, and result text."""

from __future__ import annotations

from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.context.context import Context


class Results:
    """A ``tools/result`` observer keeping everything it saw, in order."""

    def __init__(self, ctx: Context) -> None:
        self.seen: list[tuple[ToolExecution, ToolExecutionResult]] = []
        ctx.on("tools/result", self)

    def __call__(self, execution: ToolExecution, result: ToolExecutionResult) -> None:
        self.seen.append((execution, result))


def texts(result: ToolExecutionResult) -> list[str]:
    """The ``text`` of every content block (``"None"`` for a block without one)."""
    return [str(block.get("text")) for block in result.content]
