"""JSON Schema → TypeScript type text (:func:`json_schema_to_ts`).

The generated text is shown to a model, not fed to a validator, so the goal is
a faithful, readable *approximation* of the subset tool authors actually
write, and total behaviour on everything else: a schema comes from plugins,
MCP servers and users, and a prompt assembly must never fail because one of
them is odd. Hence:

* every node is rendered inside its own ``try``; any exception (hostile
  ``__eq__``/``__iter__``/``__getattr__``, ``RecursionError``, ``MemoryError``
  …) degrades that node to ``unknown`` and leaves its siblings intact;
* cycles (self-referencing containers or ``$ref`` loops) are caught by the set
  of node ids on the current path, and render ``unknown`` at the recursion
  point;
* depth (:data:`MAX_DEPTH`), total nodes per call (:data:`MAX_NODES`) and
  container sizes (:data:`MAX_ITEMS`) are bounded, so neither a 10,000-deep
  nesting nor a ``$ref`` DAG that doubles at every level can exhaust the
  stack or memory;
* containers are read through the base-class methods where possible
  (``dict.get``, ``dict.items``) and keys are copied to exact ``str``, so
  subclasses cannot inject text.

Rule precedence per node: ``$ref`` → ``const`` → ``enum`` → ``anyOf`` →
``oneOf`` → ``allOf`` → ``type`` (a missing ``type`` is inferred as ``object``
when ``properties`` is a mapping and ``array`` when ``items`` is present).

Property order: a ``dict`` (or subclass, such as dsh-tools' ``FrozenDict``)
keeps its insertion order, which is the author's; any other ``Mapping`` —
notably pyrsistent's ``PMap``, whose iteration order depends on the
process's string-hash seed — is rendered in code-point key order, so the
text is byte-identical across processes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Final, cast
from urllib.parse import unquote

import orjson

from ._canonical import canonical_json
from ._fast import Fallback, fast_render
from ._rules import (
    _ATOM,
    _KEYWORDS,
    _MISSING,
    _SCALARS,
    _UNKNOWN,
    MAX_DEPTH,
    MAX_INDENT,
    MAX_ITEMS,
    MAX_NODES,
    _intersection,
    _literal_union,
    _Rendered,
    _union,
)
from ._text import exact_str, jsdoc, json_literal, member_key

__all__ = ["MAX_DEPTH", "MAX_INDENT", "MAX_ITEMS", "MAX_NODES", "json_schema_to_ts", "render_schema", "render_tree"]

_View = dict[object, object]
_NOT_SEQUENCES: Final = (str, bytes, bytearray, memoryview)
_NO_NAMES: Final[frozenset[str]] = frozenset()


class _Context:
    """Per-call state: the root (for ``$ref``), the active path, the budget."""

    __slots__ = ("active", "budget", "root")

    def __init__(self, root: object) -> None:
        self.root = root
        self.active: set[int] = set()
        self.budget = MAX_NODES


def json_schema_to_ts(schema: object, indent: int = 0) -> str:
    """Render ``schema`` as a TypeScript type; total, never raises.

    ``indent`` is the nesting level of the rendered type: an object block's
    members are indented ``indent + 1`` levels (two spaces each) and its
    closing brace ``indent`` levels; the opening brace is not indented (the
    type continues a line such as ``args: ``). Constructs outside the
    supported subset, and anything that misbehaves, render as ``unknown``.
    The schema is read through its canonical JSON form when it has one (see
    :mod:`._canonical`), else defensively as it is.
    """
    try:
        level = min(max(int.__int__(indent), 0), MAX_INDENT) if isinstance(indent, int) else 0
        canonical = canonical_json(schema)
        if canonical is None:
            return render_schema(schema, level)
        return render_tree(orjson.loads(canonical[0]), level)
    except Exception:
        return "unknown"


def render_tree(tree: object, level: int) -> str:
    """Render ``orjson.loads`` output: the fast renderer, defensive on a bail-out.

    Both give the same text (see :mod:`._fast`); the fast one is ~1.7x quicker.
    """
    try:
        return fast_render(tree, level, frozen=False)
    except Fallback:
        return render_schema(tree, level)


def render_schema(schema: object, level: int) -> str:
    """:func:`json_schema_to_ts` without the canonical reading (the caller
    has done it, or the value has none); ``level`` already validated."""
    try:
        return _render(schema, level, _Context(schema))[0]
    except Exception:
        return "unknown"


def _is_mapping(value: object) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _view(node: object) -> _View | None:
    """A plain ``dict`` to read a mapping node through, else ``None``.

    Exact dicts are used as they are; a dict subclass is copied through
    ``dict.copy`` (bypassing overridden accessors); any other mapping is
    snapshotted once, which is much cheaper than probing a ``PMap`` key by
    key.
    """
    if type(node) is dict:
        return node
    if isinstance(node, dict):
        return dict.copy(node)
    if isinstance(node, Mapping):
        items = _take(node.items())
        return None if items is None else dict(cast("list[tuple[object, object]]", items))
    return None


def _is_sequence(value: object) -> bool:
    if type(value) is list or type(value) is tuple:
        return True
    return isinstance(value, Sequence) and not isinstance(value, _NOT_SEQUENCES)


def _take(values: object, limit: int = MAX_ITEMS) -> list[object] | None:
    """At most ``limit`` items, or ``None`` for a bigger (or endless) iterable."""
    if type(values) is list or type(values) is tuple:
        return list(values) if len(values) <= limit else None
    taken = list(islice(cast(Iterable[object], values), limit + 1))
    return taken if len(taken) <= limit else None


def _render(node: object, level: int, ctx: _Context, view: _View | None = None) -> _Rendered:
    """Render one node (``view`` is its :func:`_view` when already taken)."""
    try:
        ctx.budget -= 1
        active = ctx.active
        node_id = id(node)
        if ctx.budget < 0 or len(active) >= MAX_DEPTH or node_id in active:
            return _UNKNOWN
        if view is None:
            view = _view(node)
            if view is None:
                return _UNKNOWN
        active.add(node_id)
        try:
            return _render_view(view, level, ctx)
        finally:
            active.discard(node_id)
    except Exception:
        return _UNKNOWN


def _render_view(node: _View, level: int, ctx: _Context) -> _Rendered:
    if not _KEYWORDS.isdisjoint(node):
        keyword_type = _render_keywords(node, level, ctx)
        if keyword_type is not None:
            return keyword_type
    kind = node.get("type")
    if type(kind) is str:
        return _render_type(kind, node, level, ctx)
    if kind is None:
        if _is_mapping(node.get("properties")):
            return _render_object(node, level, ctx)
        if node.get("items") is not None:
            return _render_type("array", node, level, ctx)
        return _UNKNOWN
    name = exact_str(kind)
    if name is not None:
        return _render_type(name, node, level, ctx)
    if _is_sequence(kind):
        names = _take(kind)
        if names:
            return _union([_render_type(exact_str(n) or "", node, level, ctx) for n in names])
    return _UNKNOWN


def _render_keywords(node: _View, level: int, ctx: _Context) -> _Rendered | None:
    """``$ref``/``const``/``enum``/``anyOf``/``oneOf``/``allOf``; ``None`` if
    none of them applies (e.g. an empty ``anyOf``), so ``type`` decides."""
    ref = node.get("$ref")
    if ref is not None:
        pointer = exact_str(ref)
        if pointer is None:
            return _UNKNOWN
        return _render(_resolve(pointer, ctx.root), level, ctx)
    const = node.get("const", _MISSING)
    if const is not _MISSING:
        literal = json_literal(const)
        return _UNKNOWN if literal is None else (literal, _ATOM)
    enum = node.get("enum")
    if enum is not None and _is_sequence(enum):
        return _render_enum(enum)
    for keyword in ("anyOf", "oneOf"):
        alternatives = node.get(keyword)
        if alternatives is not None and _is_sequence(alternatives):
            members = _take(alternatives)
            if members:
                return _union([_render(m, level, ctx) for m in members])
    parts = node.get("allOf")
    if parts is not None and _is_sequence(parts):
        members = _take(parts)
        if members:
            return _intersection([_render(m, level, ctx) for m in members])
    return None


def _resolve(ref: str, root: object) -> object:
    """Follow a local JSON-pointer ``$ref`` (``#``, ``#/$defs/X``, …) in ``root``.

    Remote references and anchors resolve to ``None`` (rendered ``unknown``).
    """
    if not ref.startswith("#"):
        return None
    pointer = unquote(ref[1:])
    if not pointer:
        return root
    if not pointer.startswith("/"):
        return None
    node = root
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        view = _view(node)
        if view is not None:
            node = view.get(token, _MISSING)
        elif _is_sequence(node) and token.isascii() and token.isdigit():
            index = int(token)
            sequence = cast(Sequence[object], node)
            node = sequence[index] if index < len(sequence) else _MISSING
        else:
            return None
        if node is _MISSING:
            return None
    return node


def _render_enum(enum: object) -> _Rendered:
    return _literal_union(map(json_literal, _take(enum) or ()))


def _render_type(name: str, node: _View, level: int, ctx: _Context) -> _Rendered:
    scalar = _SCALARS.get(name)
    if scalar is not None:
        return (scalar, _ATOM)
    if name == "array":
        items = node.get("items")
        if not _is_mapping(items):
            return ("unknown[]", _ATOM)
        text, precedence = _render(items, level, ctx)
        return (f"({text})[]" if precedence != _ATOM else text + "[]", _ATOM)
    if name == "object":
        return _render_object(node, level, ctx)
    return _UNKNOWN


def _render_object(node: _View, level: int, ctx: _Context) -> _Rendered:
    properties = node.get("properties")
    entries = _entries(properties) if properties is not None else None
    if entries:
        required = _required(node.get("required"))
        inner = level + 1
        pad = "  " * inner
        lines = ["{"]
        for key, sub in entries:
            lines.extend(_member(key, sub, key in required, pad, inner, ctx))
        lines.append("  " * level + "}")
        return ("\n".join(lines), _ATOM)
    extra = node.get("additionalProperties")
    if _is_mapping(extra):
        return (f"Record<string, {_render(extra, level, ctx)[0]}>", _ATOM)
    return ("Record<string, unknown>", _ATOM)


def _entries(mapping: object) -> list[tuple[str, object]] | None:
    """``(name, schema)`` pairs of a properties mapping, non-str keys dropped."""
    pairs: list[tuple[object, object]] | None
    if isinstance(mapping, dict):
        pairs = cast("list[tuple[object, object]] | None", _take(dict.items(mapping)))
    elif isinstance(mapping, Mapping):
        items = _take(mapping.items())
        named = None if items is None else sorted(_named(items), key=_first)
        pairs = cast("list[tuple[object, object]] | None", named)
    else:
        return None
    if pairs is None:
        return None
    if all(type(key) is str for key, _ in pairs):
        return cast("list[tuple[str, object]]", pairs)  # one mapping's keys are unique
    seen: set[str] = set()
    unique: list[tuple[str, object]] = []
    for name, value in _named(pairs):
        if name not in seen:
            seen.add(name)
            unique.append((name, value))
    return unique


def _first(pair: tuple[str, object]) -> str:
    return pair[0]


def _named(pairs: Iterable[object]) -> list[tuple[str, object]]:
    """Key/value pairs with keys copied to exact ``str``, others dropped."""
    named: list[tuple[str, object]] = []
    for key, value in cast("Iterable[tuple[object, object]]", pairs):
        name = key if type(key) is str else exact_str(key)
        if name is not None:
            named.append((name, value))
    return named


def _required(value: object) -> frozenset[str]:
    if value is None or not _is_sequence(value):
        return _NO_NAMES
    names = _take(value) or []
    return frozenset(name for name in map(exact_str, names) if name is not None)


def _member(key: str, sub: object, required: bool, pad: str, level: int, ctx: _Context) -> list[str]:
    """Lines for one property: optional one-line JSDoc, then ``key?: T;``."""
    line = f"{pad}{member_key(key)}{'' if required else '?'}: "
    try:
        view = _view(sub)
    except Exception:
        return [line + "unknown;"]
    if view is None:
        return [line + "unknown;"]
    text = _render(sub, level, ctx, view)[0]
    try:
        description = view.get("description")
        doc = None if description is None else jsdoc(exact_str(description) or "")
    except Exception:
        doc = None
    return [f"{line}{text};"] if doc is None else [pad + doc, f"{line}{text};"]
