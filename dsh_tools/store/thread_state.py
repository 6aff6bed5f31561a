"""A thread as a store keeps it, and the one set of rules every store applies to it.

A thread is a conversation: provider-shaped messages, oldest first, and at
most one open *step* (an assistant turn whose tool calls have not all
settled). The rules live here once, as pure functions from one
:class:`ThreadState` to the next, so the memory, SQLite and PostgreSQL
stores cannot drift apart: a store reads the state inside its transaction,
asks these functions what changes, and writes that.

* :func:`appended`: messages a caller adds (a user's turn). Only on a ready
  thread, and only by a caller who saw the current version.
* :func:`turned`: an assistant turn, committed verbatim, opening a step with
  one slot per tool call when it made calls.
* :func:`slot_parked`: a call of the step waits for approval (its slot
  names the approval id; the model is told nothing yet).
* :func:`slot_filled`: a call settled; when it was the step's last, the
  step's answer is rendered once (:func:`~dsh_tools.adapters.answers.render_answer`)
  and appended in the same commit. A slot is filled once: a second
  settlement (a late owner after a recovery) changes nothing.

``messages`` therefore never holds a partial step, nor a "waiting for
approval" text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Final, Literal, TypeAlias

from returns.result import Failure

from dsh_tools.content import HookContext, PluginSource
from dsh_tools.execution import ToolExecutionResult
from dsh_tools.json_values import FrozenJson, JsonValue, dumps, freeze_json, thaw_json
from dsh_tools.json_walk import has_lone_surrogate
from dsh_tools.record import Record
from dsh_tools.call_records import ThreadSlot
from dsh_tools.tool_types import describe_value

__all__ = [
    "MAX_MESSAGE_BYTES",
    "MAX_THREAD_ID",
    "SlotChange",
    "StepSlot",
    "ThreadConflictError",
    "ThreadState",
    "ThreadStatus",
    "ThreadStep",
    "ThreadWaitingError",
    "Change",
    "answer_from",
    "answer_of",
    "appended",
    "check_thread_id",
    "checked_messages",
    "leased",
    "open_slots",
    "orphaned",
    "slot_filled",
    "slot_parked",
    "turned",
]

ThreadStatus: TypeAlias = Literal["running", "waiting", "ready"]

MAX_THREAD_ID: Final = 200
"""The longest thread id (a key in every store)."""

MAX_MESSAGE_BYTES: Final = 16 * 1024 * 1024
"""The largest message a thread takes, as JSON (a base64 image fits; a runaway value does not)."""


class ThreadConflictError(Exception):
    """The thread changed since the caller read it (another process appended first); nothing was written."""


class ThreadWaitingError(Exception):
    """The thread is not ready: a step's calls are still running or waiting for approval; nothing was written."""


class StepSlot(Record):
    """One call of the open step: the approval it waits for (``None``: none), then its answer (``None``: not yet settled)."""

    _json_fields = frozenset({"answer"})
    approval_id: str | None
    answer: JsonValue | None


class ThreadStep(Record):
    """The open step: the assistant turn's tool call ids and tool names, in order, and a slot for each.

    ``owner`` is the process running the step's calls and ``lease_until`` how
    long it holds them unless it renews: a process that dies between the
    step's commit and a call's first journal record leaves a slot no record
    names, which ``recover`` settles once the lease lapsed (:func:`orphaned`).
    """

    number: int
    call_ids: tuple[str, ...]
    slots: tuple[StepSlot, ...]
    names: tuple[str, ...]
    owner: str
    lease_until: float

    _nested: ClassVar[Mapping[str, type[Record]]] = {"slots": StepSlot}


class ThreadState(Record):
    """A thread's state without its messages (which a store appends, never rewrites).

    A relational store keeps it as one JSON body (``sql.dump_record``) beside
    its ``thread_id`` and ``version`` columns. Every field is required, so a
    stored body that lacks one does not read back (``StoreError``) instead of
    reading as a default: a missing ``count`` or ``step`` would lose messages
    or an open step. :meth:`empty` is a thread before its first message.
    """

    thread_id: str
    version: int
    provider: str | None
    """The provider whose messages it holds, from its first turn (``None`` before one)."""
    agent_id: str | None
    """The agent whose turns it holds, from its first turn (``None`` before one)."""
    steps: int
    """How many steps were ever opened (the next one's number is one more)."""
    step: ThreadStep | None
    """The open step (``None``: the thread is ready)."""
    count: int
    """How many messages the thread holds (a reader reads that many, whatever was appended since)."""

    _nested: ClassVar[Mapping[str, type[Record]]] = {"step": ThreadStep}

    @classmethod
    def empty(cls, thread_id: str) -> ThreadState:
        """A new thread: no message, no step, no provider or agent yet."""
        return cls(thread_id, 0, None, None, 0, None, 0)

    @property
    def status(self) -> ThreadStatus:
        """``ready`` with no open step; ``waiting`` when every unsettled call waits for approval; else ``running``."""
        if self.step is None:
            return "ready"
        return "running" if open_slots(self) else "waiting"

    @property
    def pending_calls(self) -> tuple[str, ...]:
        """The open step's call ids not yet settled."""
        step = self.step
        if step is None:
            return ()
        return tuple(call_id for call_id, slot in zip(step.call_ids, step.slots) if slot.answer is None)

    @property
    def waiting_on(self) -> tuple[str, ...]:
        """The approval ids the open step's unsettled calls wait for."""
        step = self.step
        if step is None:
            return ()
        return tuple(slot.approval_id for slot in step.slots if slot.answer is None and slot.approval_id is not None)


def check_thread_id(thread_id: object) -> str:
    """``thread_id`` when a store can key a thread by it; ``TypeError``/``ValueError`` saying why not."""
    if type(thread_id) is not str:
        raise TypeError(f"a thread id is a str, got {describe_value(thread_id)}")
    if not thread_id or len(thread_id) > MAX_THREAD_ID:
        raise ValueError(f"a thread id is a non-empty str of at most {MAX_THREAD_ID} characters")
    if "\x00" in thread_id or has_lone_surrogate(thread_id):
        raise ValueError(f"a thread id may not hold NUL or a lone surrogate: {ascii(thread_id)[:80]}")
    return thread_id


def checked_messages(
    messages: Sequence[object], what: str = "message", max_bytes: int | None = MAX_MESSAGE_BYTES
) -> tuple[FrozenJson, ...]:
    """``messages`` frozen, each a JSON object of at most ``max_bytes``; ``ValueError`` naming the first bad one."""
    checked: list[FrozenJson] = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise ValueError(f"{what} {index} is not a JSON object: got {describe_value(message)}")
        frozen = freeze_json(message)
        if type(frozen) is Failure:
            raise ValueError(f"{what} {index} is not JSON: {frozen.failure()}")
        value = frozen.unwrap()
        try:
            size = len(dumps(value))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{what} {index} cannot be stored: {error}") from None
        if max_bytes is not None and size > max_bytes:
            raise ValueError(f"{what} {index} is {size} bytes as JSON; a thread takes messages of at most {max_bytes}")
        checked.append(value)
    return tuple(checked)


def _current(state: ThreadState, version: int) -> None:
    if state.version != version:
        raise ThreadConflictError(
            f"thread {state.thread_id!r} is at version {state.version}, not {version}: "
            "another process changed it; open it again and retry"
        )
    if state.step is not None:
        raise ThreadWaitingError(
            f"thread {state.thread_id!r} is {state.status}: its step's calls {', '.join(state.pending_calls)} have not all settled"
        )


Change: TypeAlias = tuple[ThreadState, tuple[FrozenJson, ...]]
"""A thread's next state and the messages to append with it."""


def _grown(state: ThreadState, messages: Sequence[FrozenJson], **changes: object) -> Change:
    return state.set(version=state.version + 1, count=state.count + len(messages), **changes), tuple(messages)


def appended(state: ThreadState, version: int, messages: Sequence[FrozenJson]) -> Change:
    """The thread after a caller appends ``messages`` to it, having read it at ``version``."""
    _current(state, version)
    return _grown(state, messages)


def turned(
    state: ThreadState,
    version: int,
    provider: str,
    agent_id: str,
    messages: Sequence[FrozenJson],
    call_ids: Sequence[str],
    *,
    names: Sequence[str],
    owner: str,
    lease_until: float,
) -> Change:
    """The state after an assistant turn of ``provider`` by ``agent_id``, opening a step when it made calls.

    ``names`` are the calls' tool names, ``owner`` the process that runs
    them, holding the step until ``lease_until`` (:func:`leased` renews it).
    ``ValueError`` for a thread of another provider or agent, or call ids that
    are empty or repeat (no answer could be matched to them).
    """
    from dsh_tools.adapters.answers import PROVIDERS  # a turn comes through an adapter: loaded by then

    if provider not in PROVIDERS:
        raise ValueError(f"a thread's provider is one of {', '.join(PROVIDERS)}, got {provider!r}")
    if state.provider is not None and state.provider != provider:
        raise ValueError(f"thread {state.thread_id!r} holds {state.provider} messages, not {provider}")
    if state.agent_id is not None and state.agent_id != agent_id:
        raise ValueError(f"thread {state.thread_id!r} belongs to agent {state.agent_id!r}, not {agent_id!r}")
    seen: set[str] = set()
    for call_id in call_ids:
        if type(call_id) is not str or not call_id:
            raise ValueError("every tool call of a turn needs an id (no answer could be matched to it)")
        if call_id in seen:
            raise ValueError(f'tool call id "{call_id}" appears twice in one turn: its answers could not be told apart')
        seen.add(call_id)
    if len(names) != len(call_ids):
        raise ValueError(f"a turn of {len(call_ids)} tool calls needs as many tool names, got {len(names)}")
    _current(state, version)
    step = None
    steps = state.steps
    if call_ids:
        steps += 1
        step = ThreadStep(steps, tuple(call_ids), tuple(StepSlot(None, None) for _ in call_ids), tuple(names), owner, lease_until)
    return _grown(state, messages, provider=provider, agent_id=agent_id, steps=steps, step=step)


def _open_slot(state: ThreadState, slot: ThreadSlot) -> ThreadStep | None:
    """The open step ``slot`` points into, when its slot is still unfilled."""
    step = state.step
    if step is None or step.number != slot.step or not 0 <= slot.index < len(step.slots):
        return None
    return step if step.slots[slot.index].answer is None else None


def leased(state: ThreadState, number: int, owner: str, lease_until: float) -> Change | None:
    """The step ``number`` held by ``owner`` until ``lease_until`` (a renewal: no new version, no message); ``None`` if it closed."""
    step = state.step
    if step is None or step.number != number:
        return None
    return state.set(step=step.set(owner=owner, lease_until=lease_until)), ()


def open_slots(state: ThreadState) -> tuple[int, ...]:
    """The open step's slots neither settled nor waiting for approval: calls still to run, or running."""
    step = state.step
    if step is None:
        return ()
    return tuple(i for i, slot in enumerate(step.slots) if slot.answer is None and slot.approval_id is None)


def orphaned(state: ThreadState, now: float) -> tuple[int, ...]:
    """The :func:`open_slots` of a step whose process's lease lapsed."""
    step = state.step
    return () if step is None or step.lease_until >= now else open_slots(state)


SlotChange: TypeAlias = Callable[[ThreadState], "Change | None"]
"""What a call's park or settlement does to its thread: :func:`slot_parked` or :func:`slot_filled` of its slot.

A store reads the slot's thread, applies it, and writes the change it gives
(none: the slot is not open, and nothing changes).
"""


def slot_parked(state: ThreadState, slot: ThreadSlot, approval_id: str) -> Change | None:
    """The state once ``slot``'s call waits for ``approval_id`` (no message yet); ``None`` when the slot is not open."""
    step = _open_slot(state, slot)
    if step is None:
        return None
    slots = list(step.slots)
    slots[slot.index] = slots[slot.index].set(approval_id=approval_id)
    return _grown(state, (), step=step.set(slots=tuple(slots)))


def slot_filled(state: ThreadState, slot: ThreadSlot, answer: JsonValue) -> Change | None:
    """The state once ``slot``'s call settled with ``answer``, and the messages to append (the step's answer, once all settled).

    ``None`` when the slot is not open (already filled, or another step's):
    the first settlement wins.
    """
    step = _open_slot(state, slot)
    if step is None:
        return None
    slots = list(step.slots)
    slots[slot.index] = slots[slot.index].set(answer=answer)
    if any(s.answer is None for s in slots):
        return _grown(state, (), step=step.set(slots=tuple(slots)))
    from dsh_tools.adapters.answers import render_answer  # only when a step completes (a process with no threads never loads it)

    provider = state.provider or ""
    results = [_result(call_id, s.answer) for call_id, s in zip(step.call_ids, slots)]
    # The answer is the settled calls' own content: never refused for its size (a journal write must not fail).
    return _grown(state, checked_messages(render_answer(provider, results), "answer message", None), step=None)


def answer_of(result: ToolExecutionResult) -> FrozenJson:
    """What a settled call's slot keeps: its content, whether it failed, and the context listeners attached."""
    context = result.additional_context
    return answer_from(result.content, result.is_error, context.content if context is not None else None)


def answer_from(content: Sequence[object], is_error: bool, context: Sequence[object] | None = None) -> FrozenJson:
    """A slot's answer from its parts (a store settling a call itself, an expiry, has no result to read)."""
    answer: dict[str, object] = {"content": list(content), "isError": is_error}
    if context:
        answer["context"] = list(context)
    frozen = freeze_json(answer)
    return frozen.unwrap() if type(frozen) is not Failure else freeze_json({"content": [], "isError": True}).unwrap()


def _result(call_id: str, answer: JsonValue | None) -> ToolExecutionResult:
    """The result a stored answer stands for, as the adapters' renderers read it."""
    body = thaw_json(answer) if answer is not None else {}
    if not isinstance(body, dict):
        body = {}
    content = body.get("content")
    context = body.get("context")
    extra = HookContext(context, PluginSource("thread")) if isinstance(context, list) and context else None
    return ToolExecutionResult(
        call_id, content if isinstance(content, list) else [], body.get("isError") is True, additional_context=extra
    )
