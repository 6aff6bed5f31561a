"""JSON Schema → TypeScript type text: the one rule set (:func:`json_schema_to_ts`).

The text is shown to a model, not fed to a validator, so the goal is a
faithful, readable *approximation* of the subset tool authors write, and
total behaviour on everything else: a schema comes from plugins, MCP servers
and users, and a prompt assembly must never fail because one of them is odd.

* Every node is rendered inside its own ``try``: an exception (hostile
  ``__eq__``/``__iter__``, ``RecursionError``, ``MemoryError`` …) degrades
  that node to ``unknown`` and leaves its siblings intact; a member whose
  mapping cannot be read degrades alone.
* Cycles (self-containing containers, ``$ref`` loops) are caught by the ids
  of the nodes on the current path and render ``unknown`` there; depth
  (:data:`~._read.MAX_DEPTH`), nodes per schema (:data:`~._read.MAX_NODES`)
  and container sizes (:data:`~._read.MAX_ITEMS`) are bounded.
* Mappings and sequences are read as :mod:`._read` says (a ``dict`` in its
  own order, other mappings in code-point order, NaN as ``null``).

Rule precedence per node: ``$ref`` → ``const`` → ``enum`` → ``anyOf`` →
``oneOf`` → ``allOf`` → ``type`` (a missing ``type`` is inferred as ``object``
when ``properties`` is a mapping and ``array`` when ``items`` is present).

Speed comes from the common shape, not from a second copy of the rules: a
member whose schema is a plain scalar type (most of them) is rendered inline
in :func:`_block`, member heads, JSDoc lines and string literals come from
bounded text memos, and a leaf never enters the path set.

Each render also answers whether it is *sure* (:func:`render`): whether the
text is a function of the schema's JSON text as orjson writes it, and that
text is small enough to write. Only then may :mod:`._sdk` memoise it under
that text. Sure means: only exact JSON types were read (a ``dict`` subclass
that reads as a ``dict`` counts), no limit or cycle was met, nothing failed,
and every container the rules did not read was counted within
:data:`~._read.MAX_VALUES` (:func:`_rest`): a value that sharing makes
exponentially long when written out is never written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final, TypeVar, cast
from urllib.parse import unquote

from ._read import (
    LEAF_TYPES, MAX_DEPTH, MAX_INDENT, MAX_ITEMS, MAX_NODES, MAX_VALUES,
    absent, entries, is_sequence, raw_dict, required_names, take, view,
)
from ._text import exact_str, jsdoc, json_literal, member_key, string_literal

__all__ = ["clear_memos", "json_schema_to_ts", "render"]

_ATOM: Final = 0
_INTERSECTION: Final = 1
_UNION: Final = 2
_Rendered = tuple[str, int]
_UNKNOWN: Final[_Rendered] = ("unknown", _ATOM)
_MISSING: Final = object()
_SCALARS: Final = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "null": "null"}
_KEYWORDS: Final = frozenset({"$ref", "const", "enum", "anyOf", "oneOf", "allOf"})
_ONLY_STR: Final = frozenset({str})
# The keys each rule reads (the rest is counted, see _rest).
_READ_NONE: Final[frozenset[str]] = frozenset()
_READ_TYPE: Final = frozenset({"type"})
_READ_ARRAY: Final = frozenset({"type", "items"})
_READ_OBJECT: Final = frozenset({"type", "properties", "required"})
_READ_RECORD: Final = frozenset({"type", "additionalProperties"})
_READ_ONE: Final = {key: frozenset({key}) for key in ("enum", "anyOf", "oneOf", "allOf")}
_scalars_only: Final = LEAF_TYPES.issuperset  # of map(type, values): the C-speed "nothing to count"


class _Walk:
    """One schema's rendering state: the root (for ``$ref``), the ids on the
    current path, the node budget, the count budget and the *sure* answer."""

    __slots__ = ("active", "budget", "root", "sure", "values")

    def __init__(self, root: object) -> None:
        self.root = root
        self.active: set[int] = set()
        self.budget = MAX_NODES
        self.values = MAX_VALUES
        self.sure = True


def json_schema_to_ts(schema: object, indent: int = 0) -> str:
    """Render ``schema`` as a TypeScript type; total, never raises.

    ``indent`` is the nesting level of the rendered type: an object block's
    members are indented ``indent + 1`` levels (two spaces each) and its
    closing brace ``indent`` levels; the opening brace is not indented (the
    type continues a line such as ``args: ``). Constructs outside the
    supported subset, and anything that misbehaves, render as ``unknown``.
    """
    try:
        level = min(max(int.__int__(indent), 0), MAX_INDENT) if isinstance(indent, int) else 0
        return render(schema, level)[0]
    except Exception:
        return "unknown"


def render(schema: object, level: int) -> tuple[str, bool]:
    """``(type text, sure)`` for ``schema`` at a validated ``level`` (see the
    module docstring for *sure*)."""
    walk = _Walk(schema)
    try:
        text = _node(schema, level, 0, walk)[0]
    except Exception:
        return "unknown", False
    return text, walk.sure and walk.budget >= 0


def _node(node: object, level: int, depth: int, walk: _Walk, sub: dict[object, object] | None = None) -> _Rendered:
    """Render one node (``sub`` is its mapping when the caller has it)."""
    try:
        walk.budget -= 1
        if sub is None:
            sub = _mapping(node, walk)
            if sub is None:
                return _UNKNOWN
        if walk.budget < 0 or depth >= MAX_DEPTH:
            walk.sure = False
            return _UNKNOWN
        kind = sub.get("type")
        if type(kind) is str and kind in _SCALARS and _KEYWORDS.isdisjoint(sub):  # a leaf: no path entry
            if not _scalars_only(map(type, sub.values())):
                _rest(sub, walk, _READ_TYPE)
            return (_SCALARS[kind], _ATOM)
        active = walk.active
        key = id(node)
        if key in active:
            walk.sure = False
            return _UNKNOWN
        active.add(key)
        try:
            return _rules(sub, level, depth, walk)
        finally:
            active.discard(key)
    except Exception:
        walk.sure = False
        return _UNKNOWN


def _rules(sub: dict[object, object], level: int, depth: int, walk: _Walk) -> _Rendered:
    if not _KEYWORDS.isdisjoint(sub):
        rendered = _keywords(sub, level, depth, walk)
        if rendered is not None:
            return rendered
    kind = sub.get("type")
    if type(kind) is str:
        return _typed(kind, sub, level, depth, walk)
    if absent(kind):
        if _is_mapping(sub.get("properties")):
            return _object(sub, level, depth, walk)
        if not absent(sub.get("items")):
            return _typed("array", sub, level, depth, walk)
    elif isinstance(kind, str):
        walk.sure = False
        return _typed(str.__str__(kind), sub, level, depth, walk)
    elif is_sequence(kind):
        names = take(kind)
        if type(kind) is not list and type(kind) is not tuple:
            walk.sure = False
        if names:
            if not _ONLY_STR.issuperset(map(type, names)):
                for name in names:
                    _unread(name, walk)
            return _union([_typed(exact_str(name) or "", sub, level, depth, walk) for name in names])
    _unread(kind, walk)
    if not _scalars_only(map(type, sub.values())):
        _rest(sub, walk, _READ_TYPE)
    return _UNKNOWN


def _keywords(sub: dict[object, object], level: int, depth: int, walk: _Walk) -> _Rendered | None:
    """``$ref``/``const``/``enum``/``anyOf``/``oneOf``/``allOf``; ``None`` if
    none of them applies (e.g. an empty ``anyOf``), so ``type`` decides."""
    ref = sub.get("$ref")
    if not absent(ref):
        if not _scalars_only(map(type, sub.values())):
            _rest(sub, walk, _READ_NONE)
        pointer = exact_str(ref)
        return _UNKNOWN if pointer is None else _node(_resolve(pointer, walk), level, depth + 1, walk)
    const = sub.get("const", _MISSING)
    if const is not _MISSING:
        if not _scalars_only(map(type, sub.values())):
            _rest(sub, walk, _READ_NONE)
        literal = json_literal(const)
        return _UNKNOWN if literal is None else (literal, _ATOM)
    enum = sub.get("enum")
    if enum is not None and is_sequence(enum):
        values = take(enum)
        if values is None or type(enum) not in (list, tuple) or not LEAF_TYPES.issuperset(map(type, values)):
            _count(enum, walk)  # what the literals do not read (or read as exact JSON)
        if not _scalars_only(map(type, sub.values())):
            _rest(sub, walk, _READ_ONE["enum"])
        return _literal_union(map(_literal, values or ()))
    for keyword in ("anyOf", "oneOf", "allOf"):
        alternatives = sub.get(keyword)
        if alternatives is not None and is_sequence(alternatives):
            members = take(alternatives)
            if members:
                _rest(sub, walk, _READ_ONE[keyword])
                if type(alternatives) is not list and type(alternatives) is not tuple:
                    walk.sure = False
                rendered = [_node(member, level, depth + 1, walk) for member in members]
                return _intersection(rendered) if keyword == "allOf" else _union(rendered)
    return None


def _resolve(ref: str, walk: _Walk) -> object:
    """Follow a local JSON-pointer ``$ref`` (``#``, ``#/$defs/X``, …) from the
    root; remote references and anchors resolve to ``None`` (``unknown``)."""
    if not ref.startswith("#"):
        return None
    pointer = unquote(ref[1:])
    node = walk.root
    if not pointer:
        return node
    if not pointer.startswith("/"):
        return None
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        cls = type(node)
        if cls is not dict and cls is not list and cls is not tuple and not (isinstance(node, dict) and raw_dict(cls)):
            walk.sure = False
        mapping = view(node)
        if mapping is not None:
            node = mapping.get(token, _MISSING)
        elif is_sequence(node) and token.isascii() and token.isdigit():
            index, sequence = int(token), cast(Sequence[object], node)
            node = sequence[index] if index < len(sequence) else _MISSING
        else:
            return None
        if node is _MISSING:
            return None
    return node


def _typed(name: str, sub: dict[object, object], level: int, depth: int, walk: _Walk) -> _Rendered:
    scalar = _SCALARS.get(name)
    if scalar is not None:
        if not _scalars_only(map(type, sub.values())):
            _rest(sub, walk, _READ_TYPE)
        return (scalar, _ATOM)
    if name == "array":
        items = sub.get("items")
        if not _is_mapping(items):
            if not _scalars_only(map(type, sub.values())):
                _rest(sub, walk, _READ_TYPE)
            return ("unknown[]", _ATOM)
        if not _scalars_only(map(type, sub.values())):
            _rest(sub, walk, _READ_ARRAY)
        text, precedence = _node(items, level, depth + 1, walk)
        return (f"({text})[]" if precedence != _ATOM else text + "[]", _ATOM)
    if name == "object":
        return _object(sub, level, depth, walk)
    if not _scalars_only(map(type, sub.values())):
        _rest(sub, walk, _READ_TYPE)
    return _UNKNOWN


def _object(sub: dict[object, object], level: int, depth: int, walk: _Walk) -> _Rendered:
    properties = sub.get("properties")
    members = None if properties is None else _members(properties, walk)
    if members:
        if not _scalars_only(map(type, sub.values())):
            _rest(sub, walk, _READ_OBJECT)
        required = sub.get("required")
        if required is not None and not (type(required) in (list, tuple) and _ONLY_STR.issuperset(map(type, required))):  # type: ignore[call-overload]
            _unread(required, walk)
        return (_block(*members, required_names(required), level, depth + 1, walk), _ATOM)
    extra = sub.get("additionalProperties")
    if _is_mapping(extra):
        if not _scalars_only(map(type, sub.values())):
            _rest(sub, walk, _READ_RECORD)
        return (f"Record<string, {_node(extra, level, depth + 1, walk)[0]}>", _ATOM)
    if not _scalars_only(map(type, sub.values())):
        _rest(sub, walk, _READ_TYPE)
    return ("Record<string, unknown>", _ATOM)


def _members(properties: object, walk: _Walk) -> tuple[list[str], list[object]] | None:
    """A properties mapping's names and schemas (see :func:`._read.entries`)."""
    cls = type(properties)
    if cls is dict or (isinstance(properties, dict) and raw_dict(cls)):
        props = cast("dict[str, object]", properties)
        if len(props) <= MAX_ITEMS and _ONLY_STR.issuperset(map(type, props)):
            return (list(props), list(props.values())) if props else None
    if not _is_mapping(properties):
        _unread(properties, walk)
        return None
    walk.sure = False
    pairs = entries(properties)
    return ([key for key, _ in pairs], [value for _, value in pairs]) if pairs else None


def _block(keys: list[str], values: list[object], required: frozenset[str], level: int, depth: int, walk: _Walk) -> str:
    """An object type's ``{ ... }`` block, one member (and its JSDoc) a line,
    members at ``depth``.

    The hot loop of a render, written as passes over the members (C-level
    ``map`` and comprehensions cost a fraction of a statement loop): a
    member whose schema is a plain scalar type (most of them) is rendered
    in those passes, the common shapes after it by :func:`_fast_member`, the
    rest by :func:`_node`, in order. The block's plain members are paid for
    from the node budget before its other members are rendered.
    """
    newline = "\n" + "  " * (level + 1)
    heads = [
        (_REQUIRED_HEADS.get(key) or _head(key, True)) if key in required else (_OPTIONAL_HEADS.get(key) or _head(key, False))
        for key in keys
    ]
    raw = _RAW_SEEN[0]
    views = [value if type(value) is dict or type(value) is raw else _member_mapping(value, walk) for value in values]
    if None in views:
        texts: list[str | None] = [None if view is None else "" for view in views]
        nodes = [value for value, view in zip(values, views) if view is not None]
        kept = [view for view in views if view is not None]
    else:
        texts, nodes, kept = [], values, views  # type: ignore[assignment]
    kinds = list(map(dict.get, kept, _repeat_type))  # type: ignore[call-overload]
    descriptions = list(map(dict.get, kept, _repeat_description))  # type: ignore[call-overload]
    leaves = [_SCALARS.get(kind) if type(kind) is str else None for kind in kinds]
    if depth >= MAX_DEPTH:
        leaves = [None] * len(kept)
    plain = list(map(_KEYWORDS.isdisjoint, kept))
    walk.budget -= sum(map(bool, map(_both, leaves, plain)))
    for index in [i for i, (leaf, size) in enumerate(zip(leaves, map(len, kept))) if leaf is not None and size > 1]:
        view = kept[index]
        if plain[index] and (len(view) > 2 or descriptions[index] is None) and not _scalars_only(map(type, view.values())):
            _rest(view, walk, _READ_TYPE)  # unread values beside a plain scalar type
    for index in [i for i, (leaf, flat) in enumerate(zip(leaves, plain)) if leaf is None or not flat]:
        view = kept[index]
        shape = _fast_member(view, depth + 1 < MAX_DEPTH) if depth < MAX_DEPTH else None
        if shape is not None and walk.budget >= shape[1]:
            walk.budget -= shape[1]
            leaves[index] = shape[0]
        else:
            leaves[index] = _node(nodes[index], level + 1, depth, walk, view)[0]
    docs = [None if text is None else (_DOCS.get(text) if type(text) is str else None) or _doc(text, walk) for text in descriptions]
    kept_heads = heads if views is kept else [head for head, view in zip(heads, views) if view is not None]
    lines = [f"{head}{text};" if doc is None else f"{doc}{newline}{head}{text};" for head, text, doc in zip(kept_heads, leaves, docs)]
    if texts:  # members without a mapping read ``unknown``, without JSDoc
        rendered = iter(lines)
        lines = [f"{head}unknown;" if text is None else next(rendered) for head, text in zip(heads, texts)]
    return f"{{{newline}{newline.join(lines)}\n{'  ' * level}}}"


def _both(leaf: str | None, flat: bool) -> bool:
    return flat and leaf is not None


_repeat_type: Final = __import__("itertools").repeat("type")
_repeat_description: Final = __import__("itertools").repeat("description")
_RAW_SEEN: Final[list[type]] = [dict]


def _doc(description: object, walk: _Walk) -> str | None:
    """The JSDoc line for a description (memoised for exact strings)."""
    if type(description) is str:
        return _remember(_DOCS, description, jsdoc(description))
    _unread(description, walk)
    text = exact_str(description)
    return None if text is None else jsdoc(text)


def _fast_member(sv: dict[object, object], nested: bool) -> tuple[str, int] | None:
    """Fast path: ``(type text, nodes)`` for the common member shapes after a
    plain scalar — a ``type`` list of scalar names (``["string", "null"]``),
    an ``enum`` of strings, an array of a plain scalar type (``nested``: its
    items are within the depth limit) — or ``None`` for :func:`_node`.

    The same text as the rules give (``test_codegen_fast`` compares them on
    random schemas), without their dispatch: the bench's cold render spends
    a third of its members here. Only for exact types, with every value
    besides the one container read a JSON scalar (nothing left to count).
    """
    values = sv.values()
    if sum(map(LEAF_TYPES.__contains__, map(type, values))) != len(sv) - 1:
        return None
    kind = sv.get("type")
    if _KEYWORDS.isdisjoint(sv):
        if type(kind) is str:
            if kind != "array" or not nested:
                return None
            items = sv.get("items")
            if type(items) is not dict and type(items) is not _RAW_SEEN[0]:
                return None
            item_view = cast("dict[object, object]", items)
            item_kind = item_view.get("type")
            scalar = _SCALARS.get(item_kind) if type(item_kind) is str else None  # type: ignore[call-overload]
            if scalar is None or not _KEYWORDS.isdisjoint(item_view) or not _scalars_only(map(type, item_view.values())):
                return None
            return (scalar + "[]", 2)
        names = kind
        table: dict[object, str] = _SCALARS  # type: ignore[assignment]
    elif "$ref" in sv or "const" in sv:
        return None
    else:
        names = sv.get("enum")
        table = _LITERALS  # type: ignore[assignment]
    if (type(names) is not list and type(names) is not tuple) or not names or len(names) > MAX_ITEMS:  # type: ignore[arg-type]
        return None
    if not _ONLY_STR.issuperset(map(type, names)):  # type: ignore[arg-type]
        return None
    texts = [table.get(name) or _literal(name) if table is _LITERALS else table.get(name) for name in names]  # type: ignore[union-attr]
    if None in texts:
        return None
    return (texts[0] if len(texts) == 1 else " | ".join(dict.fromkeys(texts)), 1)  # type: ignore[arg-type]


def _member_mapping(sub: object, walk: _Walk) -> dict[object, object] | None:
    """A member schema's mapping; ``None`` (the member reads ``unknown``) when
    it has none or it cannot be read."""
    try:
        return _mapping(sub, walk)
    except Exception:
        walk.sure = False
        return None


def _mapping(node: object, walk: _Walk) -> dict[object, object] | None:
    """The mapping to read ``node`` through (:func:`._read.view`), ``None`` for
    a non-mapping (counted, as the rules do not read it)."""
    cls = type(node)
    if cls is dict:
        return node  # type: ignore[return-value]
    if cls in LEAF_TYPES:
        return None
    if cls is list or cls is tuple:
        _count(node, walk)
        return None
    if isinstance(node, dict) and raw_dict(cls):
        _RAW_SEEN[0] = cls
        return node
    walk.sure = False
    return view(node)


def _is_mapping(value: object) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _rest(sub: dict[object, object], walk: _Walk, read: frozenset[str]) -> None:
    """Count the containers under the keys a rule did not read (the *sure*
    answer's bound on the written size). Callers skip the call when every
    value is a JSON scalar (``_scalars_only``), the common case."""
    if not walk.sure:
        return
    for key, value in sub.items():
        if type(value) not in LEAF_TYPES and key not in read:
            _count(value, walk)


def _unread(value: object, walk: _Walk) -> None:
    if type(value) not in LEAF_TYPES:
        _count(value, walk)


def _count(value: object, walk: _Walk) -> None:
    """Count ``value``'s values against the budget; anything but exact JSON
    types (or too many values, or a cycle) makes the render unsure."""
    stack, left = [value], walk.values
    while stack and walk.sure:
        node = stack.pop()
        cls = type(node)
        if cls in LEAF_TYPES:
            continue
        if cls is list or cls is tuple:
            children: Sequence[object] = node  # type: ignore[assignment]
        elif cls is dict or (isinstance(node, dict) and raw_dict(cls)):
            children = list(dict.values(node))  # type: ignore[arg-type]
        else:
            walk.sure = False
            return
        left -= len(children)
        if left < 0:
            walk.sure = False
        stack.extend(children)
    walk.values = left


def _union(members: list[_Rendered]) -> _Rendered:
    """``A | B``, deduplicated in first-seen order; ``unknown`` absorbs all."""
    seen: dict[str, int] = {}
    for text, precedence in members:
        if text == "unknown":
            return _UNKNOWN
        seen.setdefault(text, precedence)
    if len(seen) == 1:
        return next(iter(seen.items()))
    return (" | ".join(seen), _UNION) if seen else _UNKNOWN


def _literal_union(literals: Iterable[str | None]) -> _Rendered:
    """An ``enum`` as a union of its members' JSON literal texts; ``unknown``
    if it is empty or a member has no literal (``None``: reading stops there)."""
    members: list[_Rendered] = []
    for text in literals:
        if text is None:
            return _UNKNOWN
        members.append((text, _ATOM))
    return _union(members) if members else _UNKNOWN


def _intersection(members: list[_Rendered]) -> _Rendered:
    """``A & B``; ``unknown`` parts are dropped (``unknown & T`` is ``T``)."""
    kept: dict[str, int] = {}
    for text, precedence in members:
        if text != "unknown":
            kept.setdefault(text, precedence)
    if len(kept) <= 1:
        return next(iter(kept.items()), _UNKNOWN)
    return (" & ".join(f"({t})" if p == _UNION else t for t, p in kept.items()), _INTERSECTION)


_MEMO_LIMIT: Final = 4096
_Text = TypeVar("_Text", str, "str | None")
_REQUIRED_HEADS: Final[dict[str, str]] = {}
_OPTIONAL_HEADS: Final[dict[str, str]] = {}
_DOCS: Final[dict[str, str | None]] = {}
_LITERALS: Final[dict[str, str]] = {}


def _remember(memo: dict[str, _Text], key: str, text: _Text) -> _Text:
    """Store in a bounded text memo (cleared when full; keys are exact
    ``str``, so neither lookups nor storing run user code)."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = text
    return text


def _head(key: str, required: bool) -> str:
    """A member line's start, ``name: `` or ``name?: `` (names repeat)."""
    return _remember(_REQUIRED_HEADS if required else _OPTIONAL_HEADS, key, member_key(key) + (": " if required else "?: "))


def _literal(value: object) -> str | None:
    """:func:`json_literal`, memoised for exact strings (enum members repeat)."""
    if type(value) is str:
        text = _LITERALS.get(value)
        return _remember(_LITERALS, value, string_literal(value)) if text is None else text
    return json_literal(value)


def clear_memos() -> None:
    """Forget the memoised heads, JSDoc lines and literals (a truly cold start)."""
    for memo in (_REQUIRED_HEADS, _OPTIONAL_HEADS, _DOCS, _LITERALS):
        memo.clear()
