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
* :func:`render_search_sdk`, :func:`render_search_sdk_python` — the section
  of ``catalog="search"``: tools declared in a given order within a budget of
  characters, the ``$search``/``$describe`` built-ins and any tool by name;
  :func:`describe_tool_ts`, :func:`describe_tool_python` — one tool's
  declaration as the full texts write it (:mod:`._catalog`).

One rule set (:mod:`._schema`) over one way of reading a schema
(:mod:`._read`); the per-tool memo is in :mod:`._sdk`. The renderer's
modules are compiled with mypyc when the build can, which renders a new
catalog two to three times as fast; the text is the same either way, and stale or
unwanted native code never runs (:mod:`._implementation`).
"""

from ._implementation import IMPLEMENTATION as _IMPLEMENTATION  # noqa: F401 - first: it picks compiled or source modules
from ._catalog import (
    SEARCH_BUILTINS_PYTHON,
    SEARCH_USAGE,
    SEARCH_USAGE_PYTHON,
    describe_tool_python,
    describe_tool_ts,
    render_search_sdk,
    render_search_sdk_python,
)
from ._python import SDK_USAGE_PYTHON, render_tools_sdk_python
from ._schema import type_text as _type_text
from ._sdk import SDK_USAGE, ToolSchemaLike, render_frozen_tools_sdk, render_tools_sdk
from ._text import member_key

__all__ = [
    "SDK_USAGE",
    "SDK_USAGE_PYTHON",
    "SEARCH_BUILTINS_PYTHON",
    "SEARCH_USAGE",
    "SEARCH_USAGE_PYTHON",
    "ToolSchemaLike",
    "describe_tool_python",
    "describe_tool_ts",
    "json_schema_to_ts",
    "member_key",
    "render_frozen_tools_sdk",
    "render_search_sdk",
    "render_search_sdk_python",
    "render_tools_sdk",
    "render_tools_sdk_python",
]


def json_schema_to_ts(schema: object, indent: int = 0) -> str:
    """Render ``schema`` as a TypeScript type; total, never raises.

    ``indent`` is the nesting level of the rendered type: an object block's
    members are indented ``indent + 1`` levels (two spaces each) and its
    closing brace ``indent`` levels; the opening brace is not indented (the
    type continues a line such as ``args: ``). An indent that is not an
    ``int`` reads as ``0``. Constructs outside the supported subset, and
    anything that misbehaves, render as ``unknown``.

    Defined here, in Python, rather than in the (compiled) renderer: compiled
    code would reject an ``indent`` that is not an ``int`` before the body
    could clamp it.
    """
    return _type_text(schema, indent)
