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
deeper than orjson's limit) is rendered directly by the defensive renderer,
uncached. Non-finite floats canonicalise to ``null`` (as JSON has no NaN).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, cast

import orjson

__all__ = ["PMAP_TYPE", "PVECTOR_TYPE", "canonical_json"]

_OPTIONS: Final = (
    orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)

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
_FROZEN_CHILDREN: Final = frozenset({str, int, float, bool, type(None), _PMAP, _PVECTOR}) - {None}


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
        if cls is _PMAP:
            items = sorted(cast("Iterable[tuple[str, object]]", value.iteritems()), key=_first)  # type: ignore[attr-defined]
            if self.frozen:
                self.frozen = all(type(k) is str and type(v) in _FROZEN_CHILDREN for k, v in items)
            return dict(items)
        if cls is _PVECTOR:
            children = list(cast("Iterable[object]", value))
            if self.frozen:
                self.frozen = all(type(v) in _FROZEN_CHILDREN for v in children)
            return children
        raise TypeError("not canonical JSON")


def _thaw_any(value: object) -> object:
    """:class:`_Thaw` without the deep-immutability watch."""
    cls = type(value)
    if cls is _PMAP:
        return dict(sorted(cast("Iterable[tuple[str, object]]", value.iteritems()), key=_first))  # type: ignore[attr-defined]
    if cls is _PVECTOR:
        return list(cast("Iterable[object]", value))
    raise TypeError("not canonical JSON")


def canonical_json(value: object) -> tuple[bytes, bool] | None:
    """``(canonical JSON bytes, deeply frozen?)`` for ``value``, or ``None``.

    "Deeply frozen" means built only from ``PMap``/``PVector`` and JSON
    scalars (exact types), so the value can never change.
    """
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
