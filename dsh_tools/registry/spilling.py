"""The registry's side of spilling: its limit, where a whole text goes, and when ``read_result`` is served.

``ToolRegistry(max_inline_bytes=...)`` bounds the text of every result the
model reads (a tool's own ``max_inline_bytes`` wins for its results); the
cut itself is a pipeline step (``pipeline/spill.py``) that asks the registry
for the limit and hands it the whole text (:meth:`Spilling.keep`), which goes
to the call store under a fresh locator. The store must keep spilled values
(:class:`~dsh_tools.store.spilled.SpillStore`): that is checked when the
registry is made with a limit (``ValueError``), and when a tool with one is registered.

``read_result`` is served to an agent once anything it may call can spill:
the registry has a limit, or one of the agent's tools has its own (known per
agent view, so a registry that never spills offers no extra tool).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dsh_tools.code_mode import READ_RESULT_NAME
from dsh_tools.registry.read_result import make_read_result
from dsh_tools.store.spilled import SpillStore, mint_locator
from dsh_tools.tool_types import RegisteredTool, check_max_inline_bytes

if TYPE_CHECKING:
    from dsh_tools.registry.layers import ScopeView
    from dsh_tools.call_store import CallStore

__all__ = ["RESERVED_READER", "Spilling"]

RESERVED_READER: Final = f'"{READ_RESULT_NAME}" is the reserved reader of spilled results'
_SPILLS: Final = "spills"


class Spilling:
    """A registry's limit, its ``read_result`` tool, and the keeping of whole texts."""

    __slots__ = ("limit", "_store", "_reader")

    def __init__(self, limit: int | None, store: Callable[[], CallStore]) -> None:
        self.limit = check_max_inline_bytes(limit)
        self._store = store
        if self.limit is not None:
            check_store(store(), "max_inline_bytes")
        self._reader: RegisteredTool | None = None

    def reader(self) -> RegisteredTool:
        """The ``read_result`` tool (made on first need)."""
        if self._reader is None:
            self._reader = make_read_result(self._store)
        return self._reader

    def served(self, view: ScopeView) -> RegisteredTool | None:
        """``read_result`` for an agent whose view may spill, else ``None`` (memoised on the view)."""
        spills = view.memo.get(_SPILLS)
        if spills is None:
            spills = view.memo[_SPILLS] = self.limit is not None or any(
                tool.max_inline_bytes is not None for tool in view.tools
            )
        return self.reader() if spills else None

    def admit(self, tool: RegisteredTool) -> None:
        """Registration's check: ``read_result`` is reserved, and a tool's own limit needs a store that spills."""
        if tool.name == READ_RESULT_NAME:
            raise ValueError(RESERVED_READER)
        if tool.max_inline_bytes is not None:
            check_store(self._store(), f'tool "{tool.name}" with max_inline_bytes')

    async def keep(self, agent_id: str, text: str) -> str:
        """Keep ``text`` for ``agent_id`` in the store; its locator. A failure is counted on the store, then raised."""
        store = self._store()
        if not isinstance(store, SpillStore):
            raise TypeError(f"{type(store).__name__} keeps no spilled results")
        locator = mint_locator()
        try:
            await store.keep_spilled(locator, agent_id, text)
        except Exception as error:
            store.note_failure(error)
            raise
        return locator


def check_store(store: CallStore, what: str) -> None:
    """``ValueError`` unless ``store`` keeps spilled values (checked where spilling is configured)."""
    if not isinstance(store, SpillStore):
        raise ValueError(
            f"{what} needs a store that keeps spilled results (SpillStore: MemoryStore, SqliteStore and "
            f"PostgresStore do); {type(store).__name__} does not"
        )
