"""The conversation is durable too: threads kept in the call store, beside the calls that answer into them.

``await open_thread(store, thread_id)`` gives a :class:`Thread` (created
empty on first open); ``await thread.append(*messages)`` adds a user's
turn; the provider adapters run a model turn into it
(``dsh_tools.adapters.openai.run_chat_turn``, ``run_responses_turn``,
``dsh_tools.adapters.anthropic.run_turn``), and any process that settles one
of the turn's calls (a resume after a restart, a denial, an expiry, a
recovery) fills its slot. ``thread.chat_messages()``,
``thread.responses_input()`` and ``thread.anthropic_messages()`` are the
SDKs' param types, ready for the next request. See ``docs/durability.md``.
"""

from dsh_tools.threads.thread import Thread, ThreadConflictError, ThreadWaitingError, open_thread

__all__ = ["Thread", "ThreadConflictError", "ThreadWaitingError", "open_thread"]
