"""Numbers the docs quote from the code are the code's: a changed constant fails here, not in a reader's hands."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_tools.code_mode.deno import runtime as deno_runtime
from dsh_tools.definitions.shape_code import BUDGET
from dsh_tools.mcp.connection import DEFAULT_MAX_MESSAGE_BYTES
from dsh_tools.mcp.toolset import DEFAULT_MAX_TOOLS, MAX_PAGES

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(
    ("page", "phrase"),
    [
        ("pipeline.md", f"that freezer stops at {BUDGET:,} values"),
        ("typed-outputs.md", f"at most {BUDGET:,} values inside arrays"),
        ("code-mode.md", f"`compute_ms` (rounded up to seconds) + {deno_runtime._CPU_BACKSTOP_S} s"),
        ("mcp.md", f"| `max_message_bytes` | {DEFAULT_MAX_MESSAGE_BYTES // 2**20} MiB ({DEFAULT_MAX_MESSAGE_BYTES:,} bytes) |"),
        ("mcp.md", f"| `max_tools` | {DEFAULT_MAX_TOOLS:,} |"),
        ("mcp.md", f"| (fixed) | {MAX_PAGES:,} `tools/list` pages |"),
    ],
)
def test_a_quoted_constant_matches_the_code(page: str, phrase: str) -> None:
    text = " ".join((DOCS / page).read_text(encoding="utf-8").split())  # phrases may wrap across lines
    assert phrase in text, f"{page} no longer says {phrase!r}"
