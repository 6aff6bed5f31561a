"""JSON Schema → TypeScript type text: the one rule set (:func:`type_text`, public as ``json_schema_to_ts``).

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
in :func:`_object`'s loop, the next most common shapes by one named fast path beside
the rules (:func:`_fast_member`, tested against them), member heads, string
literals and the unions of scalar names and string enums come from bounded
text memos (:mod:`._text`), and a leaf never enters the path set. (JSDoc
lines are not memoised: descriptions rarely repeat, so a memo cost more cold
than it saved.)

Each render also answers whether it is *sure* (:func:`render`): whether the
text is a function of the schema's JSON text as orjson writes it, and that
text is small enough to write. Only then may :mod:`._sdk` memoise it under
that text. Sure means: only exact JSON types were read (a ``dict`` subclass
that reads as a ``dict`` counts), no limit or cycle was met, nothing failed,
and every container the rules did not read was counted within
:data:`~._read.MAX_VALUES` (:func:`~._read.rest`): a value that sharing makes
exponentially long when written out is never written.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final, cast
from urllib.parse import unquote

from ._read import (
    LEAF_TYPES, MAX_DEPTH, MAX_INDENT, MAX_ITEMS, RAW_SEEN, Walk, absent, count, entries, exact_strs,
    is_mapping, is_sequence, mapping, member_mapping, no_keywords, raw_dict, required_names, rest, scalars_only, take,
    unread, view,
)
from ._text import (
    ATOM, ENUM_UNIONS, OPTIONAL_HEADS, REQUIRED_HEADS, TYPE_UNIONS, UNKNOWN, Rendered, clear_memos, exact_str,
    intersection, jsdoc, json_literal, literal_union, member_head, memo_literal, remember, union,
)

__all__ = ["clear_memos", "render", "type_text"]

_MISSING: Final = object()
_SCALARS: Final = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "null": "null"}
# The keys each rule reads (the rest is counted, see rest).
_READ_NONE: Final[frozenset[str]] = frozenset()
_READ_TYPE: Final = frozenset({"type"})
_READ_ARRAY: Final = frozenset({"type", "items"})
_READ_OBJECT: Final = frozenset({"type", "properties", "required"})
_READ_RECORD: Final = frozenset({"type", "additionalProperties"})
_READ_ONE: Final = {key: frozenset({key}) for key in ("enum", "anyOf", "oneOf", "allOf")}


def type_text(schema: object, indent: object) -> str:
    """The body of :func:`dsh_tools_codegen.json_schema_to_ts`. ``indent`` is
    any object here, as that function promises to clamp an odd one: the
    compiled build checks a parameter's declared type at the call."""
    try:
        level = min(max(int.__int__(indent), 0), MAX_INDENT) if isinstance(indent, int) else 0
        return render(schema, level)[0]
    except Exception:
        return "unknown"


def render(schema: object, level: int) -> tuple[str, bool]:
    """``(type text, sure)`` for ``schema`` at a validated ``level`` (see the
    module docstring for *sure*)."""
    walk = Walk(schema)
    try:
        text = _node(schema, level, 0, walk)[0]
    except Exception:
        return "unknown", False
    return text, walk.sure and walk.budget >= 0


def _node(
    node: object, level: int, depth: int, walk: Walk, sub: dict[object, object] | None = None, plain: bool | None = None
) -> Rendered:
    """Render one node (``sub`` is its mapping when the caller has it, and
    ``plain`` whether no schema keyword is among its keys, when it knows)."""
    try:
        walk.budget -= 1
        if sub is None:
            cls = type(node)
            found = cast("dict[object, object]", node) if cls is dict or cls is RAW_SEEN[0] else mapping(node, walk)
            if found is None:
                return UNKNOWN
            sub = found
        if walk.budget < 0 or depth >= MAX_DEPTH:
            walk.sure = False
            return UNKNOWN
        kind = sub.get("type")
        if plain is None:
            plain = no_keywords(sub)
        if plain and type(kind) is str and kind in _SCALARS:  # a leaf: no path entry
            if not scalars_only(sub):
                rest(sub, walk, _READ_TYPE)
            return (_SCALARS[kind], ATOM)
        active = walk.active
        key = id(node)
        if key in active:
            walk.sure = False
            return UNKNOWN
        active.add(key)
        try:
            if type(kind) is str and plain and kind == "object":  # _rules' answer, without the dispatch
                return _object(sub, level, depth, walk)
            if type(kind) is str and plain and kind == "array":
                return _array(sub, level, depth, walk)
            return _rules(sub, level, depth, walk)
        finally:
            active.discard(key)
    except Exception:
        walk.sure = False
        return UNKNOWN


def _rules(sub: dict[object, object], level: int, depth: int, walk: Walk) -> Rendered:
    if not no_keywords(sub):
        rendered = _keywords(sub, level, depth, walk)
        if rendered is not None:
            return rendered
    kind = sub.get("type")
    if type(kind) is str:
        return _typed(kind, sub, level, depth, walk)
    if absent(kind):
        if is_mapping(sub.get("properties")):
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
            if not exact_strs(names):
                for name in names:
                    unread(name, walk)
            return union([_typed(exact_str(name) or "", sub, level, depth, walk) for name in names])
    unread(kind, walk)
    rest(sub, walk, _READ_TYPE)
    return UNKNOWN


def _keywords(sub: dict[object, object], level: int, depth: int, walk: Walk) -> Rendered | None:
    """``$ref``/``const``/``enum``/``anyOf``/``oneOf``/``allOf``; ``None`` if
    none of them applies (e.g. an empty ``anyOf``), so ``type`` decides."""
    ref = sub.get("$ref")
    if not absent(ref):
        rest(sub, walk, _READ_NONE)
        pointer = exact_str(ref)
        return UNKNOWN if pointer is None else _node(_resolve(pointer, walk), level, depth + 1, walk)
    const = sub.get("const", _MISSING)
    if const is not _MISSING:
        rest(sub, walk, _READ_NONE)
        literal = json_literal(const)
        return UNKNOWN if literal is None else (literal, ATOM)
    enum = sub.get("enum")
    if enum is not None and is_sequence(enum):
        values = take(enum)
        if values is None or type(enum) not in (list, tuple) or not LEAF_TYPES.issuperset(map(type, values)):
            count(enum, walk)  # what the literals do not read (or read as exact JSON)
        rest(sub, walk, _READ_ONE["enum"])
        return literal_union(map(memo_literal, values or ()))
    for keyword in ("anyOf", "oneOf", "allOf"):
        alternatives = sub.get(keyword)
        if alternatives is not None and is_sequence(alternatives):
            members = take(alternatives)
            if members:
                rest(sub, walk, _READ_ONE[keyword])
                if type(alternatives) is not list and type(alternatives) is not tuple:
                    walk.sure = False
                rendered = [_node(member, level, depth + 1, walk) for member in members]
                return intersection(rendered) if keyword == "allOf" else union(rendered)
    return None


def _resolve(ref: str, walk: Walk) -> object:
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


def _typed(name: str, sub: dict[object, object], level: int, depth: int, walk: Walk) -> Rendered:
    scalar = _SCALARS.get(name)
    if scalar is not None:
        rest(sub, walk, _READ_TYPE)
        return (scalar, ATOM)
    if name == "array":
        return _array(sub, level, depth, walk)
    if name == "object":
        return _object(sub, level, depth, walk)
    rest(sub, walk, _READ_TYPE)
    return UNKNOWN


def _array(sub: dict[object, object], level: int, depth: int, walk: Walk) -> Rendered:
    items = sub.get("items")
    if not is_mapping(items):
        rest(sub, walk, _READ_TYPE)
        return ("unknown[]", ATOM)
    if len(sub) - ("type" in sub) - (type(sub.get("description")) is str) > 1:
        rest(sub, walk, _READ_ARRAY)  # more than "items", "type" and a description: count the rest
    text, precedence = _node(items, level, depth + 1, walk)
    return (f"({text})[]" if precedence != ATOM else text + "[]", ATOM)


def _object(sub: dict[object, object], level: int, depth: int, walk: Walk) -> Rendered:
    """An object type: the ``{ ... }`` block of its properties, one member
    (and its JSDoc) a line, members at ``depth + 1``; a ``Record`` when it
    has none. The hot loop of a render: a member whose schema is a plain
    scalar type (most of them) is rendered inline, the common shapes after
    it by :func:`_fast_member`, both paid for from the node budget when the
    block is done; the rest by :func:`_node`."""
    properties = sub.get("properties")  # any JSON value, not only a dict
    members = None if properties is None else _members(properties, walk)
    if not members:
        return _record(sub, level, depth, walk)
    if len(sub) - ("type" in sub) - ("required" in sub) - (type(sub.get("description")) is str) > 1:
        rest(sub, walk, _READ_OBJECT)  # more than properties, type, required and a description: count the rest
    required = sub.get("required")
    cls: type = type(required)
    names: Collection[object]
    if (cls is list or cls is tuple) and exact_strs(listed := cast("Sequence[object]", required)):
        # read, not counted: a few names are searched as they are, more through a set
        names = listed if len(listed) <= 8 else frozenset(listed)
    elif required is None:
        names = ()
    else:
        unread(required, walk)
        names = required_names(required)
    depth += 1
    inner = level + 1
    newline = "\n" + "  " * inner
    body: list[str] = []
    scalars = _SCALARS
    required_heads, optional_heads = REQUIRED_HEADS, OPTIONAL_HEADS
    inline = depth < MAX_DEPTH
    nested = depth + 1 < MAX_DEPTH
    raw: type = RAW_SEEN[0]  # a dict subclass that reads as a dict
    paid = 0
    for key, member in members.items():
        if key in names:
            head = required_heads.get(key) or member_head(key, True)
        else:
            head = optional_heads.get(key) or member_head(key, False)
        cls = type(member)
        if cls is dict or cls is raw:
            sv = cast("dict[object, object]", member)
        else:
            mapping = member_mapping(member, walk)
            if mapping is None:
                body.append(head + "unknown;")
                continue
            if mapping is member:
                raw = cls
            sv = mapping
        kind = sv.get("type")
        description = sv.get("description")
        text = scalars.get(kind) if type(kind) is str and inline else None
        if text is not None and len(sv) == (1 if description is None else 2):
            paid += 1  # only "type" (and "description") are there
        elif inline and (type(kind) is not str or kind != "object"):
            plain = no_keywords(sv)  # scanned once per member, handed on
            if text is not None and plain:
                paid += 1
                if not scalars_only(sv):
                    rest(sv, walk, _READ_TYPE)
            else:
                shape = _fast_member(sv, kind, description, nested, plain)
                if shape is not None:
                    text = shape[0]
                    paid += shape[1]
                else:
                    text = _node(member, inner, depth, walk, sv, plain)[0]
        else:
            text = _node(member, inner, depth, walk, sv)[0]
        if description is not None:
            doc = jsdoc(description) if type(description) is str else _doc(description, walk)
            if doc is not None:
                body.append(doc)
        body.append(f"{head}{text};")
    walk.budget -= paid  # inline members are paid for once the block is done
    return (f"{{{newline}{newline.join(body)}\n{'  ' * level}}}", ATOM)


def _record(sub: dict[object, object], level: int, depth: int, walk: Walk) -> Rendered:
    """An object type without properties: ``Record<string, T>``."""
    extra = sub.get("additionalProperties")
    if is_mapping(extra):
        rest(sub, walk, _READ_RECORD)
        return (f"Record<string, {_node(extra, level, depth + 1, walk)[0]}>", ATOM)
    rest(sub, walk, _READ_TYPE)
    return ("Record<string, unknown>", ATOM)


def _members(properties: object, walk: Walk) -> dict[str, object] | None:
    """A properties mapping's names and schemas, as a ``dict`` to read in its
    order: the mapping itself when it is one whose names are all exact
    ``str``, else one made of its :func:`._read.entries`."""
    cls = type(properties)
    if cls is dict or cls is RAW_SEEN[0] or (isinstance(properties, dict) and raw_dict(cls)):
        props = cast("dict[object, object]", properties)
        if len(props) <= MAX_ITEMS and exact_strs(props):
            return cast("dict[str, object]", props)
    if not is_mapping(properties):
        unread(properties, walk)
        return None
    walk.sure = False
    pairs = entries(properties)
    return None if pairs is None else dict(pairs)


def _doc(description: object, walk: Walk) -> str | None:
    """The JSDoc line for a description that is not an exact ``str``."""
    unread(description, walk)
    text = exact_str(description)
    return None if text is None else jsdoc(text)


def _fast_member(
    sv: dict[object, object], kind: object, description: object, nested: bool, plain: bool
) -> tuple[str, int] | None:
    """Fast path: ``(type text, nodes)`` for the common member shapes after a
    plain scalar — a ``type`` list of scalar names (``["string", "null"]``),
    an ``enum`` of strings, an array of a plain scalar type (``nested``: its
    items are within the depth limit) — or ``None`` for :func:`_node`.
    ``plain``: no schema keyword is among ``sv``'s keys.

    The same text as the rules give (``test_codegen_fast`` compares them on
    random schemas), without their dispatch: a third of the bench catalog's
    members take it. Only for exact types, and only when the schema holds
    nothing but the keys read (and a string ``description``), so nothing is
    left to count. A union's text is memoised by its names (they repeat).
    """
    size = len(sv) - (type(description) is str)
    if plain:
        if type(kind) is str:
            if kind != "array" or not nested or size != 2:
                return None
            items = sv.get("items")
            if type(items) is not dict and type(items) is not RAW_SEEN[0]:
                return None
            item_view = cast("dict[object, object]", items)
            item_kind = item_view.get("type")
            scalar = _SCALARS.get(item_kind) if type(item_kind) is str else None
            if scalar is None or len(item_view) - (type(item_view.get("description")) is str) != 1:
                return None
            return (scalar + "[]", 2)
        if size != 1:
            return None
        names, memo = kind, TYPE_UNIONS
    else:
        if size != 1 + (type(kind) is str) or "enum" not in sv:
            return None
        names, memo = sv.get("enum"), ENUM_UNIONS
    if type(names) is not list and type(names) is not tuple:
        return None
    listed = cast("Sequence[object]", names)
    if not listed or len(listed) > MAX_ITEMS or not exact_strs(listed):
        return None
    strings = cast("Sequence[str]", listed)
    key = tuple(strings)
    text = memo.get(key, _MISSING)
    if text is _MISSING:  # the union's text, or None when a name has no fast answer
        texts = list(map(memo_literal, strings) if memo is ENUM_UNIONS else map(_SCALARS.get, strings))
        joined = None if None in texts else " | ".join(dict.fromkeys(cast("list[str]", texts)))
        text = remember(memo, key, joined)
    return None if text is None else (cast(str, text), 1)
