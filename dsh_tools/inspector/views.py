"""What the inspector sends the page: parked calls and journal records as bounded JSON.

The page never receives a value whole when it is large: every payload goes
through :func:`~dsh_tools.store.base.preview` with :data:`MAX_FIELD_BYTES`,
so one 10 MB tool result costs a response a preview and its size, not 10 MB.
A result the registry spilled (``max_inline_bytes``) is marked with its size
(``spilled``), and the page reads its whole text a page at a time
(``/api/spilled``, :func:`spilled_locator`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from dsh_tools.json_values import JsonValue, thaw_json
from dsh_tools.store.base import preview
from dsh_tools.call_records import ApprovalRule, CallRecord, ParkedCall

__all__ = ["MAX_FIELD_BYTES", "MAX_ROWS", "parked_view", "record_view", "rule_view", "spilled_locator"]

MAX_FIELD_BYTES: Final = 16 * 1024
"""The most JSON one payload field may take in a response; larger ones come as a preview and their size."""

MAX_ROWS: Final = 500
"""The most journal records one response carries."""


def _bounded(value: JsonValue) -> Any:
    return thaw_json(preview(value, MAX_FIELD_BYTES))


def parked_view(call: ParkedCall) -> dict[str, Any]:
    """A parked call as the approvals list shows it (schema included, for editing the arguments)."""
    return {
        "approvalId": call.approval_id,
        "agentId": call.agent_id,
        "agentName": call.agent_name,
        "callId": call.call_id,
        "tool": call.tool_name,
        "description": call.description,
        "arguments": _bounded(call.arguments),
        "parameters": _bounded(call.parameters),
        "reason": call.reason,
        "card": _bounded(call.card),
        "createdAt": call.created_at,
        "expiresAt": call.expires_at,
        "parentCallId": call.parent_call_id,
    }


def record_view(record: CallRecord, *, detail: bool = False) -> dict[str, Any]:
    """A journal record as a row shows it; with ``detail``, also what the row expands to (its payloads).

    Rows come without payloads, so the first paint and the live stream carry
    only what the table shows; an expanded row asks for its record's detail.
    """
    view = {
        "recordId": record.record_id,
        "callId": record.call_id,
        "agentId": record.agent_id,
        "tool": record.tool_name,
        "outcome": record.outcome,
        "isError": record.is_error,
        "progress": _bounded(record.progress),
        "startedAt": record.started_at,
        "endedAt": record.ended_at,
        "parentCallId": record.parent_call_id,
        "approvalId": record.approval_id,
        "decidedBy": record.decided_by,
        "decisionMessage": record.decision_message,
        "approvalRule": record.approval_rule,
    }
    spilled = _spilled(record)
    if spilled is not None:
        view["spilled"] = {"bytes": _size(spilled.get("bytes")), "characters": _size(spilled.get("characters")), "kept": spilled_locator(record) is not None}
    if detail:
        for name in ("arguments", "content", "value", "error", "meta"):
            view[name] = _bounded(getattr(record, name))
    return view


def _spilled(record: CallRecord) -> Mapping[str, Any] | None:
    meta = record.meta
    spilled = meta.get("spilled") if isinstance(meta, Mapping) else None
    return spilled if isinstance(spilled, Mapping) else None


def _size(value: object) -> int | None:
    """A size the registry wrote (an ``int``); anything else a tool's own ``meta`` put there is ``None``, not sent whole."""
    return value if type(value) is int else None


def spilled_locator(record: CallRecord) -> str | None:
    """The locator of the text ``record``'s result was cut from, or ``None`` (not cut, or not kept)."""
    spilled = _spilled(record)
    locator = spilled.get("locator") if spilled is not None else None
    return locator if type(locator) is str else None


def rule_view(rule: ApprovalRule) -> dict[str, Any]:
    """A remembered rule as the rules list shows it."""
    return {
        "ruleId": rule.rule_id,
        "agentId": rule.agent_id,
        "tool": rule.tool_name,
        "outcome": rule.outcome,
        "message": rule.message,
        "decidedBy": rule.decided_by,
        "createdAt": rule.created_at,
    }
