"""Policy decisions: values a listener returns, never exceptions it raises.

``tools/pre-execute`` answers with a :data:`PreToolDecision`, and
``tools/post-execute`` with a :data:`PostToolDecision`. The pipeline checks
them by exact type (``type(d) is Allow``): anything else (a dict with the wire
keys, a subclass carrying state, ``None``) fails the call closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dsh_tools.content import ContentBlock, HookContext
from dsh_tools.json_values import JsonValue
from dsh_tools.record import Record

__all__ = ["Accept", "Allow", "Ask", "Block", "Deny", "PostToolDecision", "PreToolDecision"]


class Allow(Record):
    """Let the call proceed (to the guards, then dispatch)."""

    _wire_tag = ("kind", "allow")


class Deny(Record):
    """Refuse the call; the model sees ``Error: <reason>``."""

    _wire_tag = ("kind", "deny")
    reason: str


class Ask(Record):
    """Ask the approval service; dispatch only after ``allowed-once``."""

    _wire_tag = ("kind", "ask")
    reason: str | None = None


class Accept(Record):
    """Keep the call's outcome, optionally replacing its content or value, or adding context.

    ``content`` replaces only what the model reads: a Code Mode program still
    receives a typed tool's value, so content replacement is not redaction.
    ``value`` replaces a typed call's value, which is checked against the
    tool's output schema and rendered again into the content. Giving both
    is a ``ValueError`` (the content of a new value is its rendering).
    ``None`` means "keep" for each, so ``value`` cannot set JSON null.
    """

    _wire_tag = ("kind", "accept")
    _json_fields = frozenset({"content", "value"})
    content: Sequence[ContentBlock] | None = None
    additional_context: HookContext | None = None
    value: JsonValue | None = None

    if not TYPE_CHECKING:

        def __new__(cls, *args, **kwargs):
            self = super().__new__(cls, *args, **kwargs)
            if self.content is not None and self.value is not None:
                raise ValueError(
                    "Accept takes content= or value=, not both: a replaced value is rendered into new content"
                )
            return self


class Block(Record):
    """Turn the call into an error whose content is corrective ``feedback``."""

    _wire_tag = ("kind", "block")
    _json_fields = frozenset({"feedback"})
    feedback: Sequence[ContentBlock]
    additional_context: HookContext | None = None


PreToolDecision = Allow | Deny | Ask
PostToolDecision = Accept | Block
