"""A model turn into a thread: commit the assistant's message, then run its calls into their slots.

What the provider adapters' ``run_chat_turn``, ``run_responses_turn`` and
``anthropic.run_turn`` share once they have read the reply:

1. The assistant turn is committed verbatim, with an open *step* listing
   its tool call ids, before any call runs (``turned``: one commit, against
   the version the caller read; another provider's or agent's thread, a
   missing or repeated call id, a malformed or huge message are refused
   before anything is written).
2. The calls run as one batch (``execute_batch``), each carrying its slot
   (thread, step, index) on its plan's state and the idempotency key
   ``"<thread_id>:<tool_call_id>"``: the commit that settles a call fills its
   slot; a call that parks marks it waiting; the commit that fills the last
   slot appends the step's answer.
3. The thread is read again and returned: ``ready`` with the answer, or
   ``waiting`` for a human. Whoever settles a parked call later (a resume,
   ``resume_decided``, ``watch_decisions``, a denial, an expiry, ``recover``;
   any process) fills its slot.

A turn cut short (its task cancelled) before some calls started settles
those as aborted, so no slot is left open by a call that never ran.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dsh_tools.context.context import Agent, Context
from dsh_tools.execution import ToolExecutionInput, derived_idempotency_key
from dsh_tools.pipeline.batch import execute_batch
from dsh_tools.store.error_records import slot_records
from dsh_tools.call_store import CallStore
from dsh_tools.call_records import ThreadSlot
from dsh_tools.errors import ToolAbortedError, safe_str
from dsh_tools.registry.approvals import OWNER
from dsh_tools.store.thread_state import checked_messages, leased, open_slots, turned
from dsh_tools.threads.thread import Thread, thread_of
from dsh_tools.tool_types import describe_value

if TYPE_CHECKING:
    from dsh_tools.adapters.answers import Provider

__all__ = ["run_step"]

_LOG = logging.getLogger("dsh_tools.store")


async def run_step(
    ctx: Context,
    thread: Thread,
    provider: Provider,
    agent: Agent,
    messages: Sequence[object],
    calls: Sequence[ToolExecutionInput],
) -> Thread:
    """Commit ``messages`` (the assistant turn) with a step for ``calls``, run them into their slots; the thread after."""
    if not isinstance(thread, Thread):
        raise TypeError(f"a turn goes into a Thread (open_thread), got {describe_value(thread)}")
    if type(agent) is not Agent:
        raise TypeError(f"a turn needs the agent whose calls they are, got {describe_value(agent)}")
    tools = ctx.tools
    store: object = thread.store
    if store is not tools.store:
        raise ValueError("the thread is in another store than the calls (open it from ctx.tools.store)")
    assistant = checked_messages(messages, "assistant message")
    call_ids, names = [call.call_id for call in calls], [call.name for call in calls]
    version, thread_id, seconds = thread.version, thread.thread_id, tools.lease_seconds
    lease = time.time() + seconds
    state, added = await thread.store.change_thread(
        thread_id,
        lambda now: turned(now, version, provider, agent.id, assistant, call_ids, names=names, owner=OWNER, lease_until=lease),
    )
    if calls:
        slots = [ThreadSlot(thread_id, state.steps, index) for index in range(len(calls))]
        keyed = [call.set(idempotency_key=derived_idempotency_key(thread_id, call.call_id), agent=agent) for call in calls]
        renewing = asyncio.get_running_loop().create_task(_hold_step(thread, state.steps, seconds))
        try:
            await execute_batch(tools, keyed, gates=tools.gates, thread_slots=slots)
        except BaseException:
            await _close_unstarted(thread, state.steps)  # a batch that ends whole settled or parked every call
            raise
        finally:
            renewing.cancel()
    found = await thread.store.read_thread(thread_id)
    if found is None:
        raise KeyError(f"thread {thread_id!r} is gone from the store (pruned while the turn ran)")
    return thread_of(thread.store, *found)


async def _hold_step(thread: Thread, number: int, seconds: float) -> None:
    """Renew this process's lease on the step while its calls run (a lapsed one lets ``recover`` settle calls no record names)."""
    while True:
        await asyncio.sleep(seconds / 3)
        until = time.time() + seconds
        try:
            await thread.store.change_thread(thread.thread_id, lambda now: leased(now, number, OWNER, until) or (now, ()))
        except Exception as error:  # noqa: BLE001 - the next renewal tries again; the calls go on
            _LOG.warning("renewing the lease on thread %r's step failed: %s", thread.thread_id, safe_str(error))


async def _close_unstarted(thread: Thread, number: int) -> None:
    """Settle as aborted the calls of step ``number`` that never started (the turn was cut short), filling their slots."""
    found = await thread.store.read_thread(thread.thread_id)
    store: object = thread.store
    if found is None or found[0].step is None or found[0].step.number != number or not isinstance(store, CallStore):
        return
    state = found[0]
    error = ToolAbortedError("the turn was cut short before this call ran, so it was not run", "ABORTED_BEFORE_DISPATCH")
    records = slot_records(state, open_slots(state), lambda name: error, "aborted", kind="unstarted")
    if records:
        await store.write(records, ())  # one commit: the slots fill, and the step's answer with the last
