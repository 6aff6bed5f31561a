"""The member shapes :mod:`._fast` renders inline, and the text memos it reads.

Most properties of a real tool schema are one of a few shapes: a scalar
``type`` (``{"type": "string", "description": ...}``), a ``type`` list of
scalars (``["string", "null"]``), an ``enum`` of strings, an array of a
scalar type. :func:`leaf` renders exactly those with straight-line code,
where the general path (:meth:`._fast._Renderer.node`) would spend five or
six calls on each, and answers ``None`` for anything else, so the general
path renders it: the rules are the general path's, specialised (and
``tests/codegen/test_codegen_fast.py`` compares the renderers on random
schemas). It never raises and runs no user code: it reads only exact
``dict``/``FrozenDict``/``tuple``/``list``/``str`` values, and a ``list`` or
``dict`` only outside *frozen* mode.
"""

from __future__ import annotations

from typing import Final, TypeVar

from ._rules import _KEYWORDS, _SCALARS, MAX_ITEMS
from ._text import string_literal

__all__ = ["leaf"]

_MEMO_LIMIT: Final = 4096
_Text = TypeVar("_Text", str, "str | None")


def _remember(memo: dict[str, _Text], key: str, text: _Text) -> _Text:
    """Store in one of the bounded text memos (cleared when full: the keys are
    exact ``str``, so neither lookups nor storing ever run user code)."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = text
    return text


_STRING_LITERALS: Final[dict[str, str]] = {}
"""String literal text by value (enum members repeat across tools)."""


def leaf(view: dict[str, object], frozen: bool, frozen_dict: type | None, nested: bool) -> tuple[str, int] | None:
    """``(type text, schema nodes read)`` for a member schema of a common
    shape, or ``None`` to render it on the general path.

    ``nested``: whether an array's ``items`` node is still within the depth
    limit (else the general path decides).
    """
    if _KEYWORDS.isdisjoint(view):
        kind = view.get("type")
        if type(kind) is str:
            scalar = _SCALARS.get(kind)
            if scalar is not None:
                return (scalar, 1)
            if kind == "array" and nested:
                items = view.get("items")
                cls = type(items)
                if cls is frozen_dict or (cls is dict and not frozen):
                    item_view: dict[str, object] = items  # type: ignore[assignment]
                    item_kind = item_view.get("type")
                    if type(item_kind) is str and _KEYWORDS.isdisjoint(item_view):
                        scalar = _SCALARS.get(item_kind)
                        if scalar is not None:
                            return (scalar + "[]", 2)
            return None
        cls = type(kind)
        if cls is tuple or (cls is list and not frozen):
            return _scalar_union(kind)  # type: ignore[arg-type]
        return None
    if "$ref" in view or "const" in view:
        return None
    enum = view.get("enum")
    cls = type(enum)
    if cls is tuple or (cls is list and not frozen):
        return _string_enum(enum)  # type: ignore[arg-type]
    return None


def _scalar_union(names: tuple[object, ...] | list[object]) -> tuple[str, int] | None:
    """``["string", "null"]`` as ``string | null`` (duplicates dropped, as
    :func:`~._rules._union` does), or ``None`` unless every name is a scalar type."""
    if not names or len(names) > MAX_ITEMS:
        return None
    texts: list[str] = []
    for name in names:
        scalar = _SCALARS.get(name) if type(name) is str else None
        if scalar is None:
            return None
        texts.append(scalar)
    return (texts[0] if len(texts) == 1 else " | ".join(dict.fromkeys(texts)), 1)


def _string_enum(values: tuple[object, ...] | list[object]) -> tuple[str, int] | None:
    """An ``enum`` of strings as a union of literals (duplicates dropped), or
    ``None`` unless it is a non-empty one."""
    if not values or len(values) > MAX_ITEMS:
        return None
    literals = _STRING_LITERALS
    texts: list[str] = []
    for value in values:
        if type(value) is not str:
            return None
        text = literals.get(value)
        texts.append(_remember(literals, value, string_literal(value)) if text is None else text)
    return (texts[0] if len(texts) == 1 else " | ".join(dict.fromkeys(texts)), 1)
