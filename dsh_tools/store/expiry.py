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

from dsh_tools.errors import ApprovalExpiredError
from dsh_tools.store.error_records import error_settled, parked_record
from dsh_tools.call_records import CallRecord, ParkedCall

__all__ = ["expired_record", "ttl_of"]


def ttl_of(parked: ParkedCall) -> float:
    """The approval's time to live, as it was given when the call parked (``expires_at - created_at``)."""
    return round((parked.expires_at or parked.created_at) - parked.created_at, 3)


def expired_record(parked: ParkedCall, now: float) -> CallRecord:
    """The journal record that settles ``parked`` as expired (its thread slot's answer with it)."""
    error = ApprovalExpiredError(parked.tool_name, ttl_of(parked))
    return error_settled(parked_record(parked, f"expired-{parked.approval_id}"), error, "approval-expired", ended_at=now)
