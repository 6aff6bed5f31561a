"""The Python Code Mode SDK text (:func:`render_tools_sdk_python`).

A model that writes Python sees its tools as a typed Python API: one
``TypedDict`` per tool's arguments and one ``async def`` per tool on a
``Tools`` protocol, in a fenced ``python`` block that compiles and passes
``mypy --strict`` as it is (``tests/codegen`` checks both). The same
guarantees as the TypeScript renderer, for the same reasons (the text sits
near the top of every prompt):

* **Determinism.** Tools in code-point order of their names (ties by their
  rendered text), properties in the author's order (the shared reading rules
  of :mod:`._schema`), so an unchanged set gives byte-identical text.
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

from json.encoder import encode_basestring_ascii as _encode_ascii  # = json.dumps(s)
import keyword
import re
from collections.abc import Iterable
from itertools import islice
from typing import Final

from ._rules import MAX_DEPTH, MAX_ITEMS
from ._schema import _entries, _is_sequence, _required, _take, _view
from ._sdk import MAX_TOOLS, ToolInput, _fields, _is_mapping_class
from ._text import exact_str

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
_KEYWORDS: Final = frozenset(keyword.kwlist)
_WORDS: Final = re.compile(r"[A-Za-z0-9]+")
_SCALARS: Final = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
_ANY: Final = "Any"
_RESERVED: Final = frozenset(
    {"Any", "Awaitable", "Callable", "Literal", "NotRequired", "Protocol", "TypedDict", "overload"}
    | {"ToolError", "Tools", "tools", "self", "str", "int", "float", "bool", "list", "dict"}
)
"""Names the text itself uses: a tool or class-syntax key named so would shadow them."""
_MAX_NODES: Final = 2_000
"""Schema nodes read per tool (arguments and output) before the rest degrade to ``Any``."""


def render_tools_sdk_python(tools: Iterable[ToolInput]) -> str:
    """The Python Code Mode SDK section: usage paragraph + one fenced ``python`` block.

    Reads what :func:`render_tools_sdk` reads (``name``, ``description``,
    ``parameters`` and an optional ``output_schema``, as attributes or
    mapping keys). Pure and total: no I/O, never raises for any input.
    """
    entries: list[tuple[str, str, str, str]] = []  # (name, args class, method or overload, output class)
    try:
        for tool in islice(tools, MAX_TOOLS):
            fields = _fields(tool)
            if fields is None:
                continue
            try:
                entries.append(_tool(fields[0], fields[1], fields[2], _output(tool)))
            except Exception:
                continue  # this tool alone (e.g. MemoryError on a huge description)
    except Exception:
        pass  # an iterable that fails midway: render what it yielded
    entries.sort()
    return _assemble(entries)


def _assemble(entries: list[tuple[str, str, str, str]]) -> str:
    classes: list[str] = []
    methods: list[str] = []
    overloads: list[str] = []
    used: dict[str, int] = {}
    previous = None
    for entry in entries:
        if entry == previous:
            continue  # the same tool twice: once
        previous = entry
        name, args, member, output = entry
        stem = _unique_stem(name, used)
        if output:
            classes.append(output.replace("\x00", stem))
        classes.append(args.replace("\x00", stem))
        if _is_method_name(name):
            methods.append(member.replace("\x00", stem))
        else:
            overloads.append(member.replace("\x00", stem))
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


def _unique_stem(name: str, used: dict[str, int]) -> str:
    """A CamelCase ASCII class-name stem for ``name``, unique in this text (``ReadFile``, ``ReadFile2``)."""
    words = _WORDS.findall(name)
    stem = "".join(word[:1].upper() + word[1:] for word in words) or "Tool"
    if stem[0].isdigit():
        stem = "Tool" + stem
    count = used.get(stem, 0) + 1
    used[stem] = count
    return stem if count == 1 else f"{stem}{count}"


def _is_method_name(name: str) -> bool:
    """A name that can be a method or a class-syntax key: a plain ASCII identifier,
    no keyword, not mangled (``__x``), shadowing no name the text uses."""
    return (
        name.isascii()
        and name.isidentifier()
        and name not in _KEYWORDS
        and not name.startswith("__")
        and name not in _RESERVED
        and not name.endswith(("Args", "Result"))
    )


def _tool(name: str, description: str | None, parameters: object, output: object) -> tuple[str, str, str, str]:
    """``(name, args class, member, output class)``, with ``\\x00`` standing for the class-name stem."""
    budget = [_MAX_NODES]
    fields = _properties(parameters, budget)
    returns, output_class = _returns(output, budget)
    doc = _docstring(description)
    keyword_call = all(field[4] for field in fields)
    args_class = _typed_dict("\x00Args", fields)
    literal = _literal(name)
    if keyword_call:
        params = "".join(f", {key}: {text}" if required else f", {key}: {text} = ..." for key, text, required, _, _ in fields)
        signature = f"(self, *{params})" if params else "(self)"
    else:
        signature = "(self, args: \x00Args, /)"
    if _is_method_name(name):
        member = f"\n    async def {name}{signature} -> {returns}:\n        {doc}"
    else:
        # ``tools["name"]`` is called with one dict of arguments, as in TypeScript
        member = (
            f"\n    @overload\n    def __getitem__(self, name: Literal[{literal}]) -> "
            f"Callable[[\x00Args], Awaitable[{returns}]]:\n        {doc}"
        )
    return (name, args_class, member, output_class)


def _typed_dict(class_name: str, fields: list[tuple[str, str, bool, str | None, bool]]) -> str:
    """A ``TypedDict``: class syntax when every key is an identifier, the functional form otherwise."""
    if all(field[4] for field in fields):
        body = []
        for key, text, required, doc, _ in fields:
            body.append(f"    {key}: {text}" if required else f"    {key}: NotRequired[{text}]")
            if doc is not None:
                body[-1] += f"  # {doc}"
        return f"\n\nclass {class_name}(TypedDict):\n" + ("\n".join(body) if body else "    pass")
    items = ", ".join(f"{_literal(key)}: {text if required else f'NotRequired[{text}]'}" for key, text, required, _, _ in fields)
    return f'\n\n{class_name} = TypedDict("{class_name}", {{{items}}})'


def _properties(parameters: object, budget: list[int]) -> list[tuple[str, str, bool, str | None, bool]]:
    """``(key, type, required, comment, is an identifier)`` per property, in the author's order (none if unreadable)."""
    try:
        view = _view(parameters)
        if view is None:
            return []
        entries = _entries(view.get("properties")) or []
        required = _required(view.get("required"))
    except Exception:
        return []
    fields = []
    for key, sub in entries:
        try:
            sub_view = _view(sub)
            description = None if sub_view is None else sub_view.get("description")
            text = exact_str(description) if description is not None else None
            doc = _literal(" ".join(text.split()))[1:-1] if text else None  # one ASCII line
        except Exception:
            doc = None
        fields.append((key, _type(sub, 1, budget), key in required, doc or None, _is_method_name(key)))
    return fields


def _returns(output: object, budget: list[int]) -> tuple[str, str]:
    """The return annotation and, for an object output with properties, its ``<Tool>Result`` class."""
    if output is None:
        return "str", ""
    try:
        view = _view(output)
        properties = None if view is None else view.get("properties")
    except Exception:
        return _ANY, ""
    if properties is None or _type_names(view) not in (("object",), ("object", "null"), ("null", "object")):
        return _type(output, 0, budget), ""
    fields = _properties(output, budget)
    nullable = " | None" if "null" in _type_names(view) else ""
    return f"\x00Result{nullable}", _typed_dict("\x00Result", fields)


def _type_names(view: object) -> tuple[str, ...]:
    """The node's ``type`` as a tuple of names (``()`` when absent or odd)."""
    if not isinstance(view, dict):
        return ()
    kind = view.get("type")
    text = exact_str(kind)
    if text is not None:
        return (text,)
    if kind is not None and _is_sequence(kind):
        names = _take(kind) or []
        return tuple(name for name in map(exact_str, names) if name is not None)
    return ()


def _type(node: object, depth: int, budget: list[int]) -> str:
    """A Python type for one schema node; ``Any`` whatever cannot be expressed or read."""
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        return _ANY
    try:
        view = node if type(node) is dict else _view(node)
        if view is None:
            return _ANY
        return _type_view(view, depth, budget)
    except Exception:
        return _ANY


def _type_view(view: dict[object, object], depth: int, budget: list[int]) -> str:
    if "$ref" in view or "allOf" in view:
        return _ANY
    kind = view.get("type")
    if type(kind) is str and "const" not in view and "enum" not in view and "anyOf" not in view and "oneOf" not in view:
        return _named_type(kind, view, depth, budget)  # the common case, same text as below
    if "const" in view:
        return _literal_type([view["const"]])
    enum = view.get("enum")
    if enum is not None:
        return _literal_type(_take(enum) if _is_sequence(enum) else None)
    for combinator in ("anyOf", "oneOf"):
        members = view.get(combinator)
        if members is not None:
            taken = _take(members) if _is_sequence(members) else None
            return _ANY if not taken else _union([_type(member, depth + 1, budget) for member in taken])
    names = _type_names(view)
    if not names:
        return _ANY
    return _union([_named_type(name, view, depth, budget) for name in names])


def _named_type(name: str, view: dict[object, object], depth: int, budget: list[int]) -> str:
    scalar = _SCALARS.get(name)
    if scalar is not None:
        return scalar
    if name == "array":
        items = view.get("items")
        return f"list[{_type(items, depth + 1, budget) if items is not None else _ANY}]"
    if name == "object":
        extra = view.get("additionalProperties")
        if view.get("properties") is None and extra is not None and _view(extra) is not None:
            return f"dict[str, {_type(extra, depth + 1, budget)}]"
        return f"dict[str, {_ANY}]"
    return _ANY


def _union(members: list[str]) -> str:
    """``A | B``, deduplicated in first-seen order; ``Any`` absorbs the rest."""
    if _ANY in members or not members:
        return _ANY
    unique = list(dict.fromkeys(members))
    if len(unique) > MAX_ITEMS:
        return _ANY
    return " | ".join(unique)


def _literal_type(values: list[object] | None) -> str:
    """``Literal[...]`` of str/int/bool values (``None`` joins as ``| None``); ``Any`` for anything else."""
    if not values:
        return _ANY
    literals: list[str] = []
    nullable = False
    for value in values:
        if value is None:
            nullable = True
        elif isinstance(value, bool):
            literals.append("True" if value else "False")
        elif isinstance(value, int):
            literals.append(int.__repr__(value))
        else:
            text = exact_str(value)
            if text is None:
                return _ANY  # floats, containers: no literal type
            literals.append(_literal(text))
    unique = list(dict.fromkeys(literals))
    if not unique:
        return "None"
    return f"Literal[{', '.join(unique)}]" + (" | None" if nullable else "")


def _literal(text: str) -> str:
    """A Python string literal for ``text``: JSON with ASCII escapes (always valid Python, one line)."""
    return _encode_ascii(text)


def _docstring(description: str | None) -> str:
    """A one-line docstring statement for ``description`` (``...`` when there is none).

    Built from the ASCII-escaped literal, so it cannot end early, span lines
    or carry a character that is not valid in source (NUL, lone surrogates).
    """
    line = " ".join(description.split()) if description else ""
    return f'"""{_literal(line)[1:-1]}"""' if line else "..."


def _output(tool: object) -> object:
    """The tool's ``output_schema`` (attribute or mapping key), ``None`` when it has none or it cannot be read."""
    try:
        if type(tool) is dict or _is_mapping_class(type(tool)):
            view = _view(tool)
            return None if view is None else view.get("output_schema")
        return getattr(tool, "output_schema", None)
    except Exception:
        return None

