"""What several benchmarks share: the row type every ``run()`` returns, and a no-op tool.

The no-op tool is the baseline of the pipeline's own cost: a body that does
nothing, so what a figure measures is everything around it.
"""

from __future__ import annotations

from typing import Any

from dsh_tools import ContentBlock, Context, ToolExecution, boot

__all__ = ["Noop", "Row", "noop_registry"]

Row = tuple[str, float, str, bool]
"""``(figure, value, target text, holds)``: one line of ``make bench``'s table."""


class Noop:
    """A tool whose body returns no content at once."""

    name = "noop"
    description = "Does nothing."
    parameters = {"type": "object", "properties": {}}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []


def noop_registry() -> Context:
    """A registry holding only :class:`Noop`, without timeouts (nothing but the pipeline to measure)."""
    ctx = boot(timeouts=False)
    ctx.tools.register(Noop())
    return ctx
