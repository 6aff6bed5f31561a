"""``ServiceKey``: a typed service slot, below everything that provides or reads one.

A key is defined by its service's contract (``context/ports.py`` for the
registry and the prompt, ``code_runtime.py`` for a Code Mode runtime,
``approval.py``'s service through ``context/services.py``); the context that
stores services needs only this class, so no floor has to import another to
name a key.
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["ServiceKey"]

T = TypeVar("T")


class ServiceKey(Generic[T]):
    """A typed service slot: ``ctx.get(TOOLS)`` is a ``ToolRegistry | None``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ServiceKey({self.name!r})"
