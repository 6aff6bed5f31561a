"""The README and docs/ point only at things the repository has.

A reader follows a link or a path and finds it: every relative Markdown link
resolves to a file (and its ``#anchor`` to a heading there), every backticked
repository path exists, and no page sends the reader to a document that is
not shipped (the product SPEC lives outside the repository).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
REPO_PATH = re.compile(r"`((?:dsh_tools|dsh_tools_codegen|examples|docs|tests|benchmarks)/[\w./-]*)`")
CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = CODE_BLOCK.sub("", page.read_text(encoding="utf-8"))
    return {slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_links_and_paths_resolve(page: Path) -> None:
    text = CODE_BLOCK.sub("", page.read_text(encoding="utf-8"))
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # an external URL
        path_text, _, anchor = target.partition("#")
        linked = (page.parent / path_text).resolve() if path_text else page
        assert linked.is_file(), f"{page.name}: link to a missing file {target!r}"
        if anchor:
            assert anchor in anchors(linked), f"{page.name}: link to a missing section {target!r}"
    for path_text in REPO_PATH.findall(page.read_text(encoding="utf-8")):
        assert (REPO / path_text).exists(), f"{page.name}: names a missing path {path_text!r}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_no_page_refers_to_documents_outside_the_repository(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"\bSPEC\b|SPEC\.md|API\.md", text), f"{page.name} refers to the unshipped SPEC/API.md"


def test_the_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title here\n\n## Errors are data\n")
    assert anchors(page) == {"title-here", "errors-are-data"}
    assert LINK.findall("see [x](other.md#a-b) and [y](https://e.org)") == ["other.md#a-b", "https://e.org"]
    assert REPO_PATH.findall("`dsh_tools/demo/tools/` and `examples/gone.py`") == ["dsh_tools/demo/tools/", "examples/gone.py"]
