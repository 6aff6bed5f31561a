"""Content blocks: what a tool says to the model, the body's return forms, and the context a call ferries to the loop.

The vocabulary of what a call *says* lives here, below the call records that
carry it (``dsh_tools.execution``), so a record of content never needs the
call it came from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

import orjson

from dsh_tools.json_values import JsonValue, thaw_json
from dsh_tools.record import Record

__all__ = [
    "ContentBlock",
    "HookContext",
    "MessageSource",
    "PluginSource",
    "ToolOutput",
    "UserSource",
    "block_text",
    "image_block",
    "past_utf8_bytes",
    "text_block",
]

if TYPE_CHECKING:
    ContentBlock: TypeAlias = Mapping[str, JsonValue]
    """A JSON object with a ``type`` key (``{"type": "text", "text": ...}``, images, ...)."""
else:
    ContentBlock = Mapping


def text_block(text: str) -> ContentBlock:
    """``{"type": "text", "text": text}``, the block most tools return."""
    return {"type": "text", "text": text}


def block_text(block: ContentBlock) -> str:
    """A block as a model reads it in text: a text block's text, any other kind as its compact JSON.

    Adapters send a kind a provider has no part for this way (images have
    parts of their own), so nothing is silently dropped; spilling measures
    and cuts the same text.
    """
    text = block.get("text")
    if block.get("type") == "text" and isinstance(text, str):
        return text
    return orjson.dumps(thaw_json(block)).decode()


def past_utf8_bytes(text: str, max_bytes: int) -> bool:
    """Whether ``text`` is more than ``max_bytes`` bytes in UTF-8.

    Its length decides when it can (a character is one to four bytes); only
    a text between ``max_bytes / 4`` and ``max_bytes`` characters is encoded
    to be measured. A fast path over ``len(text.encode()) > max_bytes``, so a
    large payload is not copied just to be measured (a test holds the two equal).
    """
    if len(text) * 4 <= max_bytes:
        return False
    return len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes


def image_block(data_base64: str, mime_type: str) -> ContentBlock:
    """``{"type": "image", "data": ..., "mimeType": ...}``: base64 image data the model can see.

    ``result.text`` skips it; provider adapters map it to their image parts.
    """
    return {"type": "image", "data": data_base64, "mimeType": mime_type}


class UserSource(Record):
    """Context that came from the user."""

    _wire_tag = ("kind", "user")


class PluginSource(Record):
    """Context a plugin attached (named, so a reader knows who said it)."""

    _wire_tag = ("kind", "plugin")
    plugin: str


MessageSource = UserSource | PluginSource


class HookContext(Record):
    """Extra context a ``tools/post-execute`` listener ferries up to the loop."""

    _json_fields = frozenset({"content"})
    content: Sequence[ContentBlock]
    source: MessageSource


class ToolOutput(Record):
    """A tool body's object return form: content plus an opaque presentation ``meta``.

    ``meta`` is persisted with the result and handed back to ``present_result``,
    so a result card can render from it during a session-log replay.

    ``value`` is for a *typed* tool (one with an ``output_schema``) that makes
    the model-facing content itself (an MCP tool's server sends both): the
    registry validates and keeps the value but skips rendering. A content
    tool must leave it ``None``. ``additional_context`` ferries context to the
    loop beside the result, as a ``tools/post-execute`` listener's does (Code
    Mode uses it to pass on the images its sub-calls returned).
    """

    _json_fields = frozenset({"content", "meta", "value"})
    content: Sequence[ContentBlock]
    meta: JsonValue | None = None
    value: JsonValue | None = None
    additional_context: HookContext | None = None
