"""Text as a model is sent it: ``block_text`` for any block, and ``past_utf8_bytes``, the size rule spilling and
the queues' payload bound share (a fast path held equal to encoding and measuring)."""

from __future__ import annotations

import pytest

from dsh_tools.content import block_text, image_block, past_utf8_bytes, text_block

TEXTS = ["", "a", "é", "€", "😀", "a€😀é" * 7, "x" * 64, "😀" * 16, "é" * 33, "mixed ascii and € and 😀 " * 5]


@pytest.mark.parametrize("text", TEXTS)
def test_past_utf8_bytes_agrees_with_encoding_at_every_limit_around_the_text(text: str) -> None:
    size = len(text.encode("utf-8"))
    for limit in range(0, size + 6):
        assert past_utf8_bytes(text, limit) == (size > limit), (text, limit)


def test_block_text_is_a_text_block_s_text_and_any_other_kind_s_json() -> None:
    assert block_text(text_block("hi")) == "hi"
    assert block_text({"type": "document", "body": ["é", 1]}) == '{"type":"document","body":["é",1]}'
    assert block_text(image_block("aGk=", "image/png")) == '{"type":"image","data":"aGk=","mimeType":"image/png"}'
