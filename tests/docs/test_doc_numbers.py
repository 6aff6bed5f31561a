"""Numbers the docs quote from the code are the code's: a changed constant fails here, not in a reader's hands."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_tools.code_mode.deno import runtime as deno_runtime
from dsh_tools.code_mode.search.builtins import MAX_BUILTIN_CALLS, MAX_SEARCH_LIMIT, MIN_CATALOG_CHARS
from dsh_tools.code_mode.search.index import COMMON_FLOOR, MAX_QUERY_CHARS, MAX_QUERY_TERMS
from dsh_tools.store.memory import DEFAULT_MAX_SPILLED_BYTES
from dsh_tools.store.spilled import DEFAULT_PAGE_CHARS, MAX_OFFSET, MAX_PAGE_CHARS, PART_CHARS, check_page
from dsh_tools.tool_types import MIN_INLINE_BYTES
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
        ("code-mode.md", f"a run may make {MAX_BUILTIN_CALLS}"),
        ("code-mode.md", f"at least {MIN_CATALOG_CHARS:,})"),
        ("code-mode.md", f"at most {MAX_SEARCH_LIMIT})"),
        ("code-mode.md", f"read up to {MAX_QUERY_CHARS:,} characters and {MAX_QUERY_TERMS} distinct words"),
        ("code-mode.md", f"(and more than {COMMON_FLOOR} of them)"),
        ("pipeline.md", f"`read_result(locator, offset=0, limit={DEFAULT_PAGE_CHARS})`"),
        ("pipeline.md", f"at most {MAX_PAGE_CHARS:,})"),
        ("pipeline.md", f"an offset outside 0 to 2^{MAX_OFFSET.bit_length()} - 1"),
        ("pipeline.md", f"at least {MIN_INLINE_BYTES:,})"),
        ("pipeline.md", f"{DEFAULT_MAX_SPILLED_BYTES >> 20} MiB by default"),
        ("durability.md", f"parts of {PART_CHARS:,} characters"),
    ],
)
def test_a_quoted_constant_matches_the_code(page: str, phrase: str) -> None:
    text = " ".join((DOCS / page).read_text(encoding="utf-8").split())  # phrases may wrap across lines
    assert phrase in text, f"{page} no longer says {phrase!r}"


def test_read_result_s_own_description_quotes_its_page_sizes() -> None:
    """The model reads these numbers in the tool's schema: they are the constants the store applies."""
    from dsh_tools import boot

    ctx = boot(max_inline_bytes=4096)
    (schema,) = [schema for schema in ctx.tools.schemas() if schema.name == "read_result"]
    assert f"(default {DEFAULT_PAGE_CHARS}, at most {MAX_PAGE_CHARS})" in str(schema.parameters)
    # The doc's "0 to 2^N - 1" is the bound the store enforces, not only the constant's spelling.
    assert check_page(MAX_OFFSET, 1) == (MAX_OFFSET, 1) and MAX_OFFSET == 2 ** MAX_OFFSET.bit_length() - 1
    with pytest.raises(ValueError, match="offset"):
        check_page(MAX_OFFSET + 1, 1)
