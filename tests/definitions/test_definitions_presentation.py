"""Presentation views: wire shapes, immutability, and construction-time checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dsh_tools.presentation import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    ToolResult,
)


def test_generic_call_view_wire_shape_is_camel_case_with_card_first() -> None:
    view = GenericCallView(
        "Read a.txt",
        kind="read",
        raw_input={"id": [1, 2]},
        content=[{"type": "text", "text": "x"}],
        locations=[FileLocation("a.txt", line=3)],
    )
    wire = view.to_json()
    assert list(wire)[0] == "card"
    assert wire == {
        "card": "generic",
        "title": "Read a.txt",
        "kind": "read",
        "rawInput": {"id": [1, 2]},
        "content": [{"type": "text", "text": "x"}],
        "locations": [{"path": "a.txt", "line": 3}],
    }


def test_absent_optionals_are_omitted() -> None:
    assert GenericCallView("t").to_json() == {"card": "generic", "title": "t"}
    assert GenericResultView().to_json() == {"card": "generic"}
    assert TerminalCallView("ls").to_json() == {"card": "terminal", "title": "ls"}
    assert TerminalResultView().to_json() == {"card": "terminal"}
    assert FileLocation("p").to_json() == {"path": "p"}


def test_terminal_views() -> None:
    assert TerminalCallView("ls -la", description="List", cwd="/w").to_json() == {
        "card": "terminal",
        "title": "ls -la",
        "description": "List",
        "cwd": "/w",
    }
    assert TerminalResultView(output="out", exit_code=0, signal="SIGTERM").to_json() == {
        "card": "terminal",
        "output": "out",
        "exitCode": 0,
        "signal": "SIGTERM",
    }


def test_file_diff_always_emits_old_text_even_when_null() -> None:
    assert FileDiff("new.txt", None, "hello").to_json() == {"path": "new.txt", "oldText": None, "newText": "hello"}
    assert DiffResultView([FileDiff("a", "x", "y")], title="Wrote a").to_json() == {
        "card": "diff",
        "diffs": [{"path": "a", "oldText": "x", "newText": "y"}],
        "title": "Wrote a",
    }
    call = DiffCallView("Edit a", [FileDiff("a", None, "y")], locations=[FileLocation("a")])
    assert call.to_json() == {
        "card": "diff",
        "title": "Edit a",
        "diffs": [{"path": "a", "oldText": None, "newText": "y"}],
        "locations": [{"path": "a"}],
    }


def test_tool_result_wire_and_frozen_payloads() -> None:
    content = [{"type": "text", "text": "x"}]
    result = ToolResult(content, False, meta={"n": [1]})
    content[0]["text"] = "changed"
    assert result.to_json() == {"content": [{"type": "text", "text": "x"}], "isError": False, "meta": {"n": [1]}}
    with pytest.raises(TypeError):
        result.meta["n"] = 2  # type: ignore[index]


def test_views_refuse_assignment_and_detach_lists() -> None:
    locations = [FileLocation("a")]
    view = GenericCallView("t", locations=locations)
    locations.append(FileLocation("b"))
    assert view.locations == (FileLocation("a"),)
    with pytest.raises(AttributeError):
        view.title = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    "build",
    [
        lambda: GenericCallView(1),  # type: ignore[arg-type]
        lambda: GenericCallView("t", kind="bogus"),  # type: ignore[arg-type]
        lambda: GenericCallView("t", raw_input={1, 2}),  # type: ignore[arg-type]
        lambda: GenericCallView("t", locations=["a.txt"]),  # type: ignore[list-item]
        lambda: DiffResultView([{"path": "a"}]),  # type: ignore[list-item]
        lambda: DiffCallView("t", "not a list"),  # type: ignore[arg-type]
        lambda: FileDiff("a", 1, "b"),  # type: ignore[arg-type]
        lambda: FileLocation("a", line=True),
        lambda: TerminalResultView(exit_code=1.0),  # type: ignore[arg-type]
        lambda: ToolResult([], 0),  # type: ignore[arg-type]
    ],
)
def test_malformed_views_fail_at_construction(build: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        build()  # type: ignore[operator]


def test_views_compare_by_value() -> None:
    assert FileDiff("a", None, "b") == FileDiff("a", None, "b")
    assert GenericCallView("t", kind="read") != GenericCallView("t", kind="edit")


def test_every_view_has_a_card_attribute_equal_to_its_wire_tag() -> None:
    diff = [FileDiff("a.txt", None, "new")]
    views = [
        (GenericCallView("t"), "generic"),
        (TerminalCallView("ls"), "terminal"),
        (DiffCallView("edit", diff), "diff"),
        (GenericResultView(), "generic"),
        (TerminalResultView(), "terminal"),
        (DiffResultView(diff), "diff"),
    ]
    for view, tag in views:
        assert view.card == tag == view.to_json()["card"], type(view).__name__
        assert type(view).card == tag
        assert "card" not in view._record_fields, "card is the class's tag, not a constructor field"
    with pytest.raises(AttributeError):
        GenericCallView("t").card = "diff"  # type: ignore[misc,assignment]


def test_card_narrows_the_view_unions_for_mypy(tmp_path: Path) -> None:
    snippet = tmp_path / "cards.py"
    snippet.write_text(
        "from typing import assert_never\n"
        "from dsh_tools.presentation import ToolCallView\n\n"
        "def describe(view: ToolCallView) -> str:\n"
        "    if view.card == 'diff':\n"
        "        return str(len(view.diffs))\n"
        "    if view.card == 'terminal':\n"
        "        return view.description or view.title\n"
        "    if view.card == 'generic':\n"
        "        return str(view.kind)\n"
        "    assert_never(view)\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(snippet)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
