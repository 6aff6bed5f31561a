"""``Disposer``: the undo handle every registration returns."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Disposer"]


class Disposer:
    """A sync, idempotent undo action (what every ``register``/``on`` returns)."""

    __slots__ = ("_action", "__weakref__")

    def __init__(self, action: Callable[[], None] | None) -> None:
        self._action = action

    def __call__(self) -> None:
        action, self._action = self._action, None
        if action is not None:
            action()

    @property
    def disposed(self) -> bool:
        """Whether this disposer has run."""
        return self._action is None
