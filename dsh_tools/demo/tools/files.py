"""File tools typed with TypedDicts: ``read_file``, ``write_file`` and ``list_dir``, sandboxed to a root.

Shows the TypedDict spelling of ``define_tool`` end to end: the class types
the body (mypy checks ``args["path"]`` is a ``str``), becomes the JSON Schema
the model sees, and is enforced before the body runs. ``list_dir`` is a typed
tool: it returns its entries as data (``output=list[DirEntry]``), rendered as
one name a line for the model. It also shows both card
styles: ``read_file`` presents a generic ``read`` card with a location;
``write_file`` returns the before/after text as ``meta`` so its result card is
an inline diff that replays from the session log without touching the disk.

Every path is resolved (symlinks included) and must stay inside the root the
tools were made for; anything else is refused before any I/O happens.

Try ``dsh-tools sdk dsh_tools.demo.tools.files`` or ``dsh-tools schemas
dsh_tools.demo.tools.files --format openai``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict

from dsh_tools.content import ContentBlock, ToolOutput, text_block
from dsh_tools.definitions import DefinedTool, Prop, define_tool
from dsh_tools.execution import ToolExecution
from dsh_tools.presentation import (
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    ToolResult,
)
from dsh_tools.demo.tools.sandbox import SandboxError, resolve_inside

__all__ = ["TOOLS", "DirEntry", "ListDirArgs", "ReadFileArgs", "SandboxError", "WriteFileArgs", "make_tools"]

MAX_READ_BYTES = 256 * 1024
"""Larger files are refused: a tool result that floods the context helps no one."""


class ReadFileArgs(TypedDict):
    path: Required[Annotated[str, Prop(description="File path, relative to the workspace root")]]
    offset: NotRequired[Annotated[int, Prop(description="First line to return (1-based)")]]
    limit: NotRequired[Annotated[int, Prop(description="Maximum number of lines to return")]]


class WriteFileArgs(TypedDict):
    path: Annotated[str, Prop(description="File path, relative to the workspace root")]
    content: Annotated[str, Prop(description="The complete new file content")]


class ListDirArgs(TypedDict):
    path: NotRequired[Annotated[str, Prop(description="Directory, relative to the workspace root (default: the root)")]]


class DirEntry(TypedDict):
    """One entry ``list_dir`` returns (a typed value: programs filter and count them)."""

    name: str
    kind: Literal["file", "dir"]


def render_entries(args: ListDirArgs, entries: list[DirEntry]) -> list[ContentBlock]:
    """One name a line, directories with a trailing ``/``, for the model."""
    names = [f"{entry['name']}/" if entry["kind"] == "dir" else entry["name"] for entry in entries]
    return [text_block("\n".join(names) if names else "(empty directory)")]


def make_tools(root: Path) -> list[DefinedTool[Any]]:
    """The file tools, each confined to ``root`` (resolved once, now)."""
    base = root.resolve()

    async def read_file(args: ReadFileArgs, exec: ToolExecution) -> list[ContentBlock]:
        target = resolve_inside(base, args["path"])
        offset = args.get("offset", 1)
        limit = args.get("limit")
        if offset < 1:
            raise ValueError("offset must be 1 or more")
        if limit is not None and limit < 1:
            raise ValueError("limit must be 1 or more")
        if not target.is_file():
            raise FileNotFoundError(f"no such file: {args['path']}")
        if target.stat().st_size > MAX_READ_BYTES:
            raise ValueError(f"{args['path']} is larger than {MAX_READ_BYTES} bytes; it cannot be read whole")
        lines = target.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        chosen = lines[offset - 1 : None if limit is None else offset - 1 + limit]
        return [text_block("".join(chosen))]

    def present_read(args: ReadFileArgs) -> GenericCallView:
        offset = args.get("offset")
        return GenericCallView(
            title=f"Read {args['path']}",
            kind="read",
            locations=[FileLocation(args["path"], line=offset)],
        )

    async def write_file(args: WriteFileArgs, exec: ToolExecution) -> ToolOutput:
        target = resolve_inside(base, args["path"])
        old_text = target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(args["content"], encoding="utf-8")
        verb = "Created" if old_text is None else "Updated"
        return ToolOutput(
            content=[text_block(f"{verb} {args['path']} ({len(args['content'])} characters)")],
            meta={"path": args["path"], "oldText": old_text, "newText": args["content"]},
        )

    def present_write(args: WriteFileArgs) -> GenericCallView:
        return GenericCallView(title=f"Write {args['path']}", kind="edit", locations=[FileLocation(args["path"])])

    def present_written(args: WriteFileArgs, result: ToolResult) -> DiffResultView | None:
        if result.is_error:
            return None
        return _diff_from_meta(args["path"], result.meta)

    async def list_dir(args: ListDirArgs, exec: ToolExecution) -> list[DirEntry]:
        relative = args.get("path", ".")
        target = resolve_inside(base, relative)
        if not target.is_dir():
            raise NotADirectoryError(f"no such directory: {relative}")
        return [
            {"name": child.name, "kind": "dir" if child.is_dir() else "file"}
            for child in sorted(target.iterdir(), key=lambda child: child.name)
        ]

    def present_list(args: ListDirArgs) -> GenericCallView:
        path = args.get("path", ".")
        return GenericCallView(title=f"List {path}", kind="read", locations=[FileLocation(path)])

    return [
        define_tool(
            name="read_file",
            description="Read a UTF-8 text file from the workspace, optionally a range of lines.",
            args=ReadFileArgs,
            execute=read_file,
            timeout_ms=5_000,
            present_call=present_read,
            is_concurrency_safe=lambda args: True,  # only reads: may overlap its siblings
        ),
        define_tool(
            name="write_file",
            description="Create or overwrite a UTF-8 text file in the workspace.",
            args=WriteFileArgs,
            execute=write_file,
            timeout_ms=5_000,
            present_call=present_write,
            present_result=present_written,
            # no is_concurrency_safe: a writer runs alone (even writes to different paths, see writing-tools.md)
        ),
        define_tool(
            name="list_dir",
            description="List a directory of the workspace: each entry's name and kind (file or dir).",
            args=ListDirArgs,
            output=list[DirEntry],
            execute=list_dir,
            render=render_entries,
            timeout_ms=5_000,
            present_call=present_list,
            is_concurrency_safe=lambda args: True,  # only reads
        ),
    ]


def _diff_from_meta(path: str, meta: object) -> DiffResultView | None:
    """Rebuild the diff card from ``meta`` alone (pure: replays need no disk)."""
    if not isinstance(meta, Mapping):
        return None
    old_text, new_text = meta.get("oldText"), meta.get("newText")
    if not isinstance(new_text, str) or not (old_text is None or isinstance(old_text, str)):
        return None
    return DiffResultView(diffs=[FileDiff(path, old_text, new_text)], title=f"Wrote {path}")


TOOLS: list[DefinedTool[Any]] = make_tools(Path.cwd())
"""The tools confined to the current directory at import time; use ``make_tools`` for another root."""
