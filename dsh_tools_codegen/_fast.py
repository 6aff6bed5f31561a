"""The fast renderer: :mod:`._schema`'s rules for trusted trees, or a bail-out.

The defensive renderer in :mod:`._schema` pays for totality at every node: a
``try`` per node, ``isinstance`` chains, a path set of ids, snapshots of
mappings. A cold :func:`~._sdk.render_tools_sdk` of 1,000 tools spends most of
its time there, yet the trees it renders are almost always *trusted*:

* a caller's exact ``dict`` that has canonical JSON bytes (so no cycles, no
  subclasses where orjson would call ``default``), or ``orjson.loads``
  output — exact ``dict``/``list``/``tuple``/``str``/``int``/``float``/
  ``bool``/``None``; or
* the registry's frozen parameters — ``FrozenDict``/``tuple`` and exact JSON
  scalars, which cannot contain themselves either.

On such a tree no user code can run (exact builtin types, and ``FrozenDict``,
which overrides no reading method of ``dict``), so the per-node guards buy
nothing. :func:`fast_render` applies the same rules with none of them and
raises :class:`Fallback` the moment anything it reads falls outside the
subset it handles exactly — another type (a ``PMap`` included), a ``$ref``, a
NaN or infinity (canonically ``null``), a container over
:data:`~._rules.MAX_ITEMS`, a path :data:`~._rules.MAX_DEPTH` deep, a node
over the :data:`~._rules.MAX_NODES` budget. The caller then runs the
defensive renderer, so the corners are the defensive renderer's by
construction; on the subset, the rules here mirror :mod:`._schema` line for
line and share its combinators (:mod:`._rules`), and
``tests/codegen/test_codegen_fast.py`` compares the two on random schemas.
Properties come in their mapping's order, as in :mod:`._schema`. The hot
loop is :meth:`_Renderer.block` (most members are a plain scalar type,
rendered inline); memo dicts keep repeated key, JSDoc and literal text.

In *frozen* mode (a ``FrozenDict`` root) a plain ``dict``/``list`` whose
contents would be read also bails: then everything the text was computed from
is immutable, which is what lets :mod:`._sdk` cache it under the root's
identity.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, cast

from ._canonical import PMAP_TYPE, PVECTOR_TYPE, SCALAR_TYPES, frozen_dict_type
from ._rules import (
    _ATOM,
    _KEYWORDS,
    _MISSING,
    _SCALARS,
    _UNKNOWN,
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_NODES,
    _intersection,
    _literal_union,
    _Rendered,
    _union,
)
from ._leaves import _STRING_LITERALS, _remember, leaf
from ._text import jsdoc, json_literal, member_key, string_literal

__all__ = ["Fallback", "clear_memos", "fast_render"]

# Exact types that are neither a mapping nor a sequence, as the defensive
# renderer classifies them; reading only their type is safe in frozen mode.
_ATOMS: Final = SCALAR_TYPES
_LITERAL_TYPES: Final = frozenset({str, int, bool, type(None)})
_CONTAINERS: Final = frozenset({dict, list, tuple, PMAP_TYPE, PVECTOR_TYPE}) - {None}
"""Containers whose *type* alone decides a rule (no literal, not a name);
``FrozenDict`` is checked beside them (:func:`_is_container`)."""


class Fallback(Exception):
    """The tree left the fast renderer's subset: use the defensive one."""


class _Renderer:
    __slots__ = ("budget", "frozen", "frozen_dict")

    def __init__(self, frozen: bool, frozen_dict: type | None) -> None:
        self.budget = MAX_NODES
        self.frozen = frozen
        self.frozen_dict = frozen_dict

    def mapping(self, value: object) -> dict[str, object] | None:
        """The node's entries, ``None`` for a non-mapping; bail on others."""
        cls = type(value)
        if cls is self.frozen_dict:
            return value  # type: ignore[return-value]  # read through dict's own methods
        if cls is dict:
            if self.frozen:
                raise Fallback
            return value  # type: ignore[return-value]
        if cls in _ATOMS or cls is list or cls is tuple or cls is PVECTOR_TYPE:
            _check_finite(value)
            return None
        raise Fallback

    def sequence(self, value: object) -> list[object] | tuple[object, ...] | None:
        """The items of a sequence, ``None`` for a non-sequence; bail on others."""
        cls = type(value)
        if cls is list:
            if self.frozen:
                raise Fallback
            items: list[object] | tuple[object, ...] = value  # type: ignore[assignment]
        elif cls is tuple:
            items = value  # type: ignore[assignment]
        elif cls in _ATOMS or cls is dict or cls is self.frozen_dict:
            _check_finite(value)
            return None
        else:
            raise Fallback
        if len(items) > MAX_ITEMS:
            raise Fallback
        return items

    def node(self, value: object, level: int, depth: int, view: dict[str, object] | None = None) -> _Rendered:
        self.budget -= 1
        if self.budget < 0 or depth >= MAX_DEPTH:
            raise Fallback
        if view is None:
            view = self.mapping(value)
            if view is None:
                return _UNKNOWN
        if not _KEYWORDS.isdisjoint(view):
            rendered = self.keywords(view, level, depth)
            if rendered is not None:
                return rendered
        kind = view.get("type")
        if type(kind) is str:
            scalar = _SCALARS.get(kind)
            if scalar is not None:
                return (scalar, _ATOM)
            return self.members(view, level, depth) if kind == "object" else self.typed(kind, view, level, depth)
        if kind is None:
            if self.mapping(view.get("properties")) is not None:
                return self.members(view, level, depth)
            if view.get("items") is not None:
                return self.typed("array", view, level, depth)
            return _UNKNOWN
        names = self.sequence(kind)
        if names:
            typed = self.typed
            return _union([typed(n if type(n) is str else _name(n), view, level, depth) for n in names])
        return _UNKNOWN

    def keywords(self, view: dict[str, object], level: int, depth: int) -> _Rendered | None:
        if view.get("$ref") is not None:
            raise Fallback
        const = view.get("const", _MISSING)
        if const is not _MISSING:
            literal = _literal(const)
            return _UNKNOWN if literal is None else (literal, _ATOM)
        enum = view.get("enum")
        if enum is not None:
            values = self.sequence(enum)
            if values is not None:
                return _literal_union(_literals(values))
        for keyword in ("anyOf", "oneOf"):
            alternatives = view.get(keyword)
            if alternatives is not None:
                options = self.sequence(alternatives)
                if options:
                    return _union([self.node(m, level, depth + 1) for m in options])
        parts = view.get("allOf")
        if parts is not None:
            members_ = self.sequence(parts)
            if members_:
                return _intersection([self.node(m, level, depth + 1) for m in members_])
        return None

    def typed(self, name: str, view: dict[str, object], level: int, depth: int) -> _Rendered:
        scalar = _SCALARS.get(name)
        if scalar is not None:
            return (scalar, _ATOM)
        if name == "array":
            items = view.get("items")
            sub = self.mapping(items)
            if sub is None:
                return ("unknown[]", _ATOM)
            text, precedence = self.node(items, level, depth + 1, sub)
            return (f"({text})[]" if precedence != _ATOM else text + "[]", _ATOM)
        if name == "object":
            return self.members(view, level, depth)
        return _UNKNOWN

    def members(self, view: dict[str, object], level: int, depth: int) -> _Rendered:
        properties = view.get("properties")
        if properties is not None:
            cls = type(properties)
            props = properties if cls is self.frozen_dict or (cls is dict and not self.frozen) else self.mapping(properties)
            if props:
                if len(props) > MAX_ITEMS:  # type: ignore[arg-type]
                    raise Fallback
                text = self.block(dict.items(props), self.required(view.get("required")), level, depth)  # type: ignore[arg-type]
                return (text, _ATOM)  # the mapping's own order (see _schema)
        extra = view.get("additionalProperties")
        sub = self.mapping(extra)
        if sub is not None:
            return (f"Record<string, {self.node(extra, level, depth + 1, sub)[0]}>", _ATOM)
        return ("Record<string, unknown>", _ATOM)

    def block(self, entries: Iterable[tuple[str, object]], required: set[str], level: int, depth: int) -> str:
        """An object type's ``{ ... }`` block, one member (and JSDoc) a line.

        The hot loop of a cold render. A member whose schema is a plain
        scalar type (most of them) is rendered inline; the other common
        shapes (:func:`._leaves.leaf`) and nested object types without
        :meth:`node`'s dispatch. Every node still counts against the budget.
        Heads and JSDoc lines come from the text memos, read inline.
        """
        if depth + 1 >= MAX_DEPTH:
            raise Fallback  # a member would be one node too deep
        inner = level + 1
        newline = "\n" + "  " * inner
        body: list[str] = []
        append = body.append
        frozen = self.frozen
        frozen_dict = self.frozen_dict
        nested = depth + 2 < MAX_DEPTH  # an array's items may be rendered inline
        required_heads, optional_heads, docs, scalars = _REQUIRED_HEADS, _OPTIONAL_HEADS, _DOC_TEXT, _SCALARS
        plain = _KEYWORDS.isdisjoint
        leaves = 0
        for key, sub in entries:
            if type(key) is not str:
                raise Fallback  # a str subclass would run its own __hash__ in the memo
            if key in required:
                head = required_heads.get(key) or _head(key, True)
            else:
                head = optional_heads.get(key) or _head(key, False)
            cls = type(sub)
            if cls is frozen_dict or (cls is dict and not frozen):
                sub_view: dict[str, object] = sub  # type: ignore[assignment]
            else:
                mapped = self.mapping(sub)
                if mapped is None:
                    append(head + "unknown;")
                    continue
                sub_view = mapped
            kind = sub_view.get("type")
            text = scalars.get(kind) if type(kind) is str else None
            if text is not None and plain(sub_view):
                leaves += 1
            else:
                shape = leaf(sub_view, frozen, frozen_dict, nested)
                if shape is not None:
                    text = shape[0]
                    leaves += shape[1]
                elif kind == "object" and plain(sub_view):  # node()'s dispatch, decided
                    self.budget -= 1
                    if self.budget < 0:
                        raise Fallback
                    text = self.members(sub_view, inner, depth + 1)[0]
                else:
                    text = self.node(sub, inner, depth + 1, sub_view)[0]
            description = sub_view.get("description")
            if description is not None:
                doc = docs.get(description, _MISSING) if type(description) is str else _MISSING
                if doc is _MISSING:
                    doc = _doc(description)
                if doc is not None:
                    append(doc)  # type: ignore[arg-type]
            append(f"{head}{text};")  # one allocation, where + would make two
        self.budget -= leaves
        return f"{{{newline}{newline.join(body)}\n{'  ' * level}}}"

    def required(self, value: object) -> set[str]:
        cls = type(value)
        if cls is tuple or (cls is list and not self.frozen):
            names: list[object] | tuple[object, ...] | None = value  # type: ignore[assignment]
            if len(names) <= MAX_ITEMS and _ONLY_STR.issuperset(map(type, names)):  # type: ignore[arg-type]
                return set(names)  # type: ignore[arg-type]  # the common case: names, all exact str
        names = None if value is None else self.sequence(value)
        required: set[str] = set()
        if names is not None:
            for name in names:
                if type(name) is str:
                    required.add(name)
                elif type(name) not in _ATOMS and type(name) not in _CONTAINERS:
                    raise Fallback  # exact_str would copy a str subclass; not our subset
        return required


_ONLY_STR: Final = frozenset({str})


def _check_finite(value: object) -> None:
    """Bail on a NaN or infinity the renderer is about to act on.

    The canonical reading turns them into ``null``, and "absent" and "not a
    schema" are different rules (``{"items": nan}`` is ``unknown[]`` as read,
    ``unknown`` canonically), so only the defensive renderer, which reads
    the canonical form, may answer.
    """
    if type(value) is float and value - value != 0.0:
        raise Fallback


def _name(value: object) -> str:
    """A non-``str`` entry of a ``type`` list: ``""`` (renders unknown)."""
    if type(value) in _ATOMS or type(value) in _CONTAINERS:
        return ""
    raise Fallback


def _literals(values: list[object] | tuple[object, ...]) -> list[str | None]:
    """The literal texts of ``values``, up to and including the first ``None``
    (after which :func:`~._rules._literal_union` stops reading)."""
    texts: list[str | None] = []
    for value in values:
        text = _literal(value)
        texts.append(text)
        if text is None:
            break
    return texts


def _literal(value: object) -> str | None:
    """:func:`json_literal` for exact types; bail on the rest and non-finite floats."""
    if type(value) is str:  # enum members repeat across tools: memoised
        text = _STRING_LITERALS.get(value)
        return _remember(_STRING_LITERALS, value, string_literal(value)) if text is None else text
    cls = type(value)
    if cls in _LITERAL_TYPES:
        return json_literal(value)
    if cls is float:
        if value - value != 0.0:  # type: ignore[operator]  # inf or nan: canonical JSON says null
            raise Fallback
        return float.__repr__(value)
    if cls in _CONTAINERS:
        return None
    raise Fallback


def _doc(description: object) -> str | None:
    """The JSDoc line for a description value (memoised: descriptions repeat)."""
    if description is None:
        return None
    if type(description) is not str:
        if type(description) in _ATOMS or type(description) in _CONTAINERS:
            return None
        raise Fallback
    doc = _DOC_TEXT.get(description, _MISSING)
    if doc is _MISSING:
        return _remember(_DOC_TEXT, description, jsdoc(description))
    return cast("str | None", doc)


def _head(key: str, required: bool) -> str:
    """A member line's start, ``name: `` or ``name?: `` (memoised: names repeat)."""
    memo = _REQUIRED_HEADS if required else _OPTIONAL_HEADS
    head = memo.get(key)
    return _remember(memo, key, member_key(key) + (": " if required else "?: ")) if head is None else head


_REQUIRED_HEADS: Final[dict[str, str]] = {}
_OPTIONAL_HEADS: Final[dict[str, str]] = {}
_DOC_TEXT: Final[dict[str, str | None]] = {}


def clear_memos() -> None:
    """Forget the memoised member heads, JSDoc lines and string literals (a
    truly cold start)."""
    _REQUIRED_HEADS.clear()
    _OPTIONAL_HEADS.clear()
    _DOC_TEXT.clear()
    _STRING_LITERALS.clear()


def fast_render(tree: object, level: int, frozen: bool) -> str:
    """``tree`` rendered at ``level`` exactly as :func:`~._schema.render_schema`
    would, or :class:`Fallback` (also on any unexpected error)."""
    try:
        frozen_dict = frozen_dict_type()
        renderer = _Renderer(frozen, frozen_dict)
        cls = type(tree)
        kind = tree.get("type") if cls is frozen_dict or (cls is dict and not frozen) else None  # type: ignore[attr-defined]
        if type(kind) is str and kind == "object" and _KEYWORDS.isdisjoint(tree):  # type: ignore[arg-type]
            renderer.budget -= 1  # a tool's parameters: node()'s dispatch, decided
            text = renderer.members(tree, level, 0)[0]  # type: ignore[arg-type]
        else:
            text = renderer.node(tree, level, 0)[0]
    except Fallback:
        raise
    except Exception as error:
        raise Fallback from error
    if renderer.budget < 0:  # inline leaves are counted per block, after the fact
        raise Fallback
    return text
