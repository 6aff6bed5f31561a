"""Pure TypeScript and Python SDK generation for Code Mode (no I/O, no runtime imports).

Code Mode shows the model its tools as a TypeScript API instead of wire
function schemas. This package turns tool schemas into that API text and
nothing else: it performs no I/O and never imports the ``dsh_tools`` runtime,
so the registry (and anyone else) can call it at every prompt assembly, and
it can be tested and type-checked in isolation.

* :func:`json_schema_to_ts` — one JSON Schema as a TypeScript type; total.
* :func:`render_tools_sdk` — the whole ``tools:sdk`` prompt section: the
  fixed :data:`SDK_USAGE` paragraph and one fenced ``ts`` block declaring
  ``declare const tools: {...}``; deterministic and memoised per tool;
  :func:`render_frozen_tools_sdk` for schemas the caller vouches never change.
* :func:`member_key` — a tool name as the SDK writes it as a member (quoted
  when it is not an identifier; pass ``method=True`` for a method, as the
  SDK does, so ``new`` is quoted): for text that must match the SDK's.
* :func:`render_tools_sdk_python` — the same section for Python Code Mode:
  :data:`SDK_USAGE_PYTHON` and one fenced ``python`` block (``TypedDict``
  arguments, an ``async def`` per tool on a ``Tools`` protocol).

Pure Python, one rule set (:mod:`._schema`) over one way of reading a
schema (:mod:`._read`); the per-tool memo is in :mod:`._sdk`.
"""

from ._python import SDK_USAGE_PYTHON, render_tools_sdk_python
from ._schema import json_schema_to_ts
from ._sdk import SDK_USAGE, ToolSchemaLike, render_frozen_tools_sdk, render_tools_sdk
from ._text import member_key

__all__ = [
    "SDK_USAGE",
    "SDK_USAGE_PYTHON",
    "ToolSchemaLike",
    "json_schema_to_ts",
    "member_key",
    "render_frozen_tools_sdk",
    "render_tools_sdk",
    "render_tools_sdk_python",
]
