"""The canonical JSON reading of a schema, and the deep-immutability check.

Rendering reads a schema through its canonical JSON bytes whenever it has
them: ``orjson.dumps`` with subclasses passed through to a ``default`` that
accepts only pyrsistent's ``PMap`` (keys in code-point order — its own
iteration order depends on the string-hash seed) and ``PVector``. Two wins:

* **Soundness of caching.** The rendered text is a function of those bytes
  (it is rendered from ``orjson.loads`` of them), so the bytes are a cache
  key that can never give stale text; ``==`` could not be one (``True == 1
  == 1.0``, dict order is invisible to it).
* **Speed.** The loaded tree holds only exact ``dict``/``list`` and scalars,
  which the renderer reads on its fast path; orjson does the walk in C.

A value without canonical bytes (custom classes, ``str``/``dict`` subclasses,
non-``str`` keys, cycles, lone surrogates, integers beyond 64 bits, nesting
deeper than orjson's limit, more than :data:`MAX_VALUES` values written out)
is rendered directly by the defensive renderer, uncached. Non-finite floats
canonicalise to ``null`` (as JSON has no NaN).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, cast

import orjson

__all__ = ["MAX_VALUES", "PMAP_TYPE", "PVECTOR_TYPE", "SCALAR_TYPES", "canonical_json", "dumps_to"]

_OPTIONS: Final = (
    orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)

try:  # pyrsistent is a project dependency, but this package only needs its types
    from pyrsistent import pmap, pvector

    _PMAP: type | None = type(pmap())
    _PVECTOR: type | None = type(pvector())
except ImportError:  # pragma: no cover
    _PMAP = _PVECTOR = None
# Final (not the try-block variables) so compiled code reads them as constants
PMAP_TYPE: Final = _PMAP
"""pyrsistent's ``PMap`` class (``None`` without pyrsistent)."""
PVECTOR_TYPE: Final = _PVECTOR
"""pyrsistent's ``PVector`` class (``None`` without pyrsistent)."""
SCALAR_TYPES: Final = frozenset({str, int, float, bool, type(None)})
"""The exact types of JSON scalars (subclasses are not JSON here)."""
_FROZEN_CHILDREN: Final = SCALAR_TYPES | frozenset({_PMAP, _PVECTOR}) - {None}


def _first(pair: tuple[str, object]) -> str:
    return pair[0]


class _Thaw:
    """orjson ``default``: thaws frozen containers, refuses anything else.

    It also watches whether the value is *deeply frozen*: orjson serialises a
    ``dict``/``list``/``tuple`` natively without calling ``default``, so each
    frozen container inspects its own children's exact types instead; one
    that is not a JSON scalar or frozen container clears :attr:`frozen`.
    """

    __slots__ = ("frozen",)

    def __init__(self, root: object) -> None:
        self.frozen = type(root) in _FROZEN_CHILDREN

    def __call__(self, value: object) -> object:
        cls = type(value)
        if cls is PMAP_TYPE:
            items = sorted(cast("Iterable[tuple[str, object]]", value.iteritems()), key=_first)  # type: ignore[attr-defined]
            if self.frozen:
                self.frozen = all(type(k) is str and type(v) in _FROZEN_CHILDREN for k, v in items)
            return dict(items)
        if cls is PVECTOR_TYPE:
            children = list(cast("Iterable[object]", value))
            if self.frozen:
                self.frozen = all(type(v) in _FROZEN_CHILDREN for v in children)
            return children
        raise TypeError("not canonical JSON")


def _thaw_any(value: object) -> object:
    """:class:`_Thaw` without the deep-immutability watch."""
    cls = type(value)
    if cls is PMAP_TYPE:
        return dict(sorted(cast("Iterable[tuple[str, object]]", value.iteritems()), key=_first))  # type: ignore[attr-defined]
    if cls is PVECTOR_TYPE:
        return list(cast("Iterable[object]", value))
    raise TypeError("not canonical JSON")


MAX_VALUES: Final = 100_000
"""Values (a shared one counted each time, as orjson writes it) above which a
schema has no canonical bytes. orjson has no size limit, and a few nested
shared lists would make it write an exponentially long text."""


def _writable(value: object) -> bool:
    """Whether orjson may write ``value``: plain JSON types only, at most
    :data:`MAX_VALUES` values and :data:`MAX_NESTING` levels.

    The count stops as soon as a bound is passed, so a cycle or a huge
    shared tree costs little. Only exact containers are entered and only
    exact JSON scalars are accepted as leaves: orjson writes an ``Enum``
    member, a ``UUID`` or a ``Fragment`` natively, and such a leaf could hide
    a huge value (or invalid JSON) from this count. The recursion is bounded
    by :data:`MAX_NESTING`; this runs for every schema, so the dict and list
    branches are typed for the compiled build to iterate natively.
    """
    return _fits(value, 1, _Budget(MAX_VALUES - 1))


class _Budget:
    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left


def _fits(node: object, depth: int, budget: _Budget) -> bool:
    cls = type(node)
    if cls in SCALAR_TYPES:
        return True
    if depth > MAX_NESTING:
        return False
    if cls is dict:
        mapping = cast("dict[object, object]", node)
        budget.left -= len(mapping)
        if budget.left < 0:
            return False
        for child in mapping.values():
            if type(child) not in SCALAR_TYPES and not _fits(child, depth + 1, budget):
                return False
        return True
    if cls is list:
        items = cast("list[object]", node)
    elif cls is tuple or cls is PVECTOR_TYPE:
        items = list(cast("Iterable[object]", node))
    elif cls is PMAP_TYPE:
        items = list(cast("Iterable[object]", node.itervalues()))  # type: ignore[attr-defined]
    else:
        return False
    budget.left -= len(items)
    if budget.left < 0:
        return False
    for child in items:
        if type(child) not in SCALAR_TYPES and not _fits(child, depth + 1, budget):
            return False
    return True


MAX_NESTING: Final = 254
"""orjson's own nesting limit: deeper values (and cycles) have no canonical bytes."""


def canonical_json(value: object) -> tuple[bytes, bool] | None:
    """``(canonical JSON bytes, deeply frozen?)`` for ``value``, or ``None``.

    "Deeply frozen" means built only from ``PMap``/``PVector`` and JSON
    scalars (exact types), so the value can never change. A value that is not
    :func:`_writable` has no canonical bytes.
    """
    try:
        if not _writable(value):
            return None
    except RecursionError:  # called with little stack left: treat as "no canonical bytes"
        return None
    if type(value) is dict:  # never deeply frozen: no need to watch
        try:
            return orjson.dumps(value, default=_thaw_any, option=_OPTIONS), False
        except Exception:
            return None
    thaw = _Thaw(value)
    try:
        data = orjson.dumps(value, default=thaw, option=_OPTIONS)
    except Exception:
        return None
    return data, thaw.frozen


def dumps_to(value: object, data: bytes) -> bool:
    """Whether ``value`` (a ``dict`` already found to have canonical bytes
    ``data``) still dumps to them: a cheap re-check, without the size count,
    after reading it live (a writer that races its own schema into a huge
    shared tree in between is code that could hang the process anyway)."""
    try:
        return orjson.dumps(value, default=_thaw_any, option=_OPTIONS) == data
    except Exception:
        return False
