"""The canonical JSON reading of a schema, and the deep-immutability check.

Rendering reads a schema through its canonical JSON bytes whenever it has
them: ``orjson.dumps`` of the value, objects in their own key order (the
author's order is part of what the model sees). Two wins:

* **Soundness of caching.** The rendered text is a function of those bytes
  (it is rendered from ``orjson.loads`` of them), so the bytes are a cache
  key that can never give stale text; ``==`` could not be one (``True == 1
  == 1.0``, dict order is invisible to it). Two schemas that differ only in
  property order have different bytes, so different texts.
* **Speed.** The loaded tree holds only exact ``dict``/``list`` and scalars,
  which the renderer reads on its fast path; orjson does the walk in C.

Containers with canonical bytes are exact ``dict``/``list``/``tuple``,
dsh-tools' ``FrozenDict`` (see :func:`frozen_dict_type`) and pyrsistent's
``PMap`` (which has no order of its own: code-point order) / ``PVector``.
A value without canonical bytes (custom classes, ``str``/``dict``
subclasses, non-``str`` keys, cycles, lone surrogates, integers beyond 64
bits, nesting deeper than orjson's limit, more than :data:`MAX_VALUES`
values written out) is rendered directly by the defensive renderer,
uncached. Non-finite floats canonicalise to ``null`` (as JSON has no NaN).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Final, cast

import orjson

__all__ = ["MAX_VALUES", "PMAP_TYPE", "PVECTOR_TYPE", "SCALAR_TYPES", "canonical_json", "dumps_to", "frozen_dict_type"]

try:  # pyrsistent is a project dependency, but this package only needs its types
    from pyrsistent import pmap, pvector

    _PMAP: type | None = type(pmap())
    _PVECTOR: type | None = type(pvector())
except ImportError:  # pragma: no cover
    _PMAP = _PVECTOR = None
PMAP_TYPE: Final = _PMAP
"""pyrsistent's ``PMap`` class (``None`` without pyrsistent)."""
PVECTOR_TYPE: Final = _PVECTOR
"""pyrsistent's ``PVector`` class (``None`` without pyrsistent)."""
SCALAR_TYPES: Final = frozenset({str, int, float, bool, type(None)})
"""The exact types of JSON scalars (subclasses are not JSON here)."""

_FROZEN_MODULE: Final = "dsh_tools.json_values"
_found: list[type] = []


def frozen_dict_type() -> type | None:
    """dsh-tools' ``FrozenDict`` class, or ``None`` while it is not loaded.

    This package never imports the dsh-tools runtime, and need not: a
    ``FrozenDict`` can exist only once its module has been imported, so
    looking the class up in ``sys.modules`` is exact (``None`` means no
    value can be one). Found once, it is remembered.
    """
    if _found:
        return _found[0]
    module = sys.modules.get(_FROZEN_MODULE)
    cls = getattr(module, "FrozenDict", None) if module is not None else None
    if isinstance(cls, type) and cls.__mro__[1:] == (dict, object):
        _found.append(cls)
        return cls
    return None


_OPTIONS: Final = (
    orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)


def _first(pair: tuple[str, object]) -> str:
    return pair[0]


def _thaw(value: object) -> object:
    """orjson ``default`` for the checked path: frozen containers as plain
    ones (same order; a ``PMap`` in code-point order), anything else refused."""
    cls = type(value)
    if cls is frozen_dict_type():
        return dict(cast("dict[str, object]", value))
    if cls is PMAP_TYPE:
        return dict(sorted(cast("Iterable[tuple[str, object]]", value.iteritems()), key=_first))  # type: ignore[attr-defined]
    if cls is PVECTOR_TYPE:
        return list(cast("Iterable[object]", value))
    raise TypeError("not canonical JSON")


MAX_VALUES: Final = 100_000
"""Values (a shared one counted each time, as orjson writes it) above which a
schema has no canonical bytes. orjson has no size limit, and a few nested
shared lists would make it write an exponentially long text."""
MAX_NESTING: Final = 254
"""orjson's own nesting limit: deeper values (and cycles) have no canonical bytes."""


class _Walk:
    """One size count: the budget left, and what the containers seen were.

    ``mutable``: an exact ``dict``/``list`` was seen (the value is not deeply
    frozen); ``pyrsistent``: a ``PMap``/``PVector`` was seen (orjson needs
    the ``default`` hook for it).
    """

    __slots__ = ("frozen_dict", "left", "mutable", "pyrsistent")

    def __init__(self, frozen_dict: type | None) -> None:
        self.left = MAX_VALUES - 1
        self.frozen_dict = frozen_dict
        self.mutable = False
        self.pyrsistent = False

    def fits(self, node: object, depth: int) -> bool:
        """Whether orjson may write ``node``: exact JSON types only, within the
        bounds. Only exact containers are entered and only exact JSON scalars
        accepted as leaves: orjson writes an ``Enum`` member, a ``UUID`` or a
        ``Fragment`` natively, and such a leaf could hide a huge value (or
        invalid JSON) from this count. The count stops as soon as a bound is
        passed, so a cycle or a huge shared tree costs little."""
        cls = type(node)
        if cls in SCALAR_TYPES:
            return True
        if depth > MAX_NESTING:
            return False
        if cls is dict or cls is self.frozen_dict:
            if cls is dict:
                self.mutable = True
            children: Iterable[object] = dict.values(cast("dict[object, object]", node))
            size = len(cast("dict[object, object]", node))
        elif cls is list or cls is tuple:
            if cls is list:
                self.mutable = True
            children = cast("list[object]", node)
            size = len(children)
        elif cls is PVECTOR_TYPE:
            self.pyrsistent = True
            children = list(cast("Iterable[object]", node))
            size = len(children)
        elif cls is PMAP_TYPE:
            self.pyrsistent = True
            children = list(cast("Iterable[object]", node.itervalues()))  # type: ignore[attr-defined]
            size = len(children)
        else:
            return False
        self.left -= size
        if self.left < 0:
            return False
        for child in children:
            if type(child) not in SCALAR_TYPES and not self.fits(child, depth + 1):
                return False
        return True


def canonical_json(value: object) -> tuple[bytes, bool] | None:
    """``(canonical JSON bytes, deeply frozen?)`` for ``value``, or ``None``.

    "Deeply frozen" means built only from immutable containers (``FrozenDict``,
    ``tuple``, ``PMap``, ``PVector``) and JSON scalars (exact types), so the
    value can never change. A value orjson may not write has no canonical
    bytes. Without pyrsistent containers orjson writes the value natively
    (every type in it is an exact JSON type by then); with them, through
    :func:`_thaw`.
    """
    walk = _Walk(frozen_dict_type())
    try:
        if not walk.fits(value, 1):
            return None
    except RecursionError:  # called with little stack left: treat as "no canonical bytes"
        return None
    try:
        if walk.pyrsistent:
            data = orjson.dumps(value, default=_thaw, option=_OPTIONS)
        else:
            data = orjson.dumps(value)
    except Exception:
        return None
    return data, not walk.mutable


def dumps_to(value: object, data: bytes) -> bool:
    """Whether ``value`` (a ``dict`` already found to have canonical bytes
    ``data``) still dumps to them: a cheap re-check, without the size count,
    after reading it live (a writer that races its own schema into a huge
    shared tree in between is code that could hang the process anyway).
    The checked path writes the same bytes as the native one."""
    try:
        return orjson.dumps(value, default=_thaw, option=_OPTIONS) == data
    except Exception:
        return False
