"""Review h1: the Deno peer is hostile; its frames are bounded and parsed defensively."""

from __future__ import annotations

import pytest

from dsh_tools.code_mode.deno._frames import FrameSplitter

SECRET = "0123456789abcdef"
TAG = b"\x1e" + SECRET.encode() + b"\x1f"


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_a_frame_longer_than_max_frame_is_dropped_even_when_its_newline_is_already_in(chunk: int) -> None:
    """``max_frame`` was only checked while a frame's newline had not arrived: the chunk that brings the
    newline could carry the frame past the limit (up to a whole 1 MiB read) and it was still delivered."""
    limit = 16
    big = b'{"t":"log","level":"log","text":"' + b"x" * 40 + b'"}'
    stream = b"before" + TAG + big + b"\n" + TAG + b'{"t":"received"}\n' + b"after"
    splitter = FrameSplitter(SECRET, limit)
    pieces = []
    for at in range(0, len(stream), chunk):
        pieces += splitter.feed(stream[at : at + chunk])
    pieces += splitter.finish()
    frames = [payload for kind, payload in pieces if kind == "frame"]
    assert frames == [b'{"t":"received"}']
    assert all(len(frame) <= limit for frame in frames)
    assert b"".join(payload for kind, payload in pieces if kind == "data") == b"beforeafter"
