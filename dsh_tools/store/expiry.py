"""Expiry: a parked call nobody decided within its time settles ``APPROVAL_EXPIRED``, in whichever process looks first.

``boot(approval_ttl_seconds=N)`` gives every call that parks an
``expires_at``. No timer runs anywhere: the first store operation that
touches the call once it is due (listing, deciding, resuming, watching, the
CLI, the inspector; journal reads excepted) settles it, in one atomic
statement that only an undecided call matches. A decision is the same kind
of statement, matching only a call that has not expired, so of an expiry and
a decision racing for one call exactly one wins, and a decided call never
expires.

The settlement is the call's own journal record (``"approval-expired"``,
linked by ``approval_id``) and, for a call of a thread's turn, its thread
slot filled with the same text, in the same commit.
"""

from __future__ import annotations

from dsh_tools.content import text_block
from dsh_tools.errors import ApprovalExpiredError
from dsh_tools.store.records import CallRecord, ParkedCall
from dsh_tools.store.thread_state import answer_from

__all__ = ["expired_record", "ttl_of"]


def ttl_of(parked: ParkedCall) -> float:
    """The approval's time to live, as it was given when the call parked (``expires_at - created_at``)."""
    return round((parked.expires_at or parked.created_at) - parked.created_at, 3)


def expired_record(parked: ParkedCall, now: float) -> CallRecord:
    """The journal record that settles ``parked`` as expired (its thread slot's answer with it)."""
    error = ApprovalExpiredError(parked.tool_name, ttl_of(parked))
    content = (text_block(f"Error: {error.message}"),)
    return CallRecord(
        f"expired-{parked.approval_id}", parked.call_id, parked.agent_id, parked.tool_name, parked.arguments,
        "approval-expired", parked.created_at, content=content, is_error=True,
        error={"name": type(error).__name__, "code": error.code}, ended_at=now, parent_call_id=parked.parent_call_id,
        approval_id=parked.approval_id, idempotency_key=parked.idempotency_key, thread_slot=parked.thread_slot,
        thread_answer=answer_from(content, True) if parked.thread_slot is not None else None,
    )
