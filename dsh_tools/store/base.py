"""What every store shares: checking a decision, bounding journaled values, counting failures.

A rule that is the same for every backend lives here once, so the memory,
SQLite and PostgreSQL stores cannot drift apart on what a valid decision is
or how large a journaled value may be.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from types import TracebackType
from typing import Final, Self, TypeGuard

from dsh_tools.approval import APPROVAL_VERDICTS, ApprovalDecision, ApprovalVerdict, Remember
from dsh_tools.errors import safe_str
from dsh_tools.json_values import FrozenJson, JsonValue, dumps, frozen_or_raise
from dsh_tools.json_walk import has_lone_surrogate
from dsh_tools.tool_types import describe_value
from dsh_tools.outcome import RecordOutcome
from dsh_tools.store.interrupted import settle_interrupted
from dsh_tools.call_records import CallRecord, JournalQuery, StoreHealth

__all__ = [
    "DEFAULT_MAX_VALUE_BYTES", "MAX_MESSAGE_CHARS", "PREVIEW_CHARS", "StoreBase", "check_decision", "preview", "storable_id",
]

DEFAULT_MAX_VALUE_BYTES: Final = 64 * 1024
"""A journaled value (arguments, content, value, meta) larger than this, as JSON, is kept as a preview."""

PREVIEW_CHARS: Final = 1024
"""How much of an oversized value's JSON text its preview keeps."""

MAX_MESSAGE_CHARS: Final = 4000
"""The longest message a decision may carry to the model (a denial's reason, not a document)."""

_LOG = logging.getLogger("dsh_tools.store")

_PREVIEWED: Final = ("arguments", "content", "value", "meta")


def storable_id(approval_id: object) -> TypeGuard[str]:
    """Whether ``approval_id`` could name a stored call: a ``str`` without NUL or lone surrogates.

    Ids arrive from pages, command lines and other processes. One that no
    store can even encode (PostgreSQL's text refuses NUL, UTF-8 cannot carry
    a lone surrogate) names no call, so every store answers it as an unknown
    id, before the encoding underneath raises something else.
    """
    return type(approval_id) is str and "\x00" not in approval_id and not has_lone_surrogate(approval_id)


def _text(name: str, value: object) -> str | None:
    """An optional text field of a decision: ``None``, or Unicode text without NUL (it reaches columns and models)."""
    if value is None:
        return None
    if type(value) is not str:
        raise TypeError(f"{name} must be a str or None, got {describe_value(value)}")
    if not storable_id(value):
        raise ValueError(f"{name} must be Unicode text without NUL, got {ascii(value)[:80]}")
    if len(value) > MAX_MESSAGE_CHARS:
        raise ValueError(f"{name} is {len(value)} characters long; at most {MAX_MESSAGE_CHARS}")
    return value


def check_decision(
    approval_id: object,
    outcome: object,
    arguments: object,
    decided_by: object,
    message: object = None,
    remember: object = None,
) -> ApprovalDecision:
    """The decision these untrusted inputs describe, or ``KeyError``/``ValueError``/``TypeError`` naming what is wrong.

    ``message`` goes with a denial (the model reads it); with ``"allowed-once"``
    it is a ``ValueError``. ``remember="agent"`` gives the decision a rule id
    (the rule is stored with it); with edited arguments it is a ``ValueError``,
    since a rule cannot remember arguments.
    """
    if not storable_id(approval_id):
        raise KeyError(f"no parked call {describe_value(approval_id)}")
    if type(outcome) is not str or outcome not in APPROVAL_VERDICTS:
        raise ValueError(f"a decision is one of {', '.join(APPROVAL_VERDICTS)}; got {describe_value(outcome)}")
    by, said = _text("decided_by", decided_by), _text("message", message)
    if said is not None and outcome == "allowed-once":
        raise ValueError("a message goes with a denial ('rejected', 'cancelled'): the model reads it instead of a result")
    if remember is not None and (type(remember) is not str or remember != "agent"):
        raise ValueError(f'remember takes "agent" or None, got {describe_value(remember)}')
    if remember is not None and outcome == "unavailable":
        raise ValueError("'unavailable' says nobody could answer: it cannot be remembered")
    frozen: FrozenJson | None = None
    if arguments is not None:
        if outcome != "allowed-once":
            raise ValueError("edited arguments come only with an 'allowed-once' decision")
        if remember is not None:
            raise ValueError("a remembered decision applies to later calls, whatever their arguments: it cannot carry edited ones")
        frozen = frozen_or_raise(arguments, lambda why: TypeError(f"edited arguments are not JSON: {why}"))
    verdict: ApprovalVerdict = outcome  # type: ignore[assignment]  # checked against APPROVAL_VERDICTS above
    rule_id = secrets.token_hex(16) if remember is not None else None
    return ApprovalDecision(approval_id, verdict, frozen, by, time.time(), said, rule_id)


def checked_before(before: object) -> float:
    """``prune``'s ``before``, checked: Unix seconds, an ``int`` or a ``float`` that is not NaN (``TypeError`` otherwise).

    Unchecked, a string reached SQLite, which ranks every number below any
    text, so ``prune(before="2020-01-01")`` deleted the whole journal; NaN
    would delete nothing without a word. ``float("inf")`` is everything.
    """
    if type(before) not in (int, float) or math.isnan(before):  # type: ignore[arg-type]  # an int or a float
        raise TypeError(f"prune(before=...) takes Unix seconds (an int or a float, not NaN), got {before!r}")
    return float(before)  # type: ignore[arg-type]  # checked above


def preview_of(text: bytes) -> JsonValue:
    """The stand-in for a value whose JSON is ``text``: ``{"$preview": <its first characters>, "$bytes": <size>}``."""
    return {"$preview": text[:PREVIEW_CHARS].decode("utf-8", "replace"), "$bytes": len(text)}


def preview(value: JsonValue, max_bytes: int) -> JsonValue:
    """``value``, or its :func:`preview_of` when its JSON is longer than ``max_bytes``.

    Every call's record asks this of each payload, so the common answers
    come first and cost a type test each.
    """
    kind = type(value)
    if kind is str:
        if len(value) * 4 + 2 <= max_bytes:  # type: ignore[arg-type]  # a str
            return value  # no string this short can encode past the bound
    elif not value or kind is bool or kind is int or kind is float:
        return value  # nothing, an empty container, a scalar: no JSON of these is past any bound
    text = dumps(value)
    return value if len(text) <= max_bytes else preview_of(text)


def bounded(record: CallRecord, max_bytes: int) -> CallRecord:
    """``record`` with every oversized payload field replaced by its preview."""
    changes = {}
    for name in _PREVIEWED:
        value = getattr(record, name)
        shown = preview(value, max_bytes)
        if shown is not value:
            changes[name] = shown
    return record.set(**changes) if changes else record


class StoreBase:
    """Health counting and the async-context-manager protocol, for every store."""

    def __init__(self, *, max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> None:
        if type(max_value_bytes) is not int or max_value_bytes < PREVIEW_CHARS:
            raise ValueError(f"max_value_bytes must be an int of at least {PREVIEW_CHARS}")
        self.max_value_bytes = max_value_bytes
        self._failures = 0
        self._last_error: str | None = None
        self._unreadable = 0

    def health(self) -> StoreHealth:
        """Writes that failed without failing a call, rows that did not read back, and why the last thing failed."""
        return StoreHealth(self._failures, self._last_error, self._unreadable)

    def note_failure(self, error: BaseException) -> None:
        """Count and log a write that failed; the call it belonged to goes on."""
        self._failures += 1
        self._last_error = f"{type(error).__name__}: {safe_str(error)}"
        _LOG.warning("store write failed: %s", self._last_error, exc_info=(type(error), error, error.__traceback__))

    def note_unreadable(self, what: str, error: BaseException) -> None:
        """Count a stored row a read skipped (not JSON, not a record); the first is logged as a warning, the rest quietly.

        A corrupt row is read again by every read that reaches it (a page
        polling the journal), so one warning says the store needs a look and
        the count says how often it was met.
        """
        self._unreadable += 1
        self._last_error = f"an unreadable {what} row was skipped: {type(error).__name__}: {safe_str(error)}"
        _LOG.log(logging.WARNING if self._unreadable == 1 else logging.DEBUG, "%s", self._last_error)

    async def decide(
        self,
        approval_id: str,
        outcome: ApprovalVerdict,
        *,
        arguments: JsonValue | None = None,
        decided_by: str | None = None,
        message: str | None = None,
        remember: Remember | None = None,
    ) -> ApprovalDecision:
        """Record a verdict (checked here, once for every store); ``KeyError`` if unknown, decided or expired.

        It only records: the process holding the agent settles the call
        (``resume``, ``resume_decided``, ``watch_decisions``). With
        ``remember="agent"`` the store keeps an :class:`ApprovalRule` with it,
        in the same commit.
        """
        decision = check_decision(approval_id, outcome, arguments, decided_by, message, remember)
        await self._decide(decision)
        return decision

    async def _decide(self, decision: ApprovalDecision) -> None:
        """Record ``decision`` (and the rule it remembers, when it has a ``rule_id``) in one commit."""
        raise NotImplementedError

    async def journal(
        self,
        *,
        agent_id: str | None = None,
        tool_name: str | None = None,
        call_id: str | None = None,
        parent_call_id: str | None = None,
        outcome: RecordOutcome | None = None,
        is_error: bool | None = None,
        since: float | None = None,
        limit: int = 100,
    ) -> list[CallRecord]:
        """The newest ``limit`` matching records, oldest first (arguments checked here, once for every store)."""
        query = check_query(agent_id, tool_name, call_id, parent_call_id, outcome, is_error, since, limit)
        return await self._journal(query)

    async def _journal(self, query: JournalQuery) -> list[CallRecord]:
        raise NotImplementedError

    async def settle_interrupted(self, call_id: str, *, decided_by: str | None) -> list[CallRecord]:
        """Settle an interrupted call (``store.interrupted()``) as ``unknown``, running nothing; its settled records.

        For an agent that no longer exists: a live agent's calls are settled
        by ``await ctx.tools.recover(agent)``, which runs an idempotent one
        again. ``KeyError`` for a call that is unknown, settled, or whose
        lease has not lapsed.
        """
        return await settle_interrupted(self, call_id, decided_by=decided_by)  # type: ignore[arg-type]

    async def aclose(self) -> None:
        """Release what the store holds (nothing, here)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.aclose()


MAX_JOURNAL_LIMIT: Final = 10_000
"""The most records one ``journal()`` call returns."""


def check_query(
    agent_id: object,
    tool_name: object,
    call_id: object,
    parent_call_id: object,
    outcome: object,
    is_error: object,
    since: object,
    limit: object,
) -> JournalQuery:
    """The query these untrusted ``journal()`` arguments ask, or ``TypeError``/``ValueError`` naming the first bad one."""
    for name, value in (
        ("agent_id", agent_id),
        ("tool_name", tool_name),
        ("call_id", call_id),
        ("parent_call_id", parent_call_id),
        ("outcome", outcome),
    ):
        if value is not None and type(value) is not str:
            raise TypeError(f"journal({name}=...) takes a str or None, got {describe_value(value)}")
    if is_error is not None and type(is_error) is not bool:
        raise TypeError(f"journal(is_error=...) takes a bool or None, got {describe_value(is_error)}")
    if since is not None and type(since) not in (int, float):
        raise TypeError(f"journal(since=...) takes Unix seconds or None, got {describe_value(since)}")
    if type(limit) is not int or not 1 <= limit <= MAX_JOURNAL_LIMIT:
        raise ValueError(f"journal(limit=...) takes an int from 1 to {MAX_JOURNAL_LIMIT}, got {describe_value(limit)}")
    return JournalQuery(agent_id, tool_name, call_id, parent_call_id, outcome, is_error, since, limit)  # type: ignore[arg-type]
