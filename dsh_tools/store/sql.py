"""The SQL both relational stores speak: one schema, one set of statements, one row format.

SQLite and PostgreSQL differ here only in what :class:`Dialect` names (the
auto-numbered key, the placeholder); every statement is written once, with
``?`` placeholders, and every record is one JSON ``body`` column beside the
columns a query filters or orders on. Claims and decisions are single
conditional ``UPDATE`` statements, which is what makes them atomic across
processes without a lock held in Python.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, TypeVar

import orjson

from dsh_tools.json_values import JsonValue, dumps
from dsh_tools.json_walk import has_lone_surrogate, unicode_text
from dsh_tools.record import Record
from dsh_tools.store.base import preview_of
from dsh_tools.store.interrupted import late_note
from dsh_tools.approval import ApprovalDecision
from dsh_tools.call_records import CallRecord, JournalQuery, ParkedCall, SessionEvent
from dsh_tools.store.thread_state import ThreadState

__all__ = [
    "SCHEMA_VERSION",
    "UNREADABLE",
    "Dialect",
    "RecordRefused",
    "StoreError",
    "StoreUnavailable",
    "column",
    "dump_record",
    "journal_query",
    "load_record",
    "upgrade_steps",
]

SCHEMA_VERSION: Final = 4
"""The table layout this code writes; an older store is upgraded at open, a newer one refused.

Version 2 added leases and expiry, version 3 threads, rules and the approval events, version 4 the
spilled results (``dsh_spilled``, ``dsh_spilled_parts``)."""

R = TypeVar("R", bound=Record)


class StoreError(Exception):
    """A store that cannot be used: unreadable, not ours, corrupt, newer than this code, or unreachable."""


class StoreUnavailable(StoreError):
    """The database cannot be reached now (refused, timed out, cut off); a later attempt may succeed.

    A PostgreSQL store raises it while its database is away (it reconnects
    with backoff on its own, and buffers journal writes meanwhile), so a
    caller that can wait for the database, as ``watch_decisions`` does, tells
    it from a store that stays broken, which raises a plain
    :class:`StoreError`.
    """


class RecordRefused(StoreError):
    """The database refused a statement for the data it carried (a constraint, a value it cannot hold), not for its own state.

    A group of journal rows that fails this way is written again row by row,
    so only the refused row is lost (:meth:`RelationalStore.write`); a
    failure of the database itself (locked, unreachable) is a plain
    :class:`StoreError`, which trying row by row would only repeat.
    """


UNREADABLE: Final = (StoreError, ValueError, TypeError)
"""What reading a stored row back raises when the row is not what this code wrote (not JSON, not a record)."""


def column(text: str) -> str:
    """``text`` as a filtered column holds it: NUL and lone surrogates become U+FFFD.

    PostgreSQL's text refuses NUL and UTF-8 cannot carry a lone surrogate, yet
    both reach names and ids from models and MCP clients. The record's JSON
    body keeps the exact text; only the columns a query filters on hold this
    form, and a query's values are put in the same form, so a filter on the
    exact text still finds the record (and text differing only there finds
    both). One rule for both engines.
    """
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return unicode_text(text) if has_lone_surrogate(text) else text


def _column(text: str | None) -> str | None:
    return None if text is None else column(text)


class Dialect:
    """What differs between the SQL engines: the numbered-row key and the placeholder."""

    def __init__(self, *, serial: str, placeholder: str) -> None:
        self.serial = serial
        self.placeholder = placeholder

    def sql(self, statement: str) -> str:
        """``statement`` in this engine's spelling: its placeholder; SQLite has no ``FOR UPDATE`` (its write lock covers it)."""
        if self.placeholder == "?":
            return statement.replace(" FOR UPDATE", "")
        return statement.replace("?", self.placeholder)

    def schema(self) -> list[str]:
        """The statements that create the tables as :data:`SCHEMA_VERSION` has them.

        They are version 1's, then every migration: a new store and an upgraded
        one are the same store.
        """
        created = [*self._first(), *(statement for version in range(1, SCHEMA_VERSION) for statement in MIGRATIONS[version])]
        return [*(self.migration(statement) for statement in created), f"INSERT INTO dsh_schema (version) VALUES ({SCHEMA_VERSION})"]

    def migration(self, statement: str) -> str:
        """A migration's statement for this engine (``{serial}``: its auto-numbered key)."""
        return statement.replace("{serial}", self.serial)

    def _first(self) -> list[str]:
        """Version 1 of the tables (its version row is written by :meth:`schema`)."""
        return [
            "CREATE TABLE dsh_schema (version INTEGER NOT NULL)",
            "CREATE TABLE dsh_parked (approval_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, state TEXT NOT NULL,"
            " created_at DOUBLE PRECISION NOT NULL, decided_at DOUBLE PRECISION, claimed_by TEXT,"
            " lease_until DOUBLE PRECISION, decision TEXT, program TEXT, body TEXT NOT NULL)",
            "CREATE INDEX dsh_parked_agent ON dsh_parked (agent_id, state, created_at)",
            "CREATE INDEX dsh_parked_state ON dsh_parked (state, created_at)",
            f"CREATE TABLE dsh_journal (seq {self.serial}, record_id TEXT NOT NULL UNIQUE, call_id TEXT NOT NULL,"
            " agent_id TEXT, tool_name TEXT NOT NULL, parent_call_id TEXT, approval_id TEXT, outcome TEXT NOT NULL,"
            " is_error INTEGER NOT NULL, started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION, body TEXT NOT NULL)",
            "CREATE INDEX dsh_journal_agent ON dsh_journal (agent_id, seq)",
            "CREATE INDEX dsh_journal_tool ON dsh_journal (tool_name, seq)",
            "CREATE INDEX dsh_journal_call ON dsh_journal (call_id)",
            "CREATE INDEX dsh_journal_parent ON dsh_journal (parent_call_id)",
            f"CREATE TABLE dsh_events (seq {self.serial}, agent_id TEXT NOT NULL, type TEXT NOT NULL,"
            " at DOUBLE PRECISION NOT NULL, data TEXT NOT NULL)",
            "CREATE INDEX dsh_events_agent ON dsh_events (agent_id, seq)",
        ]


MIGRATIONS: Final[Mapping[int, Sequence[str]]] = {
    # 1 -> 2: leases on running calls (who runs it, until when, and an owner's late settlement), parked-call expiry.
    1: (
        "ALTER TABLE dsh_journal ADD COLUMN owner TEXT",
        "ALTER TABLE dsh_journal ADD COLUMN lease_until DOUBLE PRECISION",
        "ALTER TABLE dsh_journal ADD COLUMN late TEXT",
        "CREATE INDEX dsh_journal_lease ON dsh_journal (outcome, lease_until)",
        "ALTER TABLE dsh_parked ADD COLUMN expires_at DOUBLE PRECISION",
    ),
    # 2 -> 3: threads (the conversation a turn's calls answer into), remembered approval rules,
    # the approval events `dsh-tools approvals watch` prints, and expiry by time.
    2: (
        "CREATE TABLE dsh_threads (thread_id TEXT PRIMARY KEY, version INTEGER NOT NULL, status TEXT NOT NULL,"
        " updated_at DOUBLE PRECISION NOT NULL, body TEXT NOT NULL)",
        "CREATE TABLE dsh_thread_messages (thread_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,"
        " PRIMARY KEY (thread_id, seq))",
        "CREATE TABLE dsh_rules (rule_id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, tool_name TEXT NOT NULL,"
        " created_at DOUBLE PRECISION NOT NULL, body TEXT NOT NULL)",
        "CREATE INDEX dsh_rules_agent ON dsh_rules (agent_id, tool_name)",
        "CREATE TABLE dsh_approval_events (seq {serial}, approval_id TEXT NOT NULL, at DOUBLE PRECISION NOT NULL,"
        " body TEXT NOT NULL)",
        "CREATE INDEX dsh_parked_expiry ON dsh_parked (state, expires_at)",
    ),
    # 3 -> 4: spilled results: who may read one (owner_key), when it was kept, its size; its text in parts.
    # BYTEA is PostgreSQL's binary type; SQLite takes any type name and keeps bytes as a BLOB.
    3: (
        "CREATE TABLE dsh_spilled (locator TEXT PRIMARY KEY, owner TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,"
        " chars BIGINT NOT NULL, bytes BIGINT NOT NULL)",
        "CREATE INDEX dsh_spilled_created ON dsh_spilled (created_at)",
        "CREATE TABLE dsh_spilled_parts (locator TEXT NOT NULL, part INTEGER NOT NULL, data BYTEA NOT NULL,"
        " PRIMARY KEY (locator, part))",
    ),
}
"""Statements that take a store from version ``n`` to ``n + 1``; a new store runs them all after version 1."""


def upgrade_steps(row: Sequence[Any] | None, where: str, dialect: Dialect) -> Iterator[tuple[Sequence[str], int]]:
    """The migrations from the version in ``row`` (``SELECT max(version)``) up: ``(statements, version after)``.

    One rule for every backend: a version table without a version, or with a
    newer version than this code reads, is a :class:`StoreError` naming
    ``where`` (the database), never a silent downgrade.
    """
    version = row[0] if row is not None else None
    if type(version) is not int:
        raise StoreError(f"{where} has a dsh_schema table without a version")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{where} was written by a newer dsh-tools (schema version {version}; "
            f"this one reads up to {SCHEMA_VERSION}): upgrade dsh-tools"
        )
    for step in range(version, SCHEMA_VERSION):
        yield [dialect.migration(statement) for statement in MIGRATIONS[step]], step + 1

PARK: Final = (
    "INSERT INTO dsh_parked (approval_id, agent_id, state, created_at, body, expires_at) SELECT ?, ?, ?, ?, ?, ?"
    " WHERE (SELECT count(*) FROM dsh_parked WHERE agent_id = ? AND state IN ('parked', 'decided')) < ?"
)
PARKED_COLUMNS: Final = "state, decision, claimed_by, lease_until, program, body"
SET_PROGRAM: Final = (
    "UPDATE dsh_parked SET program = ?, state = 'parked' WHERE approval_id = ? AND state IN ('held', 'parked')"
)
"""Attach a parked program and, in the same step, let its held sub-call be seen (``ParkState``)."""
DECIDE: Final = (
    "UPDATE dsh_parked SET state = 'decided', decision = ?, decided_at = ? WHERE approval_id = ? AND state = 'parked'"
    " AND (expires_at IS NULL OR expires_at >= ?) RETURNING agent_id, body"
)
"""Decide a waiting call that has not expired: one conditional statement, so a decision racing an expiry loses or wins whole."""
CLAIM: Final = (
    "UPDATE dsh_parked SET state = 'claimed', claimed_by = ?, lease_until = ?"
    f" WHERE approval_id = ? AND state = 'decided' RETURNING {PARKED_COLUMNS}"
)
RENEW: Final = (
    "UPDATE dsh_parked SET lease_until = ? WHERE approval_id = ? AND state = 'claimed' AND claimed_by = ? AND lease_until >= ?"
)
_OWNS: Final = "(dsh_journal.owner IS NULL OR dsh_journal.owner = excluded.owner)"
"""Whether the writer still owns the row: nobody else (a recovery, an operator) has settled or taken it."""
UPSERT_RECORD: Final = (
    "INSERT INTO dsh_journal (record_id, call_id, agent_id, tool_name, parent_call_id, approval_id, outcome, is_error,"
    " started_at, ended_at, body, owner, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (record_id) DO UPDATE SET"
    + ",".join(
        f" {name} = CASE WHEN {_OWNS} THEN excluded.{name} ELSE dsh_journal.{name} END"
        for name in ("outcome", "is_error", "ended_at", "body", "approval_id", "lease_until")
    )
    + f", late = CASE WHEN {_OWNS} THEN dsh_journal.late ELSE excluded.body END"
)
"""Insert or update one record; the first settlement wins: a former owner's write is kept as the row's ``late`` note."""
RENEW_LEASES: Final = (
    "UPDATE dsh_journal SET lease_until = ? WHERE owner = ? AND outcome = 'running' AND lease_until IS NOT NULL"
)
LAPSED: Final = "outcome = 'running' AND lease_until IS NOT NULL AND lease_until < ?"
"""A running call whose owner stopped renewing its lease."""
TAKE_INTERRUPTED: Final = (
    f"UPDATE dsh_journal SET owner = ?, lease_until = ? WHERE record_id = ? AND {LAPSED} RETURNING body"
)
"""Take over a lapsed running call (to run it again or settle it): atomic, so one taker wins."""
APPEND_EVENT: Final = "INSERT INTO dsh_events (agent_id, type, at, data) VALUES (?, ?, ?, ?)"
KEEP_SPILLED: Final = "INSERT INTO dsh_spilled (locator, owner, created_at, chars, bytes) VALUES (?, ?, ?, ?, ?)"
KEEP_SPILLED_PART: Final = "INSERT INTO dsh_spilled_parts (locator, part, data) VALUES (?, ?, ?)"
READ_SPILLED: Final = (
    "SELECT s.chars, p.part, p.data FROM dsh_spilled s LEFT JOIN dsh_spilled_parts p"
    " ON p.locator = s.locator AND p.part >= ? AND p.part <= ? WHERE s.locator = ? AND s.owner = ? ORDER BY p.part"
)
PRUNE_SPILLED: Final = (
    ("DELETE FROM dsh_spilled_parts WHERE locator IN (SELECT locator FROM dsh_spilled WHERE created_at < ?)"),
    "DELETE FROM dsh_spilled WHERE created_at < ?",
)


def dump_record(record: Record, *, skip: frozenset[str] = frozenset(), max_bytes: int | None = None) -> str:
    """A record's fields as one JSON object (nested records as objects, a tuple of them as an array, payloads as JSON).

    Every field is written, ``None`` included, so a row lacking one is not
    this code's (:func:`load_record` refuses it rather than guess). Each
    payload is encoded once (frozen values natively) and embedded as is;
    with ``max_bytes``, one larger than that is embedded as its preview.
    """
    body: dict[str, Any] = {}
    for name in record._record_fields:
        if name in skip:
            continue
        value = getattr(record, name)
        if isinstance(value, Record):
            body[name] = orjson.Fragment(dump_record(value))
        elif name in getattr(record, "_nested", {}) and type(value) is tuple:
            body[name] = [orjson.Fragment(dump_record(item)) for item in value]
        elif value is not None and name in record._json_fields:
            text = dumps(value)
            if max_bytes is not None and len(text) > max_bytes:
                text = dumps(preview_of(text))
            body[name] = orjson.Fragment(text)
        else:
            body[name] = value
    return orjson.dumps(body).decode()


def load_record(cls: type[R], text: str | bytes, **extra: object) -> R:
    """The record ``dump_record`` wrote (plus ``extra`` fields kept in their own columns).

    ``StoreError`` for a body that is not such a record: not a JSON object,
    a field it does not have, or one it must have missing.
    """
    fields = orjson.loads(text)
    if not isinstance(fields, dict):
        raise StoreError(f"a stored {cls.__name__} is not a JSON object")
    fields.update(extra)
    try:
        return _built(cls, fields)
    except TypeError as error:
        raise StoreError(f"a stored {cls.__name__} does not read back: {error}") from None


def _built(cls: type[R], fields: dict[str, Any]) -> R:
    """``cls`` from a stored body's fields: nested records (``cls._nested``) built too, arrays of a plain field as tuples."""
    nested: Mapping[str, type[Record]] = getattr(cls, "_nested", {})
    for name, value in fields.items():
        kind = nested.get(name)
        if kind is not None and isinstance(value, dict):
            fields[name] = _built(kind, value)
        elif type(value) is list and name not in cls._json_fields:
            fields[name] = tuple(_built(kind, item) if kind is not None and isinstance(item, dict) else item for item in value)
    return cls(**fields)


def parked_from_row(row: Sequence[Any]) -> ParkedCall:
    """A ``ParkedCall`` from the ``PARKED_COLUMNS`` of one row."""
    state, decision, claimed_by, lease_until, program, body = row
    decided = None if decision is None else load_record(ApprovalDecision, decision)
    kept = None if program is None else _program(program)
    return load_record(
        ParkedCall, body, state=state, decision=decided, claimed_by=claimed_by, lease_until=lease_until, program=kept
    )


def _program(text: str | bytes) -> JsonValue:
    """A stored program's JSON; one that is not JSON reads as a marker, which its resume refuses (``RECORD_TAMPERED``).

    So one damaged program costs its own call, not every listing of parked calls.
    """
    try:
        value: JsonValue = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {"$unreadable": "the stored program is not JSON"}
    return value


THREAD_COLUMNS: Final = frozenset({"thread_id", "version"})
"""A thread state's fields kept in columns of their own, not in its body."""


def thread_from_row(thread_id: str, version: int, body: str | bytes) -> ThreadState:
    """A ``ThreadState`` from its ``dsh_threads`` row (``StoreError`` for a body this code did not write)."""
    return load_record(ThreadState, body, thread_id=thread_id, version=int(version))


_PARKED_SKIP: Final = frozenset({"state", "decision", "claimed_by", "lease_until", "program"})


def park_params(call: ParkedCall, max_per_agent: int) -> tuple[object, ...]:
    agent_id = column(call.agent_id)
    body = dump_record(call, skip=_PARKED_SKIP)
    return (call.approval_id, agent_id, call.state, call.created_at, body, call.expires_at, agent_id, max_per_agent)


EVENT_COLUMNS: Final = frozenset({"seq", "approval_id", "at"})
"""An approval event's fields kept in columns of their own, not in its body (``seq`` is the row's number)."""

_RECORD_SKIP: Final = frozenset({"late_note", "thread_answer"})
"""Kept in its own column (a former owner's late write), or not kept (a thread slot's answer fills the thread), never in the body."""


def record_params(record: CallRecord, max_bytes: int) -> tuple[object, ...]:
    body = dump_record(record, skip=_RECORD_SKIP, max_bytes=max_bytes)  # first: a record no JSON can carry fails first
    return (
        column(record.record_id),
        column(record.call_id),
        _column(record.agent_id),
        column(record.tool_name),
        _column(record.parent_call_id),
        _column(record.approval_id),
        column(record.outcome),
        int(record.is_error),
        record.started_at,
        record.ended_at,
        body,
        _column(record.owner),
        record.lease_until,
    )


def event_params(event: SessionEvent) -> tuple[object, ...]:
    return (column(event.agent_id), column(event.type), event.at, dumps(event.data).decode())


def journal_query(query: JournalQuery) -> tuple[str, list[object]]:
    """``SELECT body ...`` for the newest ``query.limit`` matching records (newest first), and its parameters."""
    where: list[str] = []
    params: list[object] = []
    for name in ("agent_id", "tool_name", "call_id", "parent_call_id", "outcome"):
        value = getattr(query, name)
        if value is not None:
            where.append(f"{name} = ?")
            params.append(column(value))
    if query.is_error is not None:
        where.append("is_error = ?")
        params.append(int(query.is_error))
    if query.since is not None:
        where.append("started_at >= ?")
        params.append(query.since)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    params.append(query.limit)
    return f"SELECT body, late FROM dsh_journal{clause} ORDER BY seq DESC LIMIT ?", params


def record_from_row(body: str | bytes, late: str | bytes | None) -> CallRecord:
    """A journal record from its ``body`` and ``late`` columns (a former owner's late settlement, as its note)."""
    if late is None:
        return load_record(CallRecord, body)
    written = orjson.loads(late)
    return load_record(CallRecord, body, late_note=late_note(written) if isinstance(written, dict) else None)


def event_from_row(row: Sequence[Any]) -> SessionEvent:
    """A ``SessionEvent`` from ``agent_id, type, at, data``."""
    agent_id, kind, at, data = row
    return SessionEvent(agent_id, kind, orjson.loads(data), at)
