"""``build_status``: a slow tool with a budget, the demo's timeout step.

It stands for a slow remote call: it declares ``timeout_ms`` so the
``TimeoutPolicy`` cuts it off, and it honours the abort signal it is handed,
the cooperative way a tool should stop when its deadline passes (the policy
cancels one that does not).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any, NotRequired, TypedDict

from dsh_tools.content import ContentBlock, text_block
from dsh_tools.definitions import DefinedTool, Prop, define_tool
from dsh_tools.execution import ToolExecution

__all__ = ["BUILD_STATUS_TIMEOUT_MS", "TOOLS", "BuildStatusArgs", "make_tools"]

BUILD_STATUS_TIMEOUT_MS = 100
"""Short on purpose: the demo shows this budget expiring."""


class BuildStatusArgs(TypedDict):
    branch: NotRequired[Annotated[str, Prop(description="Branch whose latest build to check (default: main)")]]
    delay_ms: NotRequired[Annotated[int, Prop(description="Simulated server latency in milliseconds")]]


def make_tools(root: Path) -> list[DefinedTool[Any]]:
    """``build_status`` (it touches no files: ``root`` is taken for the common factory shape)."""

    async def build_status(args: BuildStatusArgs, exec: ToolExecution) -> list[ContentBlock]:
        delay = args.get("delay_ms", 1_000) / 1000
        signal = exec.signal
        if signal is None:
            await asyncio.sleep(delay)
        else:
            try:
                await asyncio.wait_for(signal.wait(), timeout=delay)
            except TimeoutError:
                pass  # the server answered before any deadline
            signal.throw_if_aborted()
        return [text_block(f"build of {args.get('branch', 'main')}: passing")]

    return [
        define_tool(
            name="build_status",
            description="Ask the (simulated, slow) build server whether the latest build passed.",
            args=BuildStatusArgs,
            execute=build_status,
            timeout_ms=BUILD_STATUS_TIMEOUT_MS,
            is_concurrency_safe=lambda args: True,  # asks the server, changes nothing
        ),
    ]


TOOLS: list[DefinedTool[Any]] = make_tools(Path.cwd())
"""The tool for the current directory at import time (``dsh-tools sdk dsh_tools.demo.tools.build``)."""
