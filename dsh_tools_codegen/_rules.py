"""The rendering rules both renderers share: limits, precedences, combinators.

:mod:`._schema` (the defensive renderer) and :mod:`._fast` (the fast one for
trusted trees) must give the same text for the same tree; whatever they can
share lives here so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["MAX_DEPTH", "MAX_INDENT", "MAX_ITEMS", "MAX_NODES"]

MAX_DEPTH: Final = 48
"""Schema nodes on one path (``$ref`` hops included) before degrading."""
MAX_NODES: Final = 10_000
"""Schema nodes rendered per :func:`json_schema_to_ts` call before degrading."""
MAX_ITEMS: Final = 10_000
"""Entries read from one container (properties, enum, anyOf, …)."""
MAX_INDENT: Final = 1_000
"""Largest accepted ``indent``; larger (or non-int) values are clamped."""

_ATOM: Final = 0
_INTERSECTION: Final = 1
_UNION: Final = 2
_Rendered = tuple[str, int]
_UNKNOWN: Final[_Rendered] = ("unknown", _ATOM)
_MISSING: Final = object()
_SCALARS: Final = {
    "string": "string",
    "number": "number",
    "integer": "number",
    "boolean": "boolean",
    "null": "null",
}
_KEYWORDS: Final = frozenset({"$ref", "const", "enum", "anyOf", "oneOf", "allOf"})


def _union(members: list[_Rendered]) -> _Rendered:
    """``A | B``, deduplicated in first-seen order; ``unknown`` absorbs all."""
    if len(members) == 2:  # the common case (``["string", "null"]``), without the dict
        first, second = members[0][0], members[1][0]
        if first != "unknown" and second != "unknown":
            return members[0] if first == second else (f"{first} | {second}", _UNION)
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
