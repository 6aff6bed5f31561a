"""Split the sandbox's stdout into program bytes and authenticated protocol frames.

The program shares standard output with the harness (Deno gives every isolate
the real stdout), so the channel is not private. Instead every harness frame
is ``TAG + JSON + "\\n"`` where ``TAG`` carries a per-process random secret the
program never sees: bytes that do not follow a tag are the program's own output
(``stdout`` log entries), and a forged frame is just more output. The splitter
is not line-anchored, so a frame landing in the middle of a program's partial
line still parses and the program's line is reassembled around it.
"""

from __future__ import annotations

import secrets
from typing import Literal

__all__ = ["FrameSplitter", "Piece", "new_secret"]

Piece = tuple[Literal["data", "frame"], bytes]
_MARK = b"\x1e"
_END = b"\x1f"


def new_secret() -> str:
    """128 random bits, hex: the per-process frame tag."""
    return secrets.token_hex(16)


class FrameSplitter:
    """Incremental splitter; frames longer than ``max_frame`` are dropped whole."""

    __slots__ = ("_tag", "_max", "_buf", "_in_frame", "_discarding", "_scanned")

    def __init__(self, secret: str, max_frame: int) -> None:
        self._tag = _MARK + secret.encode() + _END
        self._max = max_frame
        self._buf = bytearray()
        self._in_frame = False
        self._discarding = False
        self._scanned = 0  # bytes of an open frame already searched for its newline (no rescans)

    def feed(self, chunk: bytes) -> list[Piece]:
        """Consume ``chunk``; return program data and complete frames in stream order."""
        buf = self._buf
        buf += chunk
        out: list[Piece] = []
        while buf:
            if self._in_frame:
                end = buf.find(b"\n", self._scanned)
                if end < 0:
                    if len(buf) > self._max:  # an oversized frame: skip to its newline
                        self._discarding = True
                        buf.clear()
                    self._scanned = len(buf)
                    break
                if not self._discarding and end <= self._max:  # the newline's read may carry it past the limit
                    out.append(("frame", bytes(buf[:end])))
                del buf[: end + 1]
                self._in_frame = self._discarding = False
                self._scanned = 0
                continue
            start = buf.find(self._tag)
            if start < 0:
                keep = self._partial_tag_start()
                if keep:
                    out.append(("data", bytes(buf[:keep])))
                    del buf[:keep]
                break
            if start:
                out.append(("data", bytes(buf[:start])))
            del buf[: start + len(self._tag)]
            self._in_frame = True
        return out

    def finish(self) -> list[Piece]:
        """End of stream: whatever is left is program data (an unterminated frame is dropped)."""
        rest = b"" if self._in_frame else bytes(self._buf)
        self._buf.clear()
        return [("data", rest)] if rest else []

    def _partial_tag_start(self) -> int:
        """Where a possible tag prefix at the end of the buffer starts (else its length)."""
        buf = self._buf
        at = buf.rfind(_MARK, max(0, len(buf) - len(self._tag) + 1))
        if at >= 0 and self._tag.startswith(bytes(buf[at:])):
            return at
        return len(buf)
