"""Text tools typed with the ``SchemaSpec`` DSL: ``count_words`` and ``search_text``.

The SchemaSpec spelling suits tools whose parameters are data (loaded from
config, shared between tools) rather than a class. The body receives a
``Mapping[str, JsonValue]`` that has already been validated against the spec,
so the narrowing helpers below cannot fail on a call that reached the body.

Both are *typed* tools (``output=``): ``count_words`` returns
``{words, lines, characters}`` and ``search_text`` a list of ``{path, line,
text}`` hits. The model reads the rendered text; a Code Mode program gets the
values themselves and computes with them (``hits.length``, ``counts.words``)
instead of parsing prose.

Both tools stay inside the root they were made for: paths are resolved
(symlinks included) and checked, and the directory walk never follows a link
out. ``search_text`` matches plain substrings, never regular expressions, so a
model-written query cannot make the search run away.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TypedDict

from dsh_tools.content import ContentBlock, text_block
from dsh_tools.definitions import DefinedTool, Prop, define_tool
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import JsonValue
from dsh_tools.presentation import FileLocation, GenericCallView, GenericResultView, ToolResult
from dsh_tools.demo.tools.sandbox import resolve_inside

__all__ = ["COUNT_WORDS_PARAMETERS", "SEARCH_TEXT_PARAMETERS", "TOOLS", "Hit", "WordCounts", "make_tools"]

MAX_FILE_BYTES = 1024 * 1024
"""Files larger than this are skipped by the search and refused by the counter."""

COUNT_WORDS_PARAMETERS: dict[str, Prop] = {
    "path": Prop("string", required=True, description="File path, relative to the workspace root"),
}

SEARCH_TEXT_PARAMETERS: dict[str, Prop] = {
    "query": Prop("string", required=True, description="Plain text to find (not a regular expression)"),
    "path": Prop("string", description="File or directory to search, relative to the root (default: the root)"),
    "case_sensitive": Prop("boolean", default=False, description="Match case exactly"),
    "max_results": Prop("integer", default=50, description="Stop after this many matching lines"),
}


class WordCounts(TypedDict):
    """What ``count_words`` returns."""

    words: int
    lines: int
    characters: int


class Hit(TypedDict):
    """One matching line ``search_text`` found."""

    path: str
    line: int
    text: str


def render_counts(args: Mapping[str, JsonValue], counts: WordCounts) -> list[ContentBlock]:
    """``12 words, 3 lines, 80 characters``: what the model reads of a count."""
    return [text_block(f"{counts['words']} words, {counts['lines']} lines, {counts['characters']} characters")]


def render_hits(args: Mapping[str, JsonValue], hits: list[Hit]) -> list[ContentBlock]:
    """``path:line: text`` per hit (and a note when the search stopped at its limit)."""
    if not hits:
        return [text_block(f"no matches for {_text(args, 'query')!r}")]
    lines = [f"{hit['path']}:{hit['line']}: {hit['text']}" for hit in hits]
    limit = args.get("max_results", 50)
    if len(hits) == limit:
        lines.append(f"(stopped after {limit} results)")
    return [text_block("\n".join(lines))]


def _text(args: Mapping[str, JsonValue], key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str):
        raise TypeError(f"{key} must be a string")  # unreachable after validation
    return value


def _files_under(root: Path, start: Path) -> Iterator[Path]:
    """Regular files below ``start`` in sorted order, never following a link out of ``root``."""
    if start.is_file():
        yield start
        return
    for directory, subdirs, files in os.walk(start, followlinks=False):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(directory, name)
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                continue
            yield path


def make_tools(root: Path) -> list[DefinedTool[Any]]:
    """The text tools, each confined to ``root`` (resolved once, now)."""
    base = root.resolve()

    async def count_words(args: Mapping[str, JsonValue], exec: ToolExecution) -> WordCounts:
        target = resolve_inside(base, _text(args, "path"))
        if not target.is_file():
            raise FileNotFoundError(f"no such file: {_text(args, 'path')}")
        if target.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"{_text(args, 'path')} is larger than {MAX_FILE_BYTES} bytes")
        text = target.read_text(encoding="utf-8", errors="replace")
        return {"words": len(text.split()), "lines": len(text.splitlines()), "characters": len(text)}

    def present_count(args: Mapping[str, JsonValue]) -> GenericCallView:
        path = _text(args, "path")
        return GenericCallView(title=f"Count words in {path}", kind="read", locations=[FileLocation(path)])

    async def search_text(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[Hit]:
        query = _text(args, "query")
        start = resolve_inside(base, _text(args, "path", "."))
        case_sensitive = args.get("case_sensitive", False) is True
        limit = args.get("max_results", 50)
        if not isinstance(limit, int) or limit < 1:
            raise ValueError("max_results must be 1 or more")
        if not query:
            raise ValueError("query must not be empty")
        needle = query if case_sensitive else query.casefold()
        hits: list[Hit] = []
        for path in _files_under(base, start):
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (UnicodeDecodeError, OSError):
                continue  # binary or unreadable: not text to search
            for number, line in enumerate(lines, start=1):
                if needle in (line if case_sensitive else line.casefold()):
                    hits.append({"path": str(path.relative_to(base)), "line": number, "text": line.strip()[:200]})
                    if len(hits) >= limit:
                        return hits
        return hits

    def present_search(args: Mapping[str, JsonValue]) -> GenericCallView:
        return GenericCallView(title=f"Search for {_text(args, 'query')!r}", kind="search")

    def present_found(args: Mapping[str, JsonValue], result: ToolResult) -> GenericResultView | None:
        if result.is_error or len(result.content) != 1:
            return None
        text = result.content[0].get("text")
        if not isinstance(text, str):
            return None
        lines = [] if text.startswith("no matches") else text.splitlines()
        matches = len([line for line in lines if not line.startswith("(stopped after")])
        return GenericResultView(title=f"{matches} matching lines for {_text(args, 'query')!r}")

    return [
        define_tool(
            name="count_words",
            description="Count the words, lines and characters of a text file in the workspace.",
            parameters=COUNT_WORDS_PARAMETERS,
            output=WordCounts,
            execute=count_words,
            render=render_counts,
            present_call=present_count,
            is_concurrency_safe=lambda args: True,  # only reads
        ),
        define_tool(
            name="search_text",
            description="Find lines containing a plain-text query in the workspace's text files.",
            parameters=SEARCH_TEXT_PARAMETERS,
            output=list[Hit],
            execute=search_text,
            render=render_hits,
            timeout_ms=10_000,
            present_call=present_search,
            present_result=present_found,
            is_concurrency_safe=lambda args: True,  # only reads
        ),
    ]


TOOLS: list[DefinedTool[Any]] = make_tools(Path.cwd())
"""The tools confined to the current directory at import time; use ``make_tools`` for another root."""
