"""``SessionLog``: the append-only record of one agent's session, sent on to the call store.

``append`` stays synchronous (it is called from inside tool bodies and the
Code Mode bridge); each event is kept here for the live process and handed
to the registry's call journal, which commits it with the next journal write,
so an event reaches the store no later than the record of the call that
produced it.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from dsh_tools.json_values import FrozenJson, frozen_or_raise

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent

__all__ = ["SessionLog"]


class SessionLog:
    """Append-only ``(type, data)`` events; data must be JSON and is stored frozen.

    Freezing at the boundary is what makes a replay see exactly what was
    appended, whatever the caller does to its own objects afterwards.
    """

    __slots__ = ("_events", "_agent")

    def __init__(self, agent: Agent | None = None) -> None:
        self._events: list[tuple[str, FrozenJson]] = []
        self._agent = agent

    def append(self, type: str, data: object) -> None:  # noqa: A002 - the SPEC's name
        """Append one event; ``TypeError`` if ``type`` is not a str or ``data`` is not JSON."""
        if builtins.type(type) is not str or not type:  # exact: a str subclass carries state
            raise TypeError("a session event type must be a non-empty str")
        value = frozen_or_raise(data, lambda why: TypeError(f"session event {type!r} data is not JSON: {why}"))
        self._events.append((type, value))
        agent = self._agent
        if agent is not None:
            from dsh_tools.context.services import TOOLS

            tools = agent.ctx.get(TOOLS) if not agent.ctx.disposed else None
            if tools is not None:
                tools.record_event(agent.id, type, value)

    def events(self) -> list[tuple[str, FrozenJson]]:
        """All events so far in this process, in append order (a new list each call).

        The store keeps them across processes: ``await store.session_events(agent.id)``.
        """
        return list(self._events)

    def __len__(self) -> int:
        return len(self._events)
