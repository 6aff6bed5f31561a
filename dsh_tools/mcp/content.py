"""Content both ways: MCP content blocks to ours, and ours to MCP's.

Our vocabulary is text and image blocks (:func:`~dsh_tools.content.text_block`,
:func:`~dsh_tools.content.image_block`); what the model APIs cannot carry is
described in text rather than dropped silently, so the model still learns that
something was there:

========================  =====================================================
MCP                       ours
========================  =====================================================
``TextContent``           ``text_block(text)``
``ImageContent``          ``image_block(data, mimeType)``
``EmbeddedResource``      text resource: ``text_block(text)``; image blob:
                          ``image_block``; other blob: a text note naming the
                          URI, MIME type and size
``ResourceLink``          a text note with the link's name and URI
``AudioContent``          a text note (no audio block in our vocabulary)
========================  =====================================================

Image data (``ImageContent.data``, an image resource's ``blob``) must be
base64, which the SDK does not check: data that is not is
:class:`MalformedContent`, never an image block (the model API would refuse
every later request that still carries it).

Going out (:func:`to_mcp_content`), text and image blocks map back one to one;
any other block kind travels as its JSON in a text block.
"""

from __future__ import annotations

import binascii
from collections.abc import Sequence

import mcp_types as mt

from dsh_tools.content import ContentBlock, image_block, text_block
from dsh_tools.json_values import dumps

__all__ = ["MalformedContent", "from_mcp_content", "to_mcp_content"]


class MalformedContent(ValueError):
    """A block the SDK accepted but that cannot be passed on (``content.<index>: <problem>``)."""


def from_mcp_content(blocks: Sequence[mt.ContentBlock]) -> list[ContentBlock]:
    """Our content blocks for an MCP result's ``content`` (see the module table); ``MalformedContent`` naming the first bad block."""
    out: list[ContentBlock] = []
    for index, block in enumerate(blocks):
        try:
            out.append(_from_block(block))
        except MalformedContent as error:
            raise MalformedContent(f"content.{index}: {error}") from None
    return out


def _image(data: str, mime: str) -> ContentBlock:
    try:
        binascii.a2b_base64(data, strict_mode=True)
    except (binascii.Error, ValueError):
        raise MalformedContent("image data is not base64") from None
    return image_block(data, mime)


def _from_block(block: mt.ContentBlock) -> ContentBlock:
    if isinstance(block, mt.TextContent):
        return text_block(block.text)
    if isinstance(block, mt.ImageContent):
        return _image(block.data, block.mime_type)
    if isinstance(block, mt.EmbeddedResource):
        return _from_resource(block.resource)
    if isinstance(block, mt.ResourceLink):
        return text_block(f"[resource link {block.name}: {block.uri}]")
    return text_block(f"[audio ({block.mime_type}), not shown]")


def _from_resource(resource: mt.TextResourceContents | mt.BlobResourceContents) -> ContentBlock:
    if isinstance(resource, mt.TextResourceContents):
        return text_block(resource.text)
    mime = resource.mime_type or "application/octet-stream"
    if mime.startswith("image/"):
        return _image(resource.blob, mime)
    return text_block(f"[binary resource {resource.uri} ({mime}), {len(resource.blob) * 3 // 4} bytes, not shown]")


def to_mcp_content(blocks: Sequence[ContentBlock]) -> list[mt.ContentBlock]:
    """MCP content for our blocks: text and image one to one, anything else as JSON text."""
    out: list[mt.ContentBlock] = []
    for block in blocks:
        kind = block.get("type")
        text, data, mime = block.get("text"), block.get("data"), block.get("mimeType")
        if kind == "text" and isinstance(text, str):
            out.append(mt.TextContent(text=text))
        elif kind == "image" and isinstance(data, str) and isinstance(mime, str):
            out.append(mt.ImageContent(data=data, mime_type=mime))
        else:
            out.append(mt.TextContent(text=dumps(block).decode()))
    return out
