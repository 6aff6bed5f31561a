"""Interrupted calls: what every store lists, takes over and settles when a process stopped mid-call.

A process that runs an approved call, or any call of a tool that is not
idempotent, commits the call's running record (its owner and a lease) before
the body starts, and renews the lease while it lives. A record whose lease
lapsed belongs to a process that stopped: its body may or may not have had
its effect. These helpers give every store one shape for such a call
(:class:`~dsh_tools.store.records.InterruptedCall`) and one settlement that
runs nothing (:func:`unknown_record`).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Final

from dsh_tools.errors import ToolOutcomeUnknownError
from dsh_tools.store.error_records import error_settled, parked_record
from dsh_tools.call_records import CallRecord, InterruptedCall, ParkedCall

if TYPE_CHECKING:
    from dsh_tools.call_store import CallStore

__all__ = [
    "SETTLED_BY_OPERATOR", "finish_claim", "interrupted_claim", "late_note", "interrupted_record", "settle_interrupted",
    "unknown_record",
]

SETTLED_BY_OPERATOR: Final = "dsh-tools:settle_interrupted"
"""The owner a call settled by ``store.settle_interrupted`` is given (no process runs it)."""


def interrupted_record(record: CallRecord, owner: object, lease_until: object) -> InterruptedCall:
    """A lapsed running record as an :class:`InterruptedCall` (``owner``/``lease_until`` from its columns)."""
    return InterruptedCall(
        "running",
        record.call_id,
        record.agent_id,
        record.tool_name,
        approval_id=record.approval_id,
        parent_call_id=record.parent_call_id,
        idempotency_key=record.idempotency_key,
        owner=owner if type(owner) is str else record.owner,
        lease_until=float(lease_until) if type(lease_until) in (int, float) else record.lease_until,  # type: ignore[arg-type]
        record_id=record.record_id,
        thread_slot=record.thread_slot,
    )


def interrupted_claim(parked: ParkedCall) -> InterruptedCall:
    """A lapsed claim (a decided parked call whose claimant stopped before the body's record) as an :class:`InterruptedCall`."""
    return InterruptedCall(
        "claim",
        parked.call_id,
        parked.agent_id,
        parked.tool_name,
        approval_id=parked.approval_id,
        parent_call_id=parked.parent_call_id,
        idempotency_key=parked.idempotency_key,
        owner=parked.claimed_by,
        lease_until=parked.lease_until,
        thread_slot=parked.thread_slot,
    )


def late_note(written: CallRecord | dict[str, object]) -> dict[str, object]:
    """What a record keeps of a former owner's late settlement: its outcome, when it ended, who wrote it, its content."""
    fields = written if isinstance(written, dict) else {
        "outcome": written.outcome, "ended_at": written.ended_at, "owner": written.owner, "content": written.content
    }
    return {key: fields.get(key) for key in ("outcome", "ended_at", "owner", "content")}


def unknown_record(record: CallRecord, *, owner: str, decided_by: str | None) -> CallRecord:
    """``record`` settled ``TOOL_OUTCOME_UNKNOWN`` (``owner`` took it over; ``decided_by`` says who settled it)."""
    settled = error_settled(record, ToolOutcomeUnknownError(record.tool_name), "unknown")
    return settled.set(owner=owner, decided_by=decided_by)


def claim_record(parked: ParkedCall, *, owner: str) -> CallRecord:
    """The running record of a lapsed claim that left none (its process stopped before the body's record)."""
    return parked_record(parked, f"claim-{secrets.token_hex(8)}", owner=owner, fingerprint=parked.fingerprint)


async def settle_interrupted(store: CallStore, call_id: str, *, decided_by: str | None) -> list[CallRecord]:
    """``store.settle_interrupted``, once for every store: take each lapsed call named ``call_id`` and settle it unknown.

    Nothing runs. A call somebody else took first is not this settlement's;
    if none is left to take, ``KeyError``.
    """
    if type(call_id) is not str:
        raise KeyError(f"no interrupted call {call_id!r}")
    if decided_by is not None and type(decided_by) is not str:
        raise TypeError("decided_by must be a str or None")
    owner = SETTLED_BY_OPERATOR
    settled: list[CallRecord] = []
    claims: list[InterruptedCall] = []
    for call in await store.interrupted():
        if call.call_id != call_id:
            continue
        record: CallRecord | None = None
        if call.kind == "running" and call.record_id is not None:
            take = getattr(store, "take_interrupted", None)
            record = await take(call.record_id, owner=owner, lease_seconds=0.0) if take is not None else None
        elif call.approval_id is not None:
            parked = await store.take_claim(call.approval_id, owner=owner)
            record = claim_record(parked, owner=owner) if parked is not None else None
        if record is not None:
            settled.append(unknown_record(record, owner=owner, decided_by=decided_by))
            claims.append(call)
    if not settled:
        raise KeyError(f"no interrupted call {call_id!r} (unknown, settled, or its lease has not lapsed)")
    await store.write(settled, ())
    for taken in claims:
        await finish_claim(store, taken, owner=owner, outcome="unknown")
    return settled


async def finish_claim(store: CallStore, call: InterruptedCall, *, owner: str, outcome: str) -> None:
    """Finish the parked row of an interrupted call ``owner`` settled as ``outcome``: done, and logged ``"settled"``.

    A lapsed claim (``kind == "claim"``) was taken already (``take_claim``);
    a lapsed running call that was resumed from a parked call leaves its row
    claimed by the process that stopped, so it is taken here (else it would
    be listed again, as a lapsed claim, once its record settled). ``finish``
    matches ``owner``.
    """
    approval_id = call.approval_id
    if approval_id is None:
        return
    if call.kind == "running":
        await store.take_claim(approval_id, owner=owner)
    await store.finish(approval_id, owner=owner, outcome=outcome)
