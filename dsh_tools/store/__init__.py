"""Where parked calls, decisions and the call journal live: memory, one SQLite file, or PostgreSQL.

``boot(store=...)`` takes a store or a URL (:func:`open_store`); the default
is a :class:`MemoryStore`. See ``docs/durability.md`` for what is committed
when, and what "exactly once" means here.
"""

from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES, MAX_JOURNAL_LIMIT, PREVIEW_CHARS
from dsh_tools.store.changes import ChangeCursor, ChangeSource, StoreChanges
from dsh_tools.store.memory import DEFAULT_MAX_RECORDS, DEFAULT_MAX_SPILLED_BYTES, MemoryStore
from dsh_tools.store.postgres import PostgresStore
from dsh_tools.store.protocol import ApprovalLog, ThreadStore
from dsh_tools.call_store import CallStore, LeaseStore, RuleStore
from dsh_tools.approval import ApprovalDecision
from dsh_tools.call_records import (
    ApprovalEvent,
    ApprovalRule,
    CallRecord,
    InterruptedCall,
    ParkedCall,
    ParkState,
    SessionEvent,
    StoreHealth,
    ThreadSlot,
)
from dsh_tools.store.spilled import SpilledPage, SpillStore
from dsh_tools.store.sql import SCHEMA_VERSION, StoreError, StoreUnavailable
from dsh_tools.store.sqlite import SqliteStore
from dsh_tools.store.url import ACCEPTED_URLS, open_store

__all__ = [
    "ACCEPTED_URLS",
    "DEFAULT_MAX_RECORDS",
    "DEFAULT_MAX_SPILLED_BYTES",
    "DEFAULT_MAX_VALUE_BYTES",
    "MAX_JOURNAL_LIMIT",
    "PREVIEW_CHARS",
    "SCHEMA_VERSION",
    "ApprovalDecision",
    "ApprovalEvent",
    "ApprovalLog",
    "ApprovalRule",
    "CallRecord",
    "CallStore",
    "InterruptedCall",
    "LeaseStore",
    "RuleStore",
    "ThreadSlot",
    "ThreadStore",
    "ChangeCursor",
    "ChangeSource",
    "MemoryStore",
    "ParkState",
    "ParkedCall",
    "PostgresStore",
    "SessionEvent",
    "SpillStore",
    "SpilledPage",
    "SqliteStore",
    "StoreChanges",
    "StoreError",
    "StoreHealth",
    "StoreUnavailable",
    "open_store",
]
