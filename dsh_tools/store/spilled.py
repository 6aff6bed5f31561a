"""Spilled results: the whole text of a result too large for the model, kept once, read back a page at a time.

A registry with ``max_inline_bytes`` (or a tool with its own) hands the model
a head and a tail of such a text and a *locator*; the text itself goes to
the store through :class:`SpillStore`, an optional protocol beside
:class:`~dsh_tools.store.protocol.CallStore` that the registry checks for at
construction. All three bundled stores implement it: ``MemoryStore`` in
memory (bounded: the oldest values go first), ``SqliteStore`` and
``PostgresStore`` in two tables (a value's row, and its text in parts of
:data:`PART_CHARS` characters, so a page reads one or two parts, never the
whole text). ``store.prune(before=...)`` deletes values kept before then,
with the journal.

A locator is ``res_`` and 144 random bits; a value is readable only with the
agent id it was kept for (an agent-less call's is ``""``). A locator that is
unknown, pruned, malformed or another agent's reads as ``None``, the same
answer for each, so a reader learns nothing about values it may not read.
Offsets and lengths count characters (code points), never bytes, so a page
never splits a character.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Sequence
from typing import Final, Protocol, runtime_checkable

from dsh_tools.record import Record

__all__ = [
    "DEFAULT_PAGE_CHARS",
    "MAX_OFFSET",
    "MAX_PAGE_CHARS",
    "PART_CHARS",
    "SpillStore",
    "SpilledPage",
    "check_locator",
    "check_page",
    "mint_locator",
    "owner_key",
    "page_of",
    "page_of_parts",
    "part_range",
    "parts_of",
    "valid_locator",
]

PART_CHARS: Final = 65_536
"""Characters per stored part of a spilled text."""
MAX_PAGE_CHARS: Final = 65_536
"""The longest page one read returns (a reader asking for more gets this many, and the offset to go on)."""
DEFAULT_PAGE_CHARS: Final = 16_384
"""What ``read_result`` reads when no ``limit`` is given (the preview's note says so)."""
MAX_OFFSET: Final = 2**53 - 1
"""The largest offset read (past every text; JSON's safe integers, and within every store's integer column)."""
_LOCATOR: Final = re.compile(r"res_[A-Za-z0-9_-]{24}")


class SpilledPage(Record):
    """``text`` from character ``offset`` of a spilled value; ``next_offset`` where the next page starts
    (``None`` at the end); ``total`` characters in all."""

    text: str
    offset: int
    next_offset: int | None
    total: int


@runtime_checkable
class SpillStore(Protocol):
    """A store that keeps spilled results (declared by ``MemoryStore``, ``SqliteStore`` and ``PostgresStore``)."""

    async def keep_spilled(self, locator: str, agent_id: str, text: str) -> None:
        """Keep ``text`` under ``locator`` (from :func:`mint_locator`), readable by ``agent_id`` alone."""
        ...

    async def read_spilled(self, locator: str, agent_id: str, offset: int, limit: int) -> SpilledPage | None:
        """Up to ``limit`` characters from ``offset``; ``None`` if the locator names nothing ``agent_id`` may read."""
        ...


def mint_locator() -> str:
    """A fresh locator: ``res_`` and 144 random bits (URL-safe base64)."""
    return "res_" + secrets.token_urlsafe(18)


def valid_locator(locator: object) -> bool:
    """Whether ``locator`` could be one :func:`mint_locator` made (anything else names no value: no store is asked)."""
    return type(locator) is str and _LOCATOR.fullmatch(locator) is not None


def check_locator(locator: object) -> None:
    """A store keeps a text only under a locator :func:`mint_locator` made: anything else is a ``ValueError``."""
    if not valid_locator(locator):
        raise ValueError("a spilled result is kept under a locator from mint_locator()")


def owner_key(agent_id: str) -> str:
    """What a relational store keeps of the reader's agent id: its SHA-256, exact for any text (NUL, lone
    surrogates) where a text column would have to alter it, so two ids never share a key."""
    return hashlib.sha256(agent_id.encode("utf-8", "surrogatepass")).hexdigest()


def check_page(offset: object, limit: object) -> tuple[int, int]:
    """``(offset, limit)`` with the limit cut to :data:`MAX_PAGE_CHARS`; ``ValueError`` for an offset
    outside 0 to :data:`MAX_OFFSET`, a limit below one, or either not an ``int``."""
    if type(offset) is not int or not 0 <= offset <= MAX_OFFSET:
        raise ValueError(f"offset must be an integer from 0 to {MAX_OFFSET}, got {offset!r}"[:120])
    if type(limit) is not int or limit < 1:
        raise ValueError(f"limit must be an integer of at least 1, got {limit!r}"[:120])
    return offset, min(limit, MAX_PAGE_CHARS)


def page_of(text: str, offset: int, limit: int) -> SpilledPage:
    """The page of a whole text in memory, ``offset`` and ``limit`` as :func:`check_page` made them (an offset
    past the end reads as an empty page at the end)."""
    total = len(text)
    piece = text[offset : offset + limit]
    end = offset + len(piece)
    return SpilledPage(piece, offset, end if end < total else None, total)


def parts_of(text: str) -> list[str]:
    """``text`` cut into parts of :data:`PART_CHARS` characters (the last may be shorter; none for ``""``)."""
    return [text[start : start + PART_CHARS] for start in range(0, len(text), PART_CHARS)]


def part_range(offset: int, limit: int) -> tuple[int, int]:
    """The first and last part a page from ``offset`` of ``limit`` characters reads."""
    return offset // PART_CHARS, (offset + limit - 1) // PART_CHARS


def page_of_parts(total: int, parts: Sequence[tuple[int, bytes]], offset: int, limit: int) -> SpilledPage:
    """The page read from stored parts ``(number, UTF-8 bytes)``, the first of which is ``offset``'s."""
    first = offset // PART_CHARS
    text = "".join(data.decode("utf-8") for _, data in sorted(parts))
    start = offset - first * PART_CHARS
    piece = text[start : start + limit] if offset < total else ""
    end = offset + len(piece)
    return SpilledPage(piece, offset, end if end < total else None, total)
