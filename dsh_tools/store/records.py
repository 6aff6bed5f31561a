"""The durable records, as ``dsh_tools.store`` has always named them: they live in :mod:`dsh_tools.call_records`."""

from dsh_tools.approval import ApprovalVerdict as ApprovalVerdict
from dsh_tools.outcome import RecordOutcome as RecordOutcome
from dsh_tools.call_records import (
    ApprovalDecision as ApprovalDecision,
    ApprovalEvent as ApprovalEvent,
    ApprovalEventKind as ApprovalEventKind,
    ApprovalRule as ApprovalRule,
    CallRecord as CallRecord,
    InterruptedCall as InterruptedCall,
    JournalQuery as JournalQuery,
    ParkState as ParkState,
    ParkedCall as ParkedCall,
    SessionEvent as SessionEvent,
    StoreHealth as StoreHealth,
    ThreadSlot as ThreadSlot,
)

__all__ = [
    "ApprovalDecision",
    "ApprovalEvent",
    "ApprovalRule",
    "CallRecord",
    "InterruptedCall",
    "JournalQuery",
    "ParkState",
    "ParkedCall",
    "SessionEvent",
    "StoreHealth",
    "ThreadSlot",
]
