"""``ServiceKey``: a typed service slot, below everything that provides or reads one.

The keys themselves live with their contracts: ``TOOLS`` and ``SYSTEM_PROMPT``
in ``context/ports.py``, ``APPROVAL`` and ``CODE_RUNTIME`` in
``context/services.py`` (which re-exports all four). The context that stores
services needs only this class, so no floor has to import another to name a key.
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["ServiceKey"]

T = TypeVar("T")


class ServiceKey(Generic[T]):
    """A typed service slot: ``ctx.get(TOOLS)`` is a ``ToolsPort | None`` (the registry, typed by its contract)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ServiceKey({self.name!r})"
