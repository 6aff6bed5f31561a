"""Where parked calls, decisions and the call journal live: memory, one SQLite file, or PostgreSQL.

``boot(store=...)`` takes a store or a URL (:func:`open_store`); the default
is a :class:`MemoryStore`. See ``docs/durability.md`` for what is committed
when, and what "exactly once" means here.
"""

from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES, MAX_JOURNAL_LIMIT, PREVIEW_CHARS
from dsh_tools.store.changes import ChangeCursor, ChangeSource, StoreChanges
from dsh_tools.store.memory import DEFAULT_MAX_RECORDS, DEFAULT_MAX_SPILLED_BYTES, MemoryStore
from dsh_tools.store.postgres import PostgresStore
from dsh_tools.store.protocol import CallStore, LeaseStore
from dsh_tools.store.records import (
    ApprovalDecision,
    CallRecord,
    InterruptedCall,
    ParkedCall,
    ParkState,
    SessionEvent,
    StoreHealth,
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
    "CallRecord",
    "CallStore",
    "InterruptedCall",
    "LeaseStore",
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
