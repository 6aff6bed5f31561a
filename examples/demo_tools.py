"""Two more tools for the demo: ``list_dir``, and ``build_status``, a slow one with a budget.

``list_dir`` completes the workspace toolset of ``fs_tools`` and
``text_tools`` (confined to a root the same way). ``build_status`` stands for a
slow remote call: it declares ``timeout_ms`` so the ``TimeoutPolicy`` cuts it
off, and it honours the abort signal it is handed, the cooperative way a tool
should stop when its deadline passes (the policy cancels one that does not).

Try ``dsh-tools sdk examples/demo_tools.py`` or ``dsh-tools schemas
examples/demo_tools.py --format openai``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any, NotRequired, TypedDict

from dsh_tools.content import ContentBlock, text_block
from dsh_tools.definitions import DefinedTool, Prop, define_tool
from dsh_tools.execution import ToolExecution
from dsh_tools.presentation import FileLocation, GenericCallView
from examples.sandbox import resolve_inside

__all__ = ["BUILD_STATUS_TIMEOUT_MS", "TOOLS", "BuildStatusArgs", "ListDirArgs", "make_tools"]

BUILD_STATUS_TIMEOUT_MS = 100
"""Short on purpose: the demo shows this budget expiring."""


class ListDirArgs(TypedDict):
    path: NotRequired[Annotated[str, Prop(description="Directory, relative to the workspace root (default: the root)")]]


class BuildStatusArgs(TypedDict):
    branch: NotRequired[Annotated[str, Prop(description="Branch whose latest build to check (default: main)")]]
    delay_ms: NotRequired[Annotated[int, Prop(description="Simulated server latency in milliseconds")]]


def make_tools(root: Path) -> list[DefinedTool[Any]]:
    """``list_dir`` confined to ``root`` (resolved once, now), and ``build_status``."""
    base = root.resolve()

    async def list_dir(args: ListDirArgs, exec: ToolExecution) -> list[ContentBlock]:
        relative = args.get("path", ".")
        target = resolve_inside(base, relative)
        if not target.is_dir():
            raise NotADirectoryError(f"no such directory: {relative}")
        entries = sorted(
            f"{child.name}/" if child.is_dir() else child.name for child in target.iterdir()
        )
        return [text_block("\n".join(entries) if entries else "(empty directory)")]

    def present_list(args: ListDirArgs) -> GenericCallView:
        path = args.get("path", ".")
        return GenericCallView(title=f"List {path}", kind="read", locations=[FileLocation(path)])

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
            name="list_dir",
            description="List a directory of the workspace (directories end with '/').",
            args=ListDirArgs,
            execute=list_dir,
            timeout_ms=5_000,
            present_call=present_list,
        ),
        define_tool(
            name="build_status",
            description="Ask the (simulated, slow) build server whether the latest build passed.",
            args=BuildStatusArgs,
            execute=build_status,
            timeout_ms=BUILD_STATUS_TIMEOUT_MS,
        ),
    ]


TOOLS: list[DefinedTool[Any]] = make_tools(Path.cwd())
"""The tools confined to the current directory at import time; use ``make_tools`` for another root."""
