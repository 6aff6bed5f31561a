"""The durable records: a parked call, a decision on it, a journaled call, the store's health.

They live below the context and the registry (``dsh_tools.store`` re-exports
them, as ``store.records`` always did): the registry's public API and
``ctx.tools``'s contract (``context/ports.py``) name them, and a floor that
names a type must not import the package that keeps it.

They are the store's vocabulary, shared by every backend: a store keeps and
returns these values, and its tables are only their serialised form. JSON
payloads are deep-frozen like every record's, so what a reader gets back is
exactly what was written, whichever process wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Literal, TypeAlias

from dsh_tools.approval import ApprovalDecision, ApprovalVerdict
from dsh_tools.execution import content_text, meta_member
from dsh_tools.json_values import JsonValue
from dsh_tools.outcome import RecordOutcome
from dsh_tools.record import Record

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

ParkState: TypeAlias = Literal["held", "parked", "decided", "claimed", "done", "interrupted", "expired"]
"""Where a parked call is in its one life: held for its program, waiting, decided, running somewhere, finished, lost mid-run, or expired undecided.

A Code Mode sub-call parks ``"held"``: nobody lists, decides or runs it until
its program is attached (``set_program``), which makes it ``"parked"`` in the
same step. So no reader ever sees the call without the program it belongs to.
"""


class ThreadSlot(Record):
    """Where a call's answer goes in its conversation: the thread, the open step, the call's place in it.

    A call made by a thread's turn (``run_chat_turn`` and friends) carries its
    slot from its plan into its running record, its park and its
    settlement; the commit that settles the call fills the slot, and the one
    that fills a step's last slot appends the step's answer to the thread
    (``dsh_tools.threads``).
    """

    thread_id: str
    step: int
    index: int


class ApprovalRule(Record):
    """A remembered decision: later calls of ``tool_name`` (same ``fingerprint``) by ``agent_id`` are decided alike.

    Made by a decision with ``remember="agent"`` (``store.decide``,
    ``ctx.tools.resume``, the CLI's ``--remember``, the inspector); the
    approval service (and MCP elicitation) is then not asked. A tool whose
    definition changed has another fingerprint, so the rule stops applying.
    ``store.rules()`` lists rules, ``store.forget_rule(rule_id)`` removes one.
    """

    rule_id: str
    agent_id: str
    tool_name: str
    fingerprint: str
    outcome: ApprovalVerdict
    message: str | None = None
    decided_by: str | None = None
    created_at: float = 0.0

    @classmethod
    def of(cls, decision: ApprovalDecision, parked: ParkedCall) -> ApprovalRule | None:
        """The rule ``decision`` on ``parked`` remembers, or ``None`` when it remembers none (it has no ``rule_id``)."""
        if decision.rule_id is None:
            return None
        return cls(
            decision.rule_id, parked.agent_id, parked.tool_name, parked.fingerprint, decision.outcome,
            decision.message, decision.decided_by, decision.decided_at,
        )


ApprovalEventKind: TypeAlias = Literal["parked", "decided", "settled"]


class ApprovalEvent(Record):
    """One step of a parked call's life, as the store logged it: what ``dsh-tools approvals watch`` prints.

    ``seq`` orders events across processes (a reader asks for those after the
    last it saw). A ``"decided"`` event carries the verdict, who decided and
    the message; a ``"settled"`` one the call's outcome.
    """

    seq: int
    event: ApprovalEventKind
    approval_id: str
    agent_id: str
    tool_name: str
    at: float
    outcome: str | None = None
    decided_by: str | None = None
    message: str | None = None

    @classmethod
    def of(
        cls, seq: int, event: ApprovalEventKind, parked: ParkedCall, at: float, *,
        outcome: str | None = None, decided_by: str | None = None, message: str | None = None,
    ) -> ApprovalEvent:
        """The event ``event`` of ``parked``'s life at ``at`` (``seq``: the store's number for it)."""
        return cls(seq, event, parked.approval_id, parked.agent_id, parked.tool_name, at, outcome, decided_by, message)

    def wire(self) -> dict[str, object]:
        """The JSON line ``approvals watch`` prints (its keys are API.md's)."""
        line: dict[str, object] = {
            "event": self.event, "approvalId": self.approval_id, "agentId": self.agent_id,
            "toolName": self.tool_name, "at": self.at,
        }
        if self.event == "decided":
            line.update(outcome=self.outcome, decidedBy=self.decided_by, message=self.message)
        elif self.event == "settled":
            line["outcome"] = self.outcome
        return line


class ParkedCall(Record):
    """A call waiting for a human, kept whole: what resuming it and showing it need.

    ``fingerprint`` binds the approval to the tool the human saw (name,
    description, parameters and output schema); ``card`` is the tool's own
    presentation of the call (``present_call(args).to_json()``), when it has one.
    ``claimed_by`` and ``lease_until`` belong to the one process running it.
    ``program`` is set when the call is a Code Mode sub-call whose program
    parked waiting for it: the program's code and the results of its calls so
    far, which a resumed run replays (see ``docs/code-mode.md``).
    """

    _json_fields = frozenset({"arguments", "parameters", "output_schema", "card", "program"})
    approval_id: str
    agent_id: str
    agent_name: str
    call_id: str
    tool_name: str
    arguments: JsonValue
    description: str
    parameters: JsonValue
    fingerprint: str
    created_at: float
    reason: str | None = None
    output_schema: JsonValue | None = None
    card: JsonValue | None = None
    parent_call_id: str | None = None
    decision: ApprovalDecision | None = None
    state: ParkState = "parked"
    claimed_by: str | None = None
    lease_until: float | None = None
    program: JsonValue | None = None
    idempotency_key: str | None = None
    digest: str | None = None
    """A hash of what the call would run, made when it parked; a resume that reads back anything else runs nothing."""
    expires_at: float | None = None
    """When it expires undecided (``APPROVAL_EXPIRED``); ``None``: it waits for a verdict for ever."""
    thread_slot: ThreadSlot | None = None
    """The thread slot its settlement fills, when the call is part of a thread's turn."""

    _nested: ClassVar[Mapping[str, type[Record]]] = {"thread_slot": ThreadSlot}


class CallRecord(Record):
    """One call in the journal: recorded when it starts (``"running"``), updated when it settles.

    ``record_id`` is the journal row (a resumed call is a row of its own,
    linked to the parked one by ``approval_id``). A value past the store's
    size bound is kept as ``{"$preview": <the first characters of its JSON>,
    "$bytes": <its size>}`` instead of whole.

    ``owner`` is the process that ran the call, and ``lease_until`` how long
    its claim on a running call lasts unless renewed (durable stores only): a
    running call whose lease lapsed is *interrupted* (``store.interrupted()``).
    The first settlement wins: when the owner settles a call that somebody
    else already settled (it woke after its lease lapsed), its outcome is kept
    as ``late_note`` and the record's own outcome stands.
    """

    _json_fields = frozenset({"arguments", "content", "value", "error", "meta", "progress", "late_note", "thread_answer"})
    record_id: str
    call_id: str
    agent_id: str | None
    tool_name: str
    arguments: JsonValue
    outcome: RecordOutcome
    started_at: float
    content: JsonValue = ()
    value: JsonValue | None = None
    is_error: bool = False
    error: JsonValue | None = None
    meta: JsonValue | None = None
    ended_at: float | None = None
    parent_call_id: str | None = None
    approval_id: str | None = None
    progress: JsonValue | None = None
    idempotency_key: str | None = None
    approval_rule: str | None = None
    decided_by: str | None = None
    decision_message: str | None = None
    owner: str | None = None
    lease_until: float | None = None
    fingerprint: str | None = None
    """The fingerprint of the tool the call ran (a recovery runs it again only if the tool is still the same)."""
    late_note: JsonValue | None = None
    thread_slot: ThreadSlot | None = None
    """The thread slot the call's settlement fills (a call of a thread's turn)."""
    thread_answer: JsonValue | None = None
    """What the slot is filled with: the settled call's answer as the model reads it (``content``,
    ``isError``, ``context``). Carried to the store's write, which fills the slot in the same commit;
    never kept in the journal."""

    _nested: ClassVar[Mapping[str, type[Record]]] = {"thread_slot": ThreadSlot}

    def meta_get(self, key: str) -> JsonValue | None:
        """``meta[key]`` when ``meta`` is a JSON object holding ``key``; ``None`` otherwise.

        The journal's twin of ``ToolExecutionResult.meta_get``: a typed read
        of one key (``record.meta_get("approvalId")``) with no narrowing.
        """
        return meta_member(self.meta, key)

    @property
    def text(self) -> str:
        """The text of the content's ``text`` blocks, one per line: the journal's twin of ``ToolExecutionResult.text``.

        A previewed content (``{"$preview": ...}``: too large to keep whole) reads as no text.
        """
        content = self.content
        if not isinstance(content, (tuple, list)):
            return ""
        return content_text([block for block in content if isinstance(block, Mapping)])


class InterruptedCall(Record):
    """A call whose process stopped before it settled, and whose lease lapsed: what ``store.interrupted()`` lists.

    ``kind`` is ``"running"`` for a journaled call whose owner stopped
    renewing its lease mid-body, ``"claim"`` for a decided parked call that a
    process claimed and never finished. ``ctx.tools.recover(agent)`` settles
    an agent's (an idempotent tool runs again with ``idempotency_key``; any
    other call settles ``TOOL_OUTCOME_UNKNOWN``); ``store.settle_interrupted``
    settles one as unknown without running anything.
    """

    kind: Literal["claim", "running"]
    call_id: str
    agent_id: str | None
    tool_name: str
    approval_id: str | None = None
    parent_call_id: str | None = None
    idempotency_key: str | None = None
    owner: str | None = None
    lease_until: float | None = None
    record_id: str | None = None
    """The journal record (``"running"``), which a recovery settles in place."""
    thread_slot: ThreadSlot | None = None
    """The thread slot its settlement fills, when it belongs to a thread's turn."""


class JournalQuery(Record):
    """One checked ``journal()`` question: the conditions a record must meet, and how many to return."""

    agent_id: str | None = None
    tool_name: str | None = None
    call_id: str | None = None
    parent_call_id: str | None = None
    outcome: str | None = None
    is_error: bool | None = None
    since: float | None = None
    limit: int = 100

    def matches(self, record: CallRecord) -> bool:
        """Whether ``record`` meets every condition (the memory store's query)."""
        return (
            (self.agent_id is None or record.agent_id == self.agent_id)
            and (self.tool_name is None or record.tool_name == self.tool_name)
            and (self.call_id is None or record.call_id == self.call_id)
            and (self.parent_call_id is None or record.parent_call_id == self.parent_call_id)
            and (self.outcome is None or record.outcome == self.outcome)
            and (self.is_error is None or record.is_error == self.is_error)
            and (self.since is None or record.started_at >= self.since)
        )


class SessionEvent(Record):
    """One ``agent.session.append(type, data)`` event, as the store keeps it."""

    _json_fields = frozenset({"data"})
    agent_id: str
    type: str
    data: JsonValue
    at: float


class StoreHealth(Record):
    """What went wrong with the store without stopping a call, and what is still owed to it.

    ``write_failures``: writes that failed for good (a journal record the
    database refused, a park that could not be committed, a renewal);
    ``last_error``: why the last thing went wrong. ``unreadable_rows``: stored
    rows a read skipped because they did not read back as records (counted
    per read). ``buffered``: journal records and session events held in
    memory while the database is away, to be written when it is back;
    ``dropped``: those the bounded buffer could not hold, or that were still
    held when the store closed (lost).
    """

    write_failures: int = 0
    last_error: str | None = None
    unreadable_rows: int = 0
    buffered: int = 0
    dropped: int = 0
