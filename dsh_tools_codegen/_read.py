"""How both renderers read a schema: limits, views of mappings and sequences.

A schema comes from plugins, MCP servers and users, so it is read as data,
never trusted to behave: every reader here is total, bounded and runs as
little of the value's own code as it can.

* A ``dict`` is read as it is; so is a ``dict`` subclass that overrides
  none of the methods the renderers call (:func:`raw_dict`), such as an
  immutable mapping type that only takes mutators away. Any other ``dict``
  subclass is copied through ``dict.copy`` (its overrides never run), and
  any other ``Mapping`` is snapshotted once through ``items()``.
* Containers are read up to :data:`MAX_ITEMS` entries; keys are copied to
  exact ``str`` (non-string keys dropped), so subclasses cannot inject text.
* Property order is the mapping's own for a ``dict`` (or subclass): the
  author's order, which is part of what the model sees. Other mappings —
  notably pyrsistent's ``PMap``, whose iteration order depends on the
  string-hash seed — are read in code-point key order, so the text is
  byte-identical across processes.
* A non-finite float reads as ``null`` (:func:`absent`): JSON has no NaN,
  and that is how the member memo's fingerprint (orjson) writes it, so a
  schema's text is a function of its JSON text (see :mod:`._sdk`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Final, cast

__all__ = [
    "LEAF_TYPES", "MAX_DEPTH", "MAX_INDENT", "MAX_ITEMS", "MAX_NODES", "MAX_VALUES", "RAW_SEEN", "Walk",
    "absent", "count", "entries", "exact_strs", "is_mapping", "is_sequence", "mapping", "member_mapping", "no_keywords", "raw_dict",
    "required_names", "rest", "scalars_only", "take", "unread", "view",
]

MAX_DEPTH: Final = 48
"""Schema nodes on one path (``$ref`` hops included) before degrading."""
MAX_NODES: Final = 10_000
"""Schema nodes rendered per schema before degrading."""
MAX_ITEMS: Final = 10_000
"""Entries read from one container (properties, enum, anyOf, …)."""
MAX_INDENT: Final = 1_000
"""Largest accepted ``indent``; larger (or non-int) values are clamped."""
MAX_VALUES: Final = 100_000
"""Values a schema part the renderer does not read may hold, for its text to
be memoised (:mod:`._sdk` writes the whole schema to fingerprint it)."""
LEAF_TYPES: Final = frozenset({str, int, float, bool, type(None)})
"""The exact types of JSON scalars (subclasses are not JSON here)."""

_NOT_SEQUENCES: Final = (str, bytes, bytearray, memoryview)
_READERS: Final = ("get", "items", "keys", "values", "__getitem__", "__iter__", "__contains__", "__len__")
_RAW: Final[dict[int, tuple[type, bool]]] = {}


def raw_dict(cls: type) -> bool:
    """Whether ``cls`` (a ``dict`` subclass) reads exactly as a ``dict``: it
    overrides none of :data:`_READERS`. Memoised by class identity
    (confirmed by ``is``, so no metaclass ``__hash__``/``__eq__`` runs)."""
    entry = _RAW.get(id(cls))
    if entry is not None and entry[0] is cls:
        return entry[1]
    if len(_RAW) >= 256:  # classes made on the fly must not pile up
        _RAW.clear()
    try:
        answer = all(getattr(cls, name) is getattr(dict, name) for name in _READERS)
    except Exception:
        answer = False
    _RAW[id(cls)] = (cls, answer)
    return answer


def absent(value: object) -> bool:
    """``None``, or a float JSON would write as ``null`` (NaN, ±infinity)."""
    return value is None or (isinstance(value, float) and value - value != 0.0)


def view(node: object) -> dict[object, object] | None:
    """A ``dict`` to read a mapping node through (see the module docstring),
    else ``None``."""
    if type(node) is dict:
        return node
    if isinstance(node, dict):
        return node if raw_dict(type(node)) else dict.copy(node)
    if isinstance(node, Mapping):
        items = take(node.items())
        return None if items is None else dict(cast("list[tuple[object, object]]", items))
    return None


def is_sequence(value: object) -> bool:
    if type(value) is list or type(value) is tuple:
        return True
    return isinstance(value, Sequence) and not isinstance(value, _NOT_SEQUENCES)


def take(values: object, limit: int = MAX_ITEMS) -> list[object] | None:
    """At most ``limit`` items, or ``None`` for a bigger (or endless) iterable."""
    if type(values) is list or type(values) is tuple:
        return list(values) if len(values) <= limit else None
    taken = list(islice(cast(Iterable[object], values), limit + 1))
    return taken if len(taken) <= limit else None


def entries(mapping: object) -> list[tuple[str, object]] | None:
    """``(name, schema)`` pairs of a properties mapping, non-str keys dropped,
    each name once (the first): keys copied to exact ``str`` can collide (a
    ``str`` subclass equal to no other key but reading as one), and a type
    with a property twice is no type."""
    named: list[tuple[str, object]]
    if isinstance(mapping, dict):
        pairs = take(dict.items(mapping))
        if pairs is None:
            return None
        if exact_strs(dict.keys(mapping)):
            return cast("list[tuple[str, object]]", pairs)  # one dict's exact keys are unique
        named = _named(pairs)
    elif isinstance(mapping, Mapping):
        items = take(mapping.items())
        if items is None:
            return None
        named = sorted(_named(items), key=_first)  # in name order: another mapping's own may not be stable
    else:
        return None
    seen: set[str] = set()
    unique: list[tuple[str, object]] = []
    for name, value in named:
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
        name = key if type(key) is str else str.__str__(key) if isinstance(key, str) else None
        if name is not None:
            named.append((name, value))
    return named


_NO_NAMES: Final[frozenset[str]] = frozenset()
SCHEMA_KEYWORDS: Final = frozenset({"$ref", "const", "enum", "anyOf", "oneOf", "allOf"})
"""The keywords that make a schema more than its ``type`` (both renderers read them)."""


def exact_strs(values: Iterable[object]) -> bool:
    """Whether every item is an exact ``str``, the one test before names are
    used as they are (an exact ``str`` runs no user code when hashed or
    compared). A plain loop: mypyc compiles it natively, where
    ``all(...)`` or ``frozenset.issuperset(map(type, ...))`` is a generic call.
    A list (the usual container) is looped over as a ``list``, which compiles
    to an indexed loop where an ``Iterable`` goes through an iterator object."""
    if type(values) is list:
        for value in cast("list[object]", values):
            if type(value) is not str:
                return False
        return True
    for value in values:
        if type(value) is not str:
            return False
    return True


def required_names(value: object) -> frozenset[str]:
    """The names a ``required`` value lists (exact ``str`` copies)."""
    cls = type(value)
    if cls is list or cls is tuple:
        names = cast("Sequence[object]", value)
        if len(names) <= MAX_ITEMS and exact_strs(names):
            return frozenset(cast("Sequence[str]", names))  # the common case
    if value is None or not is_sequence(value):
        return _NO_NAMES
    taken = take(value) or []
    return frozenset(n if type(n) is str else str.__str__(n) for n in taken if isinstance(n, str))


RAW_SEEN: Final[list[type]] = [dict]
"""The last ``dict`` subclass found to read as a ``dict`` (an identity check
before the per-class memo of :func:`raw_dict`)."""


def no_keywords(view: dict[object, object]) -> bool:
    """``SCHEMA_KEYWORDS.isdisjoint(view)``: the same lookups in the same order,
    as a loop mypyc compiles natively (a method call on a frozenset is not)."""
    for key in view:
        if key in SCHEMA_KEYWORDS:
            return False
    return True


def scalars_only(view: dict[object, object]) -> bool:
    """``LEAF_TYPES.issuperset(map(type, view.values()))``, "nothing there to
    count", as a loop mypyc compiles natively."""
    for value in view.values():
        if type(value) not in LEAF_TYPES:
            return False
    return True


class Walk:
    """One schema's rendering state: the root (for ``$ref``), the ids on the
    current path, the node budget, the count budget and the *sure* answer."""

    __slots__ = ("active", "budget", "root", "sure", "values")

    def __init__(self, root: object) -> None:
        self.root = root
        self.active: set[int] = set()
        self.budget = MAX_NODES
        self.values = MAX_VALUES
        self.sure = True


def member_mapping(sub: object, walk: Walk) -> dict[object, object] | None:
    """A member schema's mapping; ``None`` (the member reads ``unknown``) when
    it has none or it cannot be read."""
    try:
        return mapping(sub, walk)
    except Exception:
        walk.sure = False
        return None


def mapping(node: object, walk: Walk) -> dict[object, object] | None:
    """The mapping to read ``node`` through (:func:`._read.view`), ``None`` for
    a non-mapping (counted, as the rules do not read it)."""
    cls = type(node)
    if cls is dict:
        return cast("dict[object, object]", node)
    if cls in LEAF_TYPES:
        return None
    if cls is list or cls is tuple:
        count(node, walk)
        return None
    if isinstance(node, dict) and raw_dict(cls):
        RAW_SEEN[0] = cls
        return node
    walk.sure = False
    return view(node)


def is_mapping(value: object) -> bool:
    cls = type(value)
    return cls is dict or cls is RAW_SEEN[0] or isinstance(value, Mapping)


def rest(sub: dict[object, object], walk: Walk, read: frozenset[str]) -> None:
    """Count the containers under the keys a rule did not read (the *sure*
    answer's bound on the written size). Hot callers skip the call when
    every value is a JSON scalar (:func:`scalars_only`), the common case.

    Fast path of :func:`_rest_rule` (test_codegen_fast checks they agree):
    when every key is an exact ``str`` (its lookups run no user code) and
    each key not read holds a JSON scalar, there is nothing to count; one
    native pass says so, without the set difference."""
    if walk.sure:
        for key, value in sub.items():
            if type(key) is not str or (key not in read and type(value) not in LEAF_TYPES):
                _rest_rule(sub, walk, read)
                return


def _rest_rule(sub: dict[object, object], walk: Walk, read: frozenset[str]) -> None:
    """The rule of :func:`rest`."""
    if walk.sure:
        for key in sub.keys() - read:
            value = sub[key]
            if type(value) not in LEAF_TYPES:
                count(value, walk)


def unread(value: object, walk: Walk) -> None:
    if type(value) not in LEAF_TYPES:
        count(value, walk)


def count(value: object, walk: Walk) -> None:
    """Count ``value``'s values against the budget; anything but exact JSON
    types (or too many values, or a cycle) makes the render unsure."""
    stack, left = [value], walk.values
    while stack and walk.sure:
        node = stack.pop()
        cls = type(node)
        if cls in LEAF_TYPES:
            continue
        if cls is list or cls is tuple:
            children = cast("Sequence[object]", node)
        elif cls is dict or (isinstance(node, dict) and raw_dict(cls)):
            children = list(dict.values(cast("dict[object, object]", node)))
        else:
            walk.sure = False
            return
        left -= len(children)
        if left < 0:
            walk.sure = False
        stack.extend(children)
    walk.values = left
