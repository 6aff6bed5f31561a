"""The demo tools (dsh_tools.demo.tools) work, present their cards, and stay inside their root."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dsh_tools.content import ToolOutput
from dsh_tools.definitions import DefinedTool
from dsh_tools.errors import ToolArgsError
from dsh_tools.boot import boot
from dsh_tools.execution import ToolExecution, ToolExecutionInput, mint_token
from dsh_tools.json_values import freeze_json
from dsh_tools.presentation import DiffResultView, FileDiff, FileLocation, GenericCallView, GenericResultView, ToolResult

from dsh_tools.demo.tools import TOOLS, build, files, make_tools, text


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.txt").write_text("alpha beta\ngamma Delta\nlast line\n")
    (root / "b.md").write_text("Beta appears here\n")
    (tmp_path / "secret.txt").write_text("beta secret outside the root\n")
    return root


def tools_by_name(root: Path) -> dict[str, DefinedTool[Any]]:
    return {tool.name: tool for tool in make_tools(root)}


async def call(tool: DefinedTool[Any], arguments: dict[str, Any]) -> Any:
    frozen = freeze_json(arguments).unwrap()
    return await tool.execute(frozen, ToolExecution(mint_token(), "c", tool.name, frozen))


def text_of(output: Any) -> str:
    content = output.content if isinstance(output, ToolOutput) else output
    return "".join(str(block["text"]) for block in content)


async def text_through_registry(tool: DefinedTool[Any], arguments: dict[str, Any]) -> str:
    """What the model reads of a call: for a typed tool, its value as the registry renders it."""
    ctx = boot()
    ctx.tools.register(tool)
    result = await ctx.tools.execute(ToolExecutionInput("c", tool.name, arguments))
    assert not result.is_error, result.text
    return result.text


def test_modules_expose_tools_lists() -> None:
    assert [tool.name for tool in files.TOOLS] == ["read_file", "write_file", "list_dir"]
    assert [tool.name for tool in text.TOOLS] == ["count_words", "search_text"]
    assert [tool.name for tool in build.TOOLS] == ["build_status"]
    assert [tool.name for tool in TOOLS] == [tool.name for tool in make_tools(Path("."))]


async def test_read_file_with_range(workspace: Path) -> None:
    read = tools_by_name(workspace)["read_file"]
    assert text_of(await call(read, {"path": "docs/a.txt", "offset": 2, "limit": 1})) == "gamma Delta\n"
    with pytest.raises(ToolArgsError, match="offset: expected integer, got number"):
        await call(read, {"path": "docs/a.txt", "offset": 1.5})
    assert read.present_call({"path": "docs/a.txt", "offset": 2}) == GenericCallView(
        "Read docs/a.txt", kind="read", locations=[FileLocation("docs/a.txt", line=2)]
    )


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/passwd", "docs/../../secret.txt", "bad\0path"])
async def test_file_tools_refuse_paths_outside_the_root(workspace: Path, path: str) -> None:
    tools = tools_by_name(workspace)
    with pytest.raises(files.SandboxError):
        await call(tools["read_file"], {"path": path})
    with pytest.raises(files.SandboxError):
        await call(tools["write_file"], {"path": path, "content": "x"})


async def test_symlink_out_of_the_root_is_refused(workspace: Path) -> None:
    os.symlink(workspace.parent / "secret.txt", workspace / "link.txt")
    with pytest.raises(files.SandboxError):
        await call(tools_by_name(workspace)["read_file"], {"path": "link.txt"})
    found = await call(tools_by_name(workspace)["search_text"], {"query": "secret"})
    assert found == []


async def test_write_file_returns_meta_and_a_replayable_diff_card(workspace: Path) -> None:
    write = tools_by_name(workspace)["write_file"]
    created = await call(write, {"path": "new/c.txt", "content": "hi"})
    assert (workspace / "new" / "c.txt").read_text() == "hi"
    updated = await call(write, {"path": "new/c.txt", "content": "bye"})
    assert isinstance(updated, ToolOutput)
    result = ToolResult(updated.content, False, meta=updated.meta)
    assert write.present_result({"path": "new/c.txt", "content": "bye"}, result) == DiffResultView(
        [FileDiff("new/c.txt", "hi", "bye")], title="Wrote new/c.txt"
    )
    first = ToolResult(created.content, False, meta=created.meta)
    view = write.present_result({"path": "new/c.txt", "content": "hi"}, first)
    assert view is not None and view.to_json()["diffs"] == [{"path": "new/c.txt", "oldText": None, "newText": "hi"}]
    assert write.present_result({"path": "new/c.txt", "content": "hi"}, ToolResult([], True)) is None


async def test_count_words(workspace: Path) -> None:
    count = tools_by_name(workspace)["count_words"]
    assert await call(count, {"path": "docs/a.txt"}) == {"words": 6, "lines": 3, "characters": 33}
    assert await text_through_registry(count, {"path": "docs/a.txt"}) == "6 words, 3 lines, 33 characters"
    with pytest.raises(ToolArgsError, match="path: missing required property"):
        await call(count, {})
    with pytest.raises(ValueError, match="outside"):
        await call(count, {"path": "../secret.txt"})


async def test_search_text(workspace: Path) -> None:
    search = tools_by_name(workspace)["search_text"]
    assert await call(search, {"query": "beta"}) == [
        {"path": "b.md", "line": 1, "text": "Beta appears here"},
        {"path": "docs/a.txt", "line": 1, "text": "alpha beta"},
    ]
    found = await text_through_registry(search, {"query": "beta"})
    assert found.splitlines() == ["b.md:1: Beta appears here", "docs/a.txt:1: alpha beta"]
    sensitive = await text_through_registry(search, {"query": "Beta", "case_sensitive": True})
    assert sensitive.splitlines() == ["b.md:1: Beta appears here"]
    limited = await text_through_registry(search, {"query": "a", "max_results": 1})
    assert limited.splitlines()[-1] == "(stopped after 1 results)"
    assert await text_through_registry(search, {"query": "secret"}) == "no matches for 'secret'"
    with pytest.raises(ToolArgsError, match="max_results: expected integer, got boolean"):
        await call(search, {"query": "a", "max_results": True})
    with pytest.raises(ValueError, match="outside"):
        await call(search, {"query": "a", "path": ".."})
    view = search.present_result({"query": "beta"}, ToolResult([{"type": "text", "text": found}], False))
    assert view == GenericResultView(title="2 matching lines for 'beta'")


async def test_list_dir(workspace: Path) -> None:
    listing = tools_by_name(workspace)["list_dir"]
    assert await call(listing, {}) == [{"name": "b.md", "kind": "file"}, {"name": "docs", "kind": "dir"}]
    assert await text_through_registry(listing, {}) == "b.md\ndocs/"
    assert await text_through_registry(listing, {"path": "docs"}) == "a.txt"
    (workspace / "empty").mkdir()
    assert await call(listing, {"path": "empty"}) == []
    assert await text_through_registry(listing, {"path": "empty"}) == "(empty directory)"
    with pytest.raises(NotADirectoryError, match="no such directory: b.md"):
        await call(listing, {"path": "b.md"})
    with pytest.raises(files.SandboxError):
        await call(listing, {"path": ".."})
