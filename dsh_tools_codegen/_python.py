"""The Python Code Mode SDK text (:func:`render_tools_sdk_python`).

A model that writes Python sees its tools as a typed Python API: one
``TypedDict`` per tool's arguments and one ``async def`` per tool on a
``Tools`` protocol, in a fenced ``python`` block that compiles and passes
``mypy --strict`` as it is (``tests/codegen`` checks both). The same
guarantees as the TypeScript renderer, for the same reasons (the text sits
near the top of every prompt):

* **Determinism.** Tools in code-point order of their names (ties by their
  rendered text), properties in the author's order (the shared reading rules
  of :mod:`._read`), so an unchanged set gives byte-identical text.
* **Totality.** Hostile input degrades, never raises: a schema node that
  cannot be read becomes ``Any``, a tool that cannot be read is skipped.
* **Safety of the text.** Everything that came from user data reaches the
  output only as a JSON string literal (valid Python, ASCII-escaped), a
  plain ASCII identifier checked here, or a one-line docstring built from
  such a literal, so no name or description can end a string or a block.

Names: a tool named by a plain ASCII identifier (no keyword, no leading
``__``, no name the text itself uses) is a method; any other tool is
reached as ``tools["my-tool"]({...})`` (a typed ``__getitem__`` overload
per such name, taking one dict of arguments). A tool whose property
names are all such identifiers takes keyword-only arguments (a property
that is not required defaults to ``...``, meaning "left out"); any other
takes one positional ``args: <Tool>Args``.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter
from typing import Final

from ._pytypes import (
    Shared, Walk, camel, is_method_name, literal, one_line, read_properties, read_returns, typed_dict,
)
from ._sdk import ToolInput, read_tools

__all__ = ["SDK_USAGE_PYTHON", "render_tools_sdk_python"]

SDK_USAGE_PYTHON: Final = (
    "Call tools by writing a Python program and passing it as the `code` "
    "argument of `run_code`. The program is the body of an async function, so "
    "`await` works at the top level and `return` ends it with a value. Call a "
    'tool with keyword arguments, `await tools.name(path="x")`; a tool declared '
    "with one `args` parameter takes one dict, and a tool whose name is not an "
    'identifier is called as `await tools["my-tool"]({...})`. Each call returns '
    "the type declared for it: a tool that returns data gives that value "
    "(compute with it directly), a `str` return is the tool's text output. A "
    "denied or failed call raises `ToolError` (its `str()` is the error text), "
    "so wrap calls in try/except when you want to handle that. Only what you "
    "`print` or `return` comes back to you. Independent calls to tools that "
    "only read overlap when you await them together "
    "(`await asyncio.gather(...)`); a call that changes something runs alone. "
    "The sandbox runs a subset of Python: no files, network, environment, "
    "subprocesses or class inheritance, and only some standard modules "
    "(asyncio, json, math, re, datetime, time, random, collections, itertools, "
    "functools, ...). The available tools:"
)
"""The fixed usage instructions that open the Python SDK text."""

_HEAD: Final = (
    "from typing import Any, Awaitable, Callable, Literal, NotRequired, Protocol, TypedDict, overload\n"
    "\n\n"
    "class ToolError(Exception):\n"
    '    """A denied or failed call; its str() is the result\'s "Error: ..." text."""\n'
)

_METHOD: Final = "\n    async def "
"""How a method member's text starts."""
_NAME: Final = itemgetter(0)


def render_tools_sdk_python(tools: Iterable[ToolInput]) -> str:
    """The Python Code Mode SDK section: usage paragraph + one fenced ``python`` block.

    Reads what :func:`render_tools_sdk` reads (``name``, ``description``,
    ``parameters`` and an optional ``output_schema``, as attributes or
    mapping keys). Pure and total: no I/O, never raises for any input.
    """
    read = read_tools(tools)  # (name, description, parameters, output schema)
    # Fast path of _stems_after (test_codegen_python checks they agree): when no name repeats, the tools
    # in name order are the text's order, so each class-name stem is known before its tool's text is made.
    known = len(set(map(_NAME, read))) == len(read)
    if known:
        read.sort(key=_NAME)
    entries: list[tuple[str, str, str, str]] = []  # (name, args class, method or overload, output class)
    shared: Shared = ({}, {}, {})  # what Walk memoises across one render's tools
    keys, unions, enums = shared
    used: dict[str, int] = {}
    for name, description, parameters, output in read:
        stem, base, count = _unique_stem(name, used) if known else ("\x00", "", 0)
        try:
            entries.append(_tool(name, description, parameters, output, Walk(keys, unions, enums, stem)))
        except Exception:
            continue  # this tool alone (e.g. MemoryError on a huge description), its stem left free
        if known:
            used[base], used[stem] = count, 1
    return _assemble(entries if known else _stems_after(entries))


def _stems_after(entries: list[tuple[str, str, str, str]]) -> list[tuple[str, str, str, str]]:
    """The rule for stems: texts made with ``\\x00`` for their stem are sorted (a repeated name's by
    its texts), the same tool twice kept once, then each stem is given in that order."""
    entries.sort()
    named: list[tuple[str, str, str, str]] = []
    used: dict[str, int] = {}
    previous = None
    for entry in entries:
        if entry == previous:
            continue  # the same tool twice: once
        previous = entry
        name, args, member, output = entry
        stem, base, count = _unique_stem(name, used)
        used[base], used[stem] = count, 1
        named.append((name, args.replace("\x00", stem), member.replace("\x00", stem), output.replace("\x00", stem)))
    return named


def _assemble(entries: list[tuple[str, str, str, str]]) -> str:
    classes: list[str] = []
    methods: list[str] = []
    overloads: list[str] = []
    for _, args, member, output in entries:
        if output:
            classes.append(output)
        classes.append(args)
        if member.startswith(_METHOD):  # _tool made a method of it (else an overload)
            methods.append(member)
        else:
            overloads.append(member)
    lines = [SDK_USAGE_PYTHON, "", "```python", _HEAD]
    lines.extend(classes)
    lines.append("\n\nclass Tools(Protocol):")
    lines.extend(methods)
    if len(overloads) == 1:
        lines.append(overloads[0].replace("    @overload\n", ""))
    elif overloads:
        lines.extend(overloads)
        lines.append("    def __getitem__(self, name: str) -> Callable[[Any], Awaitable[Any]]: ...")
    if not methods and not overloads:
        lines.append('    """No tools are available."""')
    lines += ["", "", "tools: Tools", "```"]
    return "\n".join(lines)


def _unique_stem(name: str, used: dict[str, int]) -> tuple[str, str, int]:
    """A CamelCase ASCII class-name stem for ``name``, unique in this text (``ReadFile``, ``ReadFile2``),
    and what taking it records: ``used[base], used[stem] = count, 1`` (every stem made so far, so
    "ReadFile2" of a twin never meets "read_file2"'s)."""
    base = camel(name) or "Tool"
    if base[0].isdigit():
        base = "Tool" + base
    stem, count = base, used.get(base, 1)
    while stem in used:
        count += 1
        stem = f"{base}{count}"
    return stem, base, count


def _tool(
    name: str, description: str | None, parameters: object, output: object, walk: Walk, reserved: frozenset[str] = frozenset()
) -> tuple[str, str, str, str]:
    """``(name, args class, member, output class)``, named after ``walk.stem``; a name in ``reserved``
    (what a search-mode text declares itself) is reached as ``tools["name"]`` even when it could be a method."""
    stem = walk.stem
    fields, lines = read_properties(parameters, walk, "")
    nested_args, walk.classes = walk.classes, []
    returns, output_class = read_returns(output, walk)
    output_class = "\n".join([*walk.classes, output_class]) if walk.classes else output_class
    doc = _docstring(description)
    args_class = typed_dict(f"{stem}Args", fields, lines)
    if nested_args:
        args_class = "\n".join([*nested_args, args_class])
    if lines is not None:  # every key an identifier: keyword arguments
        params = "".join([f", {key}: {text}" if required else f", {key}: {text} = ..." for key, text, required in fields])
        signature = f"(self, *{params})" if params else "(self)"
    else:
        signature = f"(self, args: {stem}Args, /)"
    if is_method_name(name) and name not in reserved:
        member = f"{_METHOD}{name}{signature} -> {returns}:\n        {doc}"
    else:
        # ``tools["name"]`` is called with one dict of arguments, as in TypeScript
        member = (
            f"\n    @overload\n    def __getitem__(self, name: Literal[{literal(name)}]) -> "
            f"Callable[[{stem}Args], Awaitable[{returns}]]:\n        {doc}"
        )
    return (name, args_class, member, output_class)


def _docstring(description: str | None) -> str:
    """A one-line docstring statement for ``description`` (``...`` when there is none).

    Built from the ASCII-escaped literal, so it cannot end early, span lines
    or carry a character that is not valid in source (NUL, lone surrogates).
    """
    line = one_line(description) if description else ""
    return f'"""{line}"""' if line else "..."
