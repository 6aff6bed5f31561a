"""The typed tool the typed-output suites share: ``stat``, returning ``{path, lines}``."""

from __future__ import annotations

from typing import TypedDict

from dsh_tools import ToolExecution


class PathArgs(TypedDict):
    path: str


class FileStat(TypedDict):
    path: str
    lines: int


async def stat(args: PathArgs, exec: ToolExecution) -> FileStat:
    """``lines`` is the path's length: deterministic, and different per path."""
    return {"path": args["path"], "lines": len(args["path"])}
