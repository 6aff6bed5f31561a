"""The registry's state: a global layer, per-agent layers, restrictions, guards.

Resolution rules live here and nowhere else. For a scope (an agent):

* its own tools always count (explicit grants bypass restrictions), and a
  scoped tool takes the place of its same-named global twin (shadowing);
* a global tool counts when every restriction of that scope lets it through
  (``allow`` lists intersect, ``deny`` lists add up).

``visible`` and ``resolve`` read one cached view per scope, rebuilt only after a
change, so dispatch never walks the layers.

It lives below the context and the registry (``dsh_tools.registry.layers``
re-exports it): ``ctx.tools.layers`` is typed by it, and ``ctx.tools``'s
contract (``context/ports.py``) must not import the registry package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from dsh_tools.context.identity import IdentityDict, WeakIdentityDict
from dsh_tools.tool_types import RegisteredTool

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent
    from dsh_tools.seams import Guard

__all__ = ["Restriction", "ScopeView", "ToolLayers"]


class Restriction:
    """One ``restrict()`` call, snapshotted: ``allow`` (or ``None``) and ``deny``."""

    __slots__ = ("allow", "deny")

    def __init__(self, allow: frozenset[str] | None, deny: frozenset[str]) -> None:
        self.allow = allow
        self.deny = deny

    def admits(self, name: str) -> bool:
        return (self.allow is None or name in self.allow) and name not in self.deny


class ScopeView:
    """What one scope sees: its end capabilities in order, by name, and their schemas.

    A view lives until the next change to the layers, so anything derived from
    it (the Code Mode SDK text) can be memoised in ``memo`` without going stale.
    """

    __slots__ = ("tools", "by_name", "schemas", "memo")

    def __init__(self, tools: tuple[RegisteredTool, ...]) -> None:
        self.tools = tools
        self.by_name = {tool.name: tool for tool in tools}
        self.schemas = tuple(tool.schema for tool in tools)
        self.memo: dict[str, object] = {}


class ToolLayers:
    """Mutable layered state; every mutation drops the per-scope views.

    Scopes are keyed by identity (``host/identity.py``): an agent's
    ``__hash__``/``__eq__`` are never consulted.
    """

    def __init__(self) -> None:
        self.global_tools: dict[str, RegisteredTool] = {}
        self.scoped: IdentityDict[Agent, dict[str, RegisteredTool]] = IdentityDict()
        self.restrictions: IdentityDict[Agent, list[Restriction]] = IdentityDict()
        self.global_guards: list[Guard] = []
        self.scoped_guards: IdentityDict[Agent, list[Guard]] = IdentityDict()
        self._global_view: ScopeView | None = None
        # Weak keys: an agent that is gone must not be kept alive by a cache.
        self._agent_views: WeakIdentityDict[Agent, ScopeView] = WeakIdentityDict()
        self.version = 0
        """Counts the changes: what follows the layers (a catalog index) knows when to look again."""

    def _drop_views(self) -> None:
        self._global_view = None
        self._agent_views.clear()
        self.version += 1

    # -- mutation ---------------------------------------------------------
    def layer(self, scope: Agent | None) -> dict[str, RegisteredTool]:
        return self.global_tools if scope is None else self.scoped.setdefault(scope, {})

    def add_tool(self, scope: Agent | None, tool: RegisteredTool) -> Callable[[], bool]:
        """File ``tool``; returns the action removing exactly it (``True`` if it was there)."""
        layer = self.layer(scope)
        layer[tool.name] = tool
        self._drop_views()

        def remove() -> bool:
            if layer.get(tool.name) is not tool:
                return False
            del layer[tool.name]
            if scope is not None and not layer:
                self.scoped.pop(scope, None)
            self._drop_views()
            return True

        return remove

    def add_restriction(self, scope: Agent, restriction: Restriction) -> Callable[[], bool]:
        entries = self.restrictions.setdefault(scope, [])
        entries.append(restriction)
        self._drop_views()

        def lift() -> bool:
            if restriction not in entries:
                return False
            entries.remove(restriction)
            if not entries:
                self.restrictions.pop(scope, None)
            self._drop_views()
            return True

        return lift

    def add_guard(self, scope: Agent | None, guard: Guard) -> Callable[[], None]:
        guards = self.global_guards if scope is None else self.scoped_guards.setdefault(scope, [])
        guards.append(guard)

        def remove() -> None:
            # By identity: the same function registered twice is two entries, removed one each.
            for index, candidate in enumerate(guards):
                if candidate is guard:
                    del guards[index]
                    break
            if scope is not None and not guards:
                self.scoped_guards.pop(scope, None)

        return remove

    # -- reading ----------------------------------------------------------
    def view(self, scope: Agent | None) -> ScopeView:
        if scope is None:
            if self._global_view is None:
                self._global_view = ScopeView(self._compose(None))
            return self._global_view
        cached = self._agent_views.get(scope)
        if cached is None:
            cached = self._agent_views[scope] = ScopeView(self._compose(scope))
        return cached

    def _compose(self, scope: Agent | None) -> tuple[RegisteredTool, ...]:
        own = self.scoped.get(scope, {}) if scope is not None else {}
        limits = self.restrictions.get(scope, []) if scope is not None else []
        out: list[RegisteredTool] = []
        for name, tool in self.global_tools.items():
            if name in own:
                out.append(own[name])
            elif all(limit.admits(name) for limit in limits):
                out.append(tool)
        out.extend(tool for name, tool in own.items() if name not in self.global_tools)
        return tuple(out)

    def every_tool(self) -> list[RegisteredTool]:
        """Every tool of every layer (global, then each agent's), restrictions aside."""
        tools = list(self.global_tools.values())
        for layer in self.scoped.values():
            tools.extend(layer.values())
        return tools

    def known_names(self, scope: Agent | None) -> list[str]:
        """The pre-restriction universe: every global name, then the scope's own."""
        names = list(self.global_tools)
        if scope is not None:
            names.extend(n for n in self.scoped.get(scope, {}) if n not in self.global_tools)
        return names

    def guards_for(self, scope: Agent | None) -> Sequence[Guard]:
        if scope is None or scope not in self.scoped_guards:
            return self.global_guards
        return [*self.global_guards, *self.scoped_guards[scope]]
