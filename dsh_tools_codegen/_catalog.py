"""The search-mode SDK texts (``catalog="search"``): a budget of characters, two built-ins, any tool by name.

A catalog of thousands of tools cannot be declared in every prompt (1,000
realistic tools are about 440,000 characters of TypeScript). In search mode
the section declares the tools it is given, in the order given (the caller
puts the author's ``tool_order`` first), while the *whole* text, usage
paragraph and built-ins included, stays within a budget of characters; the
rest are found by the program at run time:

* TypeScript: ``tools.$search({ query, limit? })`` gives ``{ name, description }``
  objects, best first, and ``tools.$describe({ name })`` a tool's declaration
  exactly as :func:`render_tools_sdk` writes its member (or ``null``); an index
  signature types every tool the block does not declare;
* Python: ``tools.search_tools(query=..., limit=...)`` and
  ``tools.describe_tool(name=...)`` (its ``TypedDict`` classes and method, as
  :func:`render_tools_sdk_python` writes them), and ``tools["name"](...)`` for
  any tool; a tool named like one of the built-ins is reached that way.

Declared members are the full renderers' own texts (the same memo), so the
text is byte-identical for equal inputs, and a tool's declaration reads the
same whichever text shows it. Pure and total like the rest of the package.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from ._pytypes import Shared, Walk
from ._python import _HEAD, _METHOD, _tool, _unique_stem
from ._sdk import _CACHE, ToolInput, _fields, _returns, _uncached, read_tools

__all__ = [
    "SEARCH_BUILTINS_PYTHON",
    "SEARCH_USAGE",
    "SEARCH_USAGE_PYTHON",
    "describe_tool_python",
    "describe_tool_ts",
    "render_search_sdk",
    "render_search_sdk_python",
]

SEARCH_USAGE: Final = (
    "Call tools by writing a TypeScript program and passing it as the `code` "
    "argument of `run_code`. The program is the body of an async function, so "
    "`await` works at the top level and `return` ends it with a value. The tools "
    "declared below may be only some of those you can call: find others with "
    "`await tools.$search({ query: \"what you need\" })` (the name and description "
    "of the best matches), read one's declaration with `await tools.$describe({ "
    "name })`, and call it like a declared one. Call a tool with `await "
    "tools.name({ ... })`, passing one object of arguments (`{}` when there are "
    'none); a tool whose name is not an identifier is called as `await tools["my-tool"]({ ... })`. '
    "A tool that returns data resolves to that value, a Promise<string> to the tool's "
    "text output. A denied or failed call rejects, so wrap calls in try/catch when "
    "you want to handle that. Only what you `console.log` or `return` comes back to "
    "you. Independent calls to tools that only read overlap when you await them "
    "together (`await Promise.all([...])`); a call that changes something runs alone. "
    "The tools:"
)
"""The usage paragraph of the search-mode TypeScript text."""

_TS_BUILTINS: Final = (
    "  /** Find tools by what they do: up to `limit` (default 10, at most 50) matches, best first. */\n"
    "  $search(args: { query: string; limit?: number }): Promise<{ name: string; description: string }[]>;\n"
    "  /** One tool's declaration, exactly as this SDK would declare it, or null for a tool you cannot call. */\n"
    "  $describe(args: { name: string }): Promise<string | null>;\n"
    "  /** Any tool you can call, declared here or not: `await tools.name({ ... })`. */\n"
    "  [name: string]: (args: any) => Promise<any>;"
)

SEARCH_USAGE_PYTHON: Final = (
    "Call tools by writing a Python program and passing it as the `code` "
    "argument of `run_code`. The program is the body of an async function, so "
    "`await` works at the top level and `return` ends it with a value. The tools "
    "declared below may be only some of those you can call: find others with "
    '`await tools.search_tools(query="what you need")` (the name and description '
    "of the best matches), read one's declaration with `await tools.describe_tool(name=...)`, "
    'and call any tool as `await tools["name"](key="value")`. Call a declared tool '
    'with keyword arguments, `await tools.name(path="x")`; a tool declared with one '
    "`args` parameter takes one dict. A tool that returns data gives that value, a "
    "`str` return is the tool's text output. A denied or failed call raises "
    "`ToolError` (its `str()` is the error text), so wrap calls in try/except when "
    "you want to handle that. Only what you `print` or `return` comes back to you. "
    "Independent calls to tools that only read overlap when you await them together "
    "(`await asyncio.gather(...)`); a call that changes something runs alone. The "
    "sandbox runs a subset of Python: no files, network, environment, subprocesses "
    "or class inheritance, and only some standard modules. The tools:"
)
"""The usage paragraph of the search-mode Python text."""

SEARCH_BUILTINS_PYTHON: Final = frozenset({"search_tools", "describe_tool", "ToolSummary"})
"""Names the search-mode Python text declares itself: a tool so named is reached as ``tools["name"]``."""

_PY_SUMMARY: Final = (
    "\n\nclass ToolSummary(TypedDict):\n"
    "    name: str\n"
    "    description: str"
)
_PY_BUILTINS: Final = (
    "\n    async def search_tools(self, *, query: str, limit: int = ...) -> list[ToolSummary]:\n"
    '        """Find tools by what they do: up to `limit` (default 10, at most 50) matches, best first."""\n'
    "\n    async def describe_tool(self, *, name: str) -> str | None:\n"
    '        """One tool\'s declaration (its TypedDicts and method), or None for a tool you cannot call."""'
)
_PY_ANY: Final = "Callable[..., Awaitable[Any]]"
_PY_INDEX: Final = (
    f"\n    def __getitem__(self, name: str) -> {_PY_ANY}:\n"
    '        """Any tool you can call, declared here or not: await tools["name"](key="value")."""'
)
_OVERLOAD: Final = "    @overload\n"
_PY_INDEX_OVERLOAD: Final = f"\n{_OVERLOAD}    def __getitem__(self, name: str) -> {_PY_ANY}: ..."
"""With declared ``tools["name"]`` overloads, the catch-all is an overload too (then the implementation)."""


def _more(count: int, language: str) -> str:
    """The line saying how many tools the text leaves out (none when it declares them all)."""
    if count <= 0:
        return ""
    found = "tools.$search" if language == "typescript" else "tools.search_tools"
    what = "tool is" if count == 1 else "tools are"
    return f"  // {count:,} more {what} not declared here: find them with {found}." if language == "typescript" else (
        f"\n    # {count:,} more {what} not declared here: find them with {found}."
    )


def _ts_member(fields: tuple[str, str | None, object, object], frozen: bool) -> str | None:
    """A tool's member text exactly as :func:`render_tools_sdk` writes it (the same memo), or ``None``."""
    name, description, parameters, output = fields
    returns = "string" if output is None else _returns(output, frozen)
    try:
        return _CACHE.member(name, description, parameters, returns, frozen)[0]
    except Exception:
        return _uncached(name, description, parameters, returns)


def render_search_sdk(tools: Iterable[ToolInput], budget: int, frozen: bool = False) -> tuple[str, tuple[str, ...]]:
    """The search-mode TypeScript section and the names of the tools it declares (the first of ``tools``, in their order).

    Tools are declared while the whole text stays within ``budget``
    characters; a budget too small for the instructions and built-ins alone
    declares none (the text is then longer than the budget). ``frozen``: the
    caller vouches its parameters never change (see :func:`render_frozen_tools_sdk`).
    """
    read = read_tools(tools)
    head = "\n".join([SEARCH_USAGE, "", "```ts", "declare const tools: {", _TS_BUILTINS])
    tail = "\n".join(["};", "```"])
    used = len(head) + 1 + len(tail)
    lines: list[str] = []
    seen: set[str] = set()
    seen_order: list[str] = []
    for index, fields in enumerate(read):
        if fields[0] in seen:
            continue  # the same name twice: the first (the caller's order decides)
        member = _ts_member(fields, frozen)
        if member is None:
            continue
        more = _more(len(read) - index - 1, "typescript")
        if used + len(member) + 1 + (len(more) + 1 if more else 0) > budget:
            break
        lines.append(member)
        seen.add(fields[0])
        seen_order.append(fields[0])
        used += len(member) + 1
    more = _more(len(read) - len(lines), "typescript")
    return "\n".join([head, *lines, *([more] if more else []), tail]), tuple(seen_order)


def describe_tool_ts(tool: ToolInput, frozen: bool = False) -> str | None:
    """``tool``'s member exactly as :func:`render_tools_sdk` declares it (JSDoc, then the signature), or ``None``."""
    fields = _fields(tool)
    return None if fields is None else _ts_member(fields, frozen)


def render_search_sdk_python(tools: Iterable[ToolInput], budget: int) -> tuple[str, tuple[str, ...]]:
    """The search-mode Python section and the names of the tools it declares, as :func:`render_search_sdk`."""
    read = read_tools(tools)
    head = "\n".join([SEARCH_USAGE_PYTHON, "", "```python", _HEAD, _PY_SUMMARY])
    protocol = "\n\nclass Tools(Protocol):" + _PY_BUILTINS
    tail = "\n".join(["", "", "tools: Tools", "```"])
    index_len = len(_PY_INDEX) + 1
    used = len(head) + 1 + len(protocol) + 1 + index_len + len(tail)
    classes: list[str] = []
    methods: list[str] = []
    overloads: list[str] = []
    shared: Shared = ({}, {}, {})
    stems: dict[str, int] = {}
    seen: set[str] = set()
    declared: list[str] = []
    for index, (name, description, parameters, output) in enumerate(read):
        if name in seen:
            continue
        stem, base, count = _unique_stem(name, stems)
        try:
            _, args, member, output_class = _tool(
                name, description, parameters, output, Walk(*shared, stem), SEARCH_BUILTINS_PYTHON
            )
        except Exception:
            continue
        is_method = member.startswith(_METHOD)
        adds = len(args) + 1 + len(member) + 1 + (len(output_class) + 1 if output_class else 0)
        if not is_method and not overloads:
            adds += len(_PY_INDEX_OVERLOAD) + 1
        more = _more(len(read) - index - 1, "python")
        if used + adds + (len(more) + 1 if more else 0) > budget:
            break
        stems[base], stems[stem] = count, 1
        seen.add(name)
        if output_class:
            classes.append(output_class)
        classes.append(args)
        (methods if is_method else overloads).append(member)
        used += adds
        declared.append(name)
    lines = [head, *classes, protocol, *methods]
    if overloads:
        lines.extend(overloads)
        lines.append(_PY_INDEX_OVERLOAD)
    lines.append(_PY_INDEX)
    more = _more(len(read) - len(declared), "python")
    if more:
        lines.append(more)
    return "\n".join([*lines, tail]), tuple(declared)


def describe_tool_python(tool: ToolInput) -> str | None:
    """``tool``'s ``TypedDict`` classes and its method on ``Tools`` (a ``tools["name"]`` signature when
    it is not a method in the search-mode text), as :func:`render_tools_sdk_python` writes them; ``None``
    if it cannot be read."""
    fields = _fields(tool)
    if fields is None:
        return None
    name, description, parameters, output = fields
    stem, _, _ = _unique_stem(name, {})
    try:
        _, args, member, output_class = _tool(
            name, description, parameters, output, Walk({}, {}, {}, stem), SEARCH_BUILTINS_PYTHON
        )
    except Exception:
        return None
    member = member.replace(_OVERLOAD, "")
    parts = [output_class, args] if output_class else [args]
    return "".join([*parts, "\n\n\nclass Tools(Protocol):", member]).lstrip("\n")
