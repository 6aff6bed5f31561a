"""Collect log entries under one byte budget, with a single ``truncated`` marker.

Console calls arrive whole; raw stdout/stderr bytes arrive in arbitrary chunks
and are decoded incrementally (invalid UTF-8 is replaced) and cut into one entry
per line. Every entry costs its UTF-8 bytes plus one, so a flood of empty lines
spends the budget like any other. Once the budget is spent the rest is
discarded without decoding, so a flooding program costs the host a scan, not
memory, and nothing is left to do when the run ends.
"""

from __future__ import annotations

import codecs
from typing import Final

from dsh_tools.code_mode.runtime import CodeLogEntry, LogSource

__all__ = ["ENTRY_COST", "LogSink"]

_STREAMS: Final = ("stdout", "stderr")
ENTRY_COST: Final = 1
"""What every entry costs beyond its text (its line break): empty lines spend the budget too."""


class LogSink:
    """Ordered entries, at most ``max_bytes`` of UTF-8 text plus one marker."""

    __slots__ = ("_max", "_used", "_entries", "_truncated", "_pending", "_decoders")

    def __init__(self, max_bytes: int) -> None:
        self._max = max_bytes
        self._used = 0
        self._entries: list[CodeLogEntry] = []
        self._truncated = False
        self._pending: dict[str, str] = {s: "" for s in _STREAMS}
        self._decoders = {s: codecs.getincrementaldecoder("utf-8")("replace") for s in _STREAMS}

    @property
    def entries(self) -> tuple[CodeLogEntry, ...]:
        return tuple(self._entries)

    def console(self, level: str, text: str) -> None:
        self._add("console", text, level)

    def stream(self, source: LogSource, data: bytes) -> None:
        """Raw bytes of ``stdout``/``stderr``: one entry per complete line."""
        if self._truncated:
            return
        text = self._pending[source] + self._decoders[source].decode(data)
        *lines, rest = text.split("\n")
        for line in lines:
            if not self._add(source, line):
                return
        if len(rest) > self._max:  # a line without end: no need to wait for it
            self._add(source, rest)
            rest = ""
        self._pending[source] = rest

    def close(self) -> None:
        """End of run: emit unterminated lines; whatever arrives later is dropped."""
        for source in _STREAMS:
            rest = self._pending[source] + self._decoders[source].decode(b"", final=True)
            self._pending[source] = ""
            if rest:
                self._add(source, rest)
        self._truncated = True  # accepts nothing more (no marker: the run is over, not cut)

    def _add(self, source: LogSource, text: str, level: str | None = None) -> bool:
        """Record one entry; ``False`` once the budget is spent (nothing more is kept)."""
        if self._truncated:
            return False
        size = len(text.encode("utf-8", "replace")) + ENTRY_COST
        if self._used + size <= self._max:
            self._used += size
            self._entries.append(CodeLogEntry(source, text, level))
            return True
        room = max(0, self._max - self._used - ENTRY_COST)
        head = text.encode("utf-8", "replace")[:room].decode("utf-8", "ignore")
        marker = f"… [logs truncated: over the {self._max}-byte limit]"
        self._entries.append(CodeLogEntry(source, head + marker, level))
        self._used = self._max
        self._truncated = True
        return False
