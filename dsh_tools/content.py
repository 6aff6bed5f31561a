"""Content blocks: what a tool says to the model, and the body's return forms."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from dsh_tools.json_values import JsonValue
from dsh_tools.record import Record

__all__ = ["ContentBlock", "ToolOutput", "image_block", "text_block"]

if TYPE_CHECKING:
    ContentBlock: TypeAlias = Mapping[str, JsonValue]
    """A JSON object with a ``type`` key (``{"type": "text", "text": ...}``, images, ...)."""
else:
    ContentBlock = Mapping


def text_block(text: str) -> ContentBlock:
    """``{"type": "text", "text": text}``, the block most tools return."""
    return {"type": "text", "text": text}


def image_block(data_base64: str, mime_type: str) -> ContentBlock:
    """``{"type": "image", "data": ..., "mimeType": ...}``: base64 image data the model can see.

    ``result.text`` skips it; provider adapters map it to their image parts.
    """
    return {"type": "image", "data": data_base64, "mimeType": mime_type}


class ToolOutput(Record):
    """A tool body's object return form: content plus an opaque presentation ``meta``.

    ``meta`` is persisted with the result and handed back to ``present_result``,
    so a result card can render from it during a session-log replay.
    """

    _json_fields = frozenset({"content", "meta"})
    content: Sequence[ContentBlock]
    meta: JsonValue | None = None
