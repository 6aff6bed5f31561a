"""Numbers the docs quote from the code are the code's: a changed constant fails here, not in a reader's hands."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_tools.code_mode.deno import runtime as deno_runtime
from dsh_tools.definitions.fast_freeze import BUDGET

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(
    ("page", "phrase"),
    [
        ("pipeline.md", f"that freezer stops at {BUDGET:,} values"),
        ("typed-outputs.md", f"at most {BUDGET:,} values inside arrays"),
        ("code-mode.md", f"`compute_ms` (rounded up to seconds) + {deno_runtime._CPU_BACKSTOP_S} s"),
    ],
)
def test_a_quoted_constant_matches_the_code(page: str, phrase: str) -> None:
    text = " ".join((DOCS / page).read_text(encoding="utf-8").split())  # phrases may wrap across lines
    assert phrase in text, f"{page} no longer says {phrase!r}"
