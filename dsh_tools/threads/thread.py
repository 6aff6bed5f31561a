"""``Thread`` and ``open_thread``: a conversation kept in the call store, beside the calls that answer into it.

A parked call outlives its process; so must the conversation that asked for
it, or the approved result has nowhere to go. A :class:`Thread` is that
conversation: provider-shaped messages, oldest first, in the same store as
the calls (memory, SQLite or PostgreSQL), read and changed by any process.

Every change is one atomic commit against the version the caller read:
``append`` on a stale thread raises :class:`ThreadConflictError` (another
process appended first: open it again), and on a thread whose step has not
settled :class:`ThreadWaitingError`; neither changes anything. A model turn
goes in through the adapters (``run_chat_turn``, ``run_responses_turn``,
``anthropic.run_turn``: :mod:`.turn`), which commit the assistant's message
verbatim and let each tool call's settlement fill its slot; the step's answer
is appended once, by whichever process settles its last call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from dsh_tools.json_values import FrozenJson, thaw_json
from dsh_tools.record import Record
from dsh_tools.store.protocol import ThreadStore
from dsh_tools.store.thread_state import (
    ThreadConflictError,
    ThreadState,
    ThreadStatus,
    ThreadWaitingError,
    appended,
    checked_messages,
)
from dsh_tools.tool_types import describe_value

if TYPE_CHECKING:
    from anthropic.types import MessageParam
    from openai.types.chat import ChatCompletionMessageParam
    from openai.types.responses import ResponseInputItemParam

__all__ = ["Thread", "ThreadConflictError", "ThreadWaitingError", "open_thread", "thread_of"]


class Thread(Record):
    """A thread as read: frozen; ``append`` and the adapters' turns return the next one.

    ``provider`` and ``agent_id`` are taken from its first turn (``None``
    before one). ``status`` is ``"ready"`` with no open step, ``"waiting"``
    when every unsettled call of the open step waits for approval
    (``waiting_on`` holds their approval ids), else ``"running"``;
    ``pending_calls`` are the open step's unsettled call ids. ``messages``
    never holds a partial step.
    """

    _wire_skip = frozenset({"store"})
    thread_id: str
    provider: str | None
    agent_id: str | None
    messages: tuple[FrozenJson, ...]
    version: int
    status: ThreadStatus
    pending_calls: tuple[str, ...]
    waiting_on: tuple[str, ...]
    store: ThreadStore

    @property
    def wants_reply(self) -> bool:
        """Whether the model is owed a turn: the thread is ready and its last message is not the assistant's."""
        if self.status != "ready" or not self.messages:
            return False
        last = self.messages[-1]
        return not (hasattr(last, "get") and last.get("role") == "assistant")  # type: ignore[union-attr]

    async def append(self, *messages: object) -> Thread:
        """Append ``messages`` (JSON objects in the thread's provider shape) in one commit; the thread after it.

        ``ThreadConflictError`` when the thread changed since this one was
        read, ``ThreadWaitingError`` when it is not ready, ``ValueError`` for
        a message that is not a JSON object or is too large, ``KeyError`` for
        a thread the store no longer has: each changes nothing.
        """
        if not messages:
            raise ValueError("append() needs at least one message")
        checked = checked_messages(messages)
        version = self.version
        state, added = await self.store.change_thread(self.thread_id, lambda now: appended(now, version, checked))
        return thread_of(self.store, state, (*self.messages, *added))

    def chat_messages(self) -> list[ChatCompletionMessageParam]:
        """The messages as Chat Completions params (``ValueError`` on another provider's thread)."""
        return cast("list[ChatCompletionMessageParam]", self._thawed("openai-chat"))

    def responses_input(self) -> list[ResponseInputItemParam]:
        """The messages as a Responses ``input`` (the whole conversation; ``ValueError`` on another provider's thread)."""
        return cast("list[ResponseInputItemParam]", self._thawed("openai-responses"))

    def anthropic_messages(self) -> list[MessageParam]:
        """The messages as Anthropic Messages params (``ValueError`` on another provider's thread)."""
        return cast("list[MessageParam]", self._thawed("anthropic"))

    def _thawed(self, provider: str) -> list[Any]:
        if self.provider is not None and self.provider != provider:
            raise ValueError(f"thread {self.thread_id!r} holds {self.provider} messages, not {provider}")
        return [thaw_json(message) for message in self.messages]


def thread_of(store: ThreadStore, state: ThreadState, messages: tuple[FrozenJson, ...]) -> Thread:
    """The ``Thread`` a store's state and messages describe."""
    return Thread(
        state.thread_id, state.provider, state.agent_id, messages, state.version, state.status,
        state.pending_calls, state.waiting_on, store,
    )


async def open_thread(store: object, thread_id: str) -> Thread:
    """The thread ``thread_id`` in ``store`` (the call store: ``ctx.tools.store``), created empty on first open.

    Two processes opening a new id get one thread. ``TypeError`` for a store
    that keeps no threads; ``ValueError`` for an id no store can key (empty,
    longer than 200 characters, holding NUL or a lone surrogate).
    """
    if not isinstance(store, ThreadStore):
        raise TypeError(f"open_thread() takes a store that keeps threads (ctx.tools.store), got {describe_value(store)}")
    state, messages = await store.open_thread(thread_id)
    return thread_of(store, state, messages)
