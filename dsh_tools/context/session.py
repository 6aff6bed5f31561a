"""``SessionLog``: the append-only record of one agent's session, sent on to the call store.

``append`` stays synchronous (it is called from inside tool bodies and the
Code Mode bridge); each event is kept here for the live process and goes out
on the app's event bus as ``session/event`` (:data:`SESSION_EVENT`), where the
registry's call journal hears it and commits it with its next write, so an
event reaches the store no later than the record of the call that produced
it. The log names no service: whoever keeps session events listens.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Final

from dsh_tools.json_values import FrozenJson, frozen_or_raise

__all__ = ["SESSION_EVENT", "SessionLog"]

SESSION_EVENT: Final = "session/event"
"""The bus event each appended session event goes out as: ``(agent_id, type, data)``, unfiltered by scope."""


class SessionLog:
    """Append-only ``(type, data)`` events; data must be JSON and is stored frozen.

    Freezing at the boundary is what makes a replay see exactly what was
    appended, whatever the caller does to its own objects afterwards.
    """

    __slots__ = ("_events", "_publish")

    def __init__(self, publish: Callable[[str, FrozenJson], None] | None = None) -> None:
        self._events: list[tuple[str, FrozenJson]] = []
        self._publish = publish  # an agent's: sends the event out on the bus while the agent lives

    def append(self, type: str, data: object) -> None:  # noqa: A002 - the SPEC's name
        """Append one event; ``TypeError`` if ``type`` is not a str or ``data`` is not JSON."""
        if builtins.type(type) is not str or not type:  # exact: a str subclass carries state
            raise TypeError("a session event type must be a non-empty str")
        value = frozen_or_raise(data, lambda why: TypeError(f"session event {type!r} data is not JSON: {why}"))
        self._events.append((type, value))
        if self._publish is not None:
            self._publish(type, value)

    def events(self) -> list[tuple[str, FrozenJson]]:
        """All events so far in this process, in append order (a new list each call).

        The store keeps them across processes: ``await store.session_events(agent.id)``.
        """
        return list(self._events)

    def __len__(self) -> int:
        return len(self._events)
