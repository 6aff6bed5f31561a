"""``SessionLog``: the durable, append-only record of one agent's session."""

from __future__ import annotations

import builtins

from returns.result import Failure

from dsh_tools.json_values import FrozenJson, freeze_json

__all__ = ["SessionLog"]


class SessionLog:
    """Append-only ``(type, data)`` events; data must be JSON and is stored frozen.

    Freezing at the boundary is what makes a replay see exactly what was
    appended, whatever the caller does to its own objects afterwards.
    """

    __slots__ = ("_events",)

    def __init__(self) -> None:
        self._events: list[tuple[str, FrozenJson]] = []

    def append(self, type: str, data: object) -> None:  # noqa: A002 - the SPEC's name
        """Append one event; ``TypeError`` if ``type`` is not a str or ``data`` is not JSON."""
        if builtins.type(type) is not str or not type:  # exact: a str subclass carries state
            raise TypeError("a session event type must be a non-empty str")
        frozen = freeze_json(data)
        if isinstance(frozen, Failure):
            raise TypeError(f"session event {type!r} data is not JSON: {frozen.failure()}")
        self._events.append((type, frozen.unwrap()))

    def events(self) -> list[tuple[str, FrozenJson]]:
        """All events so far, in append order (a new list each call)."""
        return list(self._events)

    def __len__(self) -> int:
        return len(self._events)
