"""Lexical helpers: the only place that turns Python text into TypeScript text.

Everything the generator emits that came from user data (property names, tool
names, enum/const values, descriptions) passes through one of these functions,
so the escaping rules live in one spot:

* keys are bare only when they are plain ASCII JavaScript identifiers, quoted
  (a JSON string literal) otherwise — quoting is always valid, a bare key is
  only valid sometimes;
* string literals are JSON string literals (valid TypeScript) with lone
  surrogates and U+2028/U+2029 escaped, so the output always encodes as UTF-8
  and never contains a raw line terminator inside a literal;
* descriptions become one-line JSDoc with ``*/`` defused and every run of
  whitespace (newlines included) collapsed to one space, so a description can
  never end the comment early or break the one-member-per-line layout.

Two things sit here because they are text too: the bounded memos of member
heads, string literals and unions of scalar names or string enums (names,
enum members and ``["string", "null"]`` repeat across a catalog), and the
combinators that join type texts (``A | B``, ``A & B``) with their
precedence.

All functions here are total on their declared input types and never run
user code: callers hand them exact ``str`` (see :func:`exact_str`).
"""

from __future__ import annotations

import math
import re
from json.encoder import encode_basestring as _encode_string  # = json.dumps(s, ensure_ascii=False)
from collections.abc import Iterable
from typing import Final, TypeVar

__all__ = [
    "ATOM",
    "ENUM_UNIONS",
    "OPTIONAL_HEADS",
    "REQUIRED_HEADS",
    "TYPE_UNIONS",
    "UNKNOWN",
    "Rendered",
    "clear_memos",
    "exact_str",
    "intersection",
    "is_identifier",
    "jsdoc",
    "json_literal",
    "literal_union",
    "member_head",
    "member_key",
    "memo_literal",
    "remember",
    "string_literal",
    "union",
]

_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
# Characters JSON leaves raw but we do not want raw: lone surrogates (not
# encodable as UTF-8) and the two Unicode line terminators.
_UNSAFE_IN_LITERAL: Final = re.compile("[" + chr(0xD800) + "-" + chr(0xDFFF) + "\u2028\u2029]")
# Control characters become spaces, then split() collapses every whitespace run.
_CONTROLS: Final = {c: " " for c in (*range(0x00, 0x20), *range(0x7F, 0xA0))}
_SURROGATES: Final = re.compile("[" + chr(0xD800) + "-" + chr(0xDFFF) + "]")


def exact_str(value: object) -> str | None:
    """Return ``value`` as an exact ``str`` if it is a string, else ``None``.

    A ``str`` subclass may override ``__str__``/``__eq__``/``__hash__``;
    ``str.__str__`` copies the underlying characters without calling any of
    them, so the rest of the generator only ever sees plain strings.
    """
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    return None


def is_identifier(name: str) -> bool:
    """True when ``name`` can appear bare as a property key.

    Conservative (ASCII only): a non-ASCII identifier is quoted, which is
    always valid, rather than risk a Unicode-category mismatch with TS.
    """
    return _IDENTIFIER.fullmatch(name) is not None


def string_literal(text: str) -> str:
    """A TypeScript string literal (double-quoted JSON) for ``text``."""
    literal = _encode_string(text)
    if _UNSAFE_IN_LITERAL.search(literal) is None:
        return literal
    return _UNSAFE_IN_LITERAL.sub(lambda m: f"\\u{ord(m.group()):04x}", literal)


def member_key(name: str, *, method: bool = False) -> str:
    """A property (or method) key: bare identifier or quoted literal.

    In method position a bare ``new(...)`` would declare a construct
    signature instead of a method named ``new``, so it is quoted there.
    """
    if (name.isidentifier() and name.isascii() or is_identifier(name)) and not (method and name == "new"):
        return name
    return string_literal(name)


def json_literal(value: object) -> str | None:
    """The TypeScript literal type for a JSON scalar, or ``None`` if it has none.

    ``bool`` is checked before ``int`` (it is a subclass); reprs are taken
    through the base class so a subclass cannot inject text; NaN and the
    infinities read as JSON writes them (``null``); containers have no
    literal type and answer ``None`` (the caller degrades to ``unknown``).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):  # NaN and the infinities are null in JSON
        return float.__repr__(value) if math.isfinite(value) else "null"
    text = exact_str(value)
    if text is not None:
        return string_literal(text)
    return None


def jsdoc(text: str) -> str | None:
    """A one-line ``/** ... */`` comment for ``text``, or ``None`` if blank."""
    line = f"/** {text} */"
    if "  " not in line and "*/" not in text and text.isprintable():
        # Fast path, the same line as _collapsed_doc gives (test_codegen_fast
        # checks): with no double space in the line the text is not blank,
        # has no space at either end and no run of them; printable, it has no
        # whitespace but " ", no controls and no surrogates.
        return line
    return _collapsed_doc(text)


def _collapsed_doc(text: str) -> str | None:
    """The rule of :func:`jsdoc`: surrogates replaced, controls and every
    whitespace run collapsed to one space, ``*/`` defused."""
    if _SURROGATES.search(text) is not None:
        text = _SURROGATES.sub("\ufffd", text)
    line = " ".join(text.translate(_CONTROLS).split())
    if not line:
        return None
    return "/** " + line.replace("*/", "*\\/") + " */"


_MEMO_LIMIT: Final = 4096
_Text = TypeVar("_Text", str, "str | None")
_Key = TypeVar("_Key", str, "tuple[str, ...]")
REQUIRED_HEADS: Final[dict[str, str]] = {}
OPTIONAL_HEADS: Final[dict[str, str]] = {}
_LITERALS: Final[dict[str, str]] = {}
TYPE_UNIONS: Final[dict[tuple[str, ...], str | None]] = {}
ENUM_UNIONS: Final[dict[tuple[str, ...], str | None]] = {}


def remember(memo: dict[_Key, _Text], key: _Key, text: _Text) -> _Text:
    """Store in a bounded text memo (cleared when full; keys are exact
    ``str``, or tuples of them, so neither lookups nor storing run user code)."""
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[key] = text
    return text


def member_head(key: str, required: bool) -> str:
    """A member line's start, ``name: `` or ``name?: `` (names repeat)."""
    memo = REQUIRED_HEADS if required else OPTIONAL_HEADS
    return remember(memo, key, member_key(key) + (": " if required else "?: "))


def memo_literal(value: object) -> str | None:
    """:func:`json_literal`, memoised for exact strings (enum members repeat)."""
    if type(value) is str:
        text = _LITERALS.get(value)
        return remember(_LITERALS, value, string_literal(value)) if text is None else text
    return json_literal(value)


def clear_memos() -> None:
    """Forget the memoised heads, literals and unions (a truly cold start)."""
    for memo in (REQUIRED_HEADS, OPTIONAL_HEADS, _LITERALS, TYPE_UNIONS, ENUM_UNIONS):
        memo.clear()

ATOM: Final = 0
"""Precedence of a type text that needs no parentheses anywhere."""
INTERSECTION: Final = 1
UNION: Final = 2
Rendered = tuple[str, int]
"""A type text and its precedence (so ``A | B`` is parenthesised in ``(A | B)[]``)."""
UNKNOWN: Final[Rendered] = ("unknown", ATOM)


def union(members: list[Rendered]) -> Rendered:
    """``A | B``, deduplicated in first-seen order; ``unknown`` absorbs all."""
    seen: dict[str, int] = {}
    for text, precedence in members:
        if text == "unknown":
            return UNKNOWN
        seen.setdefault(text, precedence)
    if len(seen) == 1:
        return next(iter(seen.items()))
    return (" | ".join(seen), UNION) if seen else UNKNOWN


def literal_union(literals: Iterable[str | None]) -> Rendered:
    """An ``enum`` as a union of its members' JSON literal texts; ``unknown``
    if it is empty or a member has no literal (``None``: reading stops there)."""
    members: list[Rendered] = []
    for text in literals:
        if text is None:
            return UNKNOWN
        members.append((text, ATOM))
    return union(members) if members else UNKNOWN


def intersection(members: list[Rendered]) -> Rendered:
    """``A & B``; ``unknown`` parts are dropped (``unknown & T`` is ``T``)."""
    kept: dict[str, int] = {}
    for text, precedence in members:
        if text != "unknown":
            kept.setdefault(text, precedence)
    if len(kept) <= 1:
        return next(iter(kept.items()), UNKNOWN)
    return (" & ".join(f"({t})" if p == UNION else t for t, p in kept.items()), INTERSECTION)
