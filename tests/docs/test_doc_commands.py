"""Every ``dsh-tools`` command a page shows in a code block parses as written.

The Python blocks run (``test_doc_examples``); a shell block cannot run here
(it names databases and modules a reader has), but the command line a reader
copies must be one the CLI accepts: each line of a fenced block that starts
with ``dsh-tools`` (a ``\\`` continuation joined, anything after a pipe, ``&&``
or ``#`` cut off) goes through the CLI's own parser, which raises
``SystemExit`` on a wrong option or a missing required one.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh_tools.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCED = re.compile(r"^```[\w-]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
CUT = re.compile(r"\s(?:\||&&|#)(?:\s|$)")


def command_lines(text: str) -> Iterator[list[str]]:
    """The arguments of every ``dsh-tools`` command line in ``text``'s fenced blocks."""
    for block in FENCED.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip().removeprefix("$ ")
            if line.startswith("dsh-tools "):
                yield shlex.split(CUT.split(line, maxsplit=1)[0])[1:]


def refusal(arguments: list[str]) -> str | None:
    """What the CLI's parser says against ``arguments``, or ``None`` when it accepts them."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(arguments)
    except SystemExit:
        return said.getvalue().strip() or "refused"
    return None


def test_the_pages_show_commands() -> None:
    assert sum(len(list(command_lines(page.read_text(encoding="utf-8")))) for page in PAGES) >= 3


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_in_a_code_block_parses(page: Path) -> None:
    for arguments in command_lines(page.read_text(encoding="utf-8")):
        problem = refusal(arguments)
        assert problem is None, f"{page.name}: `dsh-tools {shlex.join(arguments)}` does not parse: {problem}"


def test_the_check_catches_what_it_looks_for() -> None:
    page = "text\n\n```sh\n$ dsh-tools approvals watch | jq .\ndsh-tools log \\\n  --store sqlite:///c.db --json  # newest last\n```\n"
    assert list(command_lines(page)) == [["approvals", "watch"], ["log", "--store", "sqlite:///c.db", "--json"]]
    assert refusal(["approvals", "watch"]) is not None  # --store is required
    assert refusal(["log", "--store", "sqlite:///c.db", "--json"]) is None
