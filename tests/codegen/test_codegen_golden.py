"""Golden snapshots of the generated SDK for a realistic catalog.

Regenerate after an intended change with ``UPDATE_GOLDEN=1 pytest
tests/codegen`` and review the diff in git. The goldens are plain TypeScript
(the declaration block, and one type alias per tool schema), so the Deno test
type-checks them as they are.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from codegen_catalog import CATALOG
from value_shapes import frozen

from dsh_tools_codegen import SDK_USAGE, json_schema_to_ts, render_tools_sdk

GOLDEN = Path(__file__).parent / "golden"
FENCE_OPEN = "\n\n```ts\n"


def declarations(sdk_text: str) -> str:
    """The content of the SDK text's single ``ts`` fence, newline-terminated."""
    head, _, rest = sdk_text.partition(FENCE_OPEN)
    assert head == SDK_USAGE
    body, _, tail = rest.rpartition("```")
    assert tail == ""
    return body


def schema_aliases() -> str:
    """Each tool's parameters via ``json_schema_to_ts`` at indent 0."""
    parts = []
    for index, entry in enumerate(CATALOG):
        parts.append(f"/** {entry['name']} */\ntype Args{index} = {json_schema_to_ts(entry['parameters'])};\n")
    return "\n".join(parts)


def rendered_goldens() -> dict[str, str]:
    return {
        "catalog_tools.ts": declarations(render_tools_sdk(CATALOG)),
        "catalog_schemas.ts": schema_aliases(),
    }


@pytest.mark.parametrize("name", sorted(rendered_goldens()))
def test_golden(name: str) -> None:
    actual = rendered_goldens()[name]
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8", newline="\n")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"golden/{name}",
                tofile="rendered",
            )
        )
        pytest.fail(f"golden/{name} differs (UPDATE_GOLDEN=1 to accept):\n{diff}", pytrace=False)


def test_full_sdk_text_is_usage_plus_the_golden_block() -> None:
    block = (GOLDEN / "catalog_tools.ts").read_text(encoding="utf-8")
    assert render_tools_sdk(CATALOG) == f"{SDK_USAGE}{FENCE_OPEN}{block}```"


def test_the_registrys_frozen_form_renders_the_same_golden_block() -> None:
    # frozen objects keep the author's order, so there is no separate frozen golden
    block = (GOLDEN / "catalog_tools.ts").read_text(encoding="utf-8")
    assert declarations(render_tools_sdk([frozen(t) for t in CATALOG])) == block
