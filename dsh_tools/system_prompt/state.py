"""The registrations behind one :class:`SystemPrompt`, shared by all its bound views.

Every contribution is stored with the scope it was made under (``None`` for
the global layer, else the ``Agent``). Adders validate first, then insert, and
return the exact undo (by identity, so removing a registration never touches a
later one of the same name); the service ties that undo to a context lifetime.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from dsh_tools.context.identity import IdentityDict
from dsh_tools.system_prompt.records import Preflight, PromptSection, ToolProvider

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent

__all__ = ["PromptState", "scope_label"]

T = TypeVar("T")
Undo = Callable[[], None]


def scope_label(scope: Agent | None) -> str:
    """How an error message names a layer."""
    return "globally" if scope is None else f"for agent {scope.name!r}"


class _Entry(Generic[T]):
    """One registration: its value, its scope and its global registration rank."""

    __slots__ = ("value", "scope", "rank")

    def __init__(self, value: T, scope: Agent | None, rank: int) -> None:
        self.value = value
        self.scope = scope
        self.rank = rank


class _Protection:
    __slots__ = ("sections", "tools")

    def __init__(self, sections: frozenset[str], tools: frozenset[str]) -> None:
        self.sections = sections
        self.tools = tools


class PromptState:
    """Sections by layer, providers, preflight checks and protections."""

    __slots__ = ("tool_order", "_layers", "_providers", "_preflights", "_protections", "_ranks")

    def __init__(self, tool_order: tuple[str, ...] | None) -> None:
        self.tool_order = tool_order
        # By identity: an agent's own __hash__/__eq__ never decide whose layer is whose.
        self._layers: IdentityDict[Agent | None, dict[str, _Entry[PromptSection]]] = IdentityDict()
        self._providers: list[_Entry[ToolProvider]] = []
        self._preflights: list[_Entry[Preflight]] = []
        self._protections: list[_Entry[_Protection]] = []
        self._ranks = itertools.count()

    # -- sections --------------------------------------------------------
    def add_section(self, scope: Agent | None, section: PromptSection) -> Undo:
        """File ``section`` in ``scope``'s layer (loud on duplicates and protected shadows)."""
        name = section.name
        layer = self._layers.get(scope, {})
        if name in layer:
            hint = "; register it through agent.ctx to shadow it for one agent" if scope is None else ""
            raise ValueError(f"prompt section {name!r} is already registered {scope_label(scope)}{hint}")
        if scope is not None and name in self._protected(None, sections=True):
            raise ValueError(
                f"prompt section {name!r} is protected globally, so agent {scope.name!r} cannot shadow it"
            )
        entry = _Entry(section, scope, next(self._ranks))
        self._layers.setdefault(scope, {})[name] = entry

        def undo() -> None:
            current = self._layers.get(scope)
            if current is not None and current.get(name) is entry:
                del current[name]
                if not current:
                    del self._layers[scope]

        return undo

    def visible_sections(self, scope: Agent | None) -> list[PromptSection]:
        """Global ∪ ``scope``'s sections, the scope's shadowing same-named globals,
        in ascending order (ties by registration)."""
        merged = dict(self._layers.get(None, {}))
        if scope is not None:
            merged.update(self._layers.get(scope, {}))
        entries = sorted(merged.values(), key=lambda entry: (entry.value.order, entry.rank))
        return [entry.value for entry in entries]

    # -- providers and preflight checks ------------------------------------
    def add_provider(self, scope: Agent | None, provider: ToolProvider) -> Undo:
        return _append(self._providers, _Entry(provider, scope, next(self._ranks)))

    def providers(self, scope: Agent | None) -> list[ToolProvider]:
        """Global providers and ``scope``'s, in registration order."""
        return _heard_by(self._providers, scope)

    def add_preflight(self, scope: Agent | None, check: Preflight) -> Undo:
        return _append(self._preflights, _Entry(check, scope, next(self._ranks)))

    def preflights(self, scope: Agent | None) -> list[Preflight]:
        """Global checks and ``scope``'s, in registration order."""
        return _heard_by(self._preflights, scope)

    # -- protections -----------------------------------------------------
    def add_protection(self, scope: Agent | None, sections: frozenset[str], tools: frozenset[str]) -> Undo:
        """Protect names for ``scope``'s assemblies (loud when a scope already shadows one)."""
        if scope is None:
            for name in sorted(sections):
                for layer_scope, layer in self._layers.items():
                    if layer_scope is not None and name in layer:
                        raise ValueError(
                            f"cannot protect prompt section {name!r} globally: "
                            f"agent {layer_scope.name!r} already shadows it"
                        )
        return _append(self._protections, _Entry(_Protection(sections, tools), scope, next(self._ranks)))

    def protected(self, scope: Agent | None) -> tuple[frozenset[str], frozenset[str]]:
        """(section names, tool names) protected in ``scope``'s assemblies (global ones included)."""
        return self._protected(scope, sections=True), self._protected(scope, sections=False)

    def _protected(self, scope: Agent | None, *, sections: bool) -> frozenset[str]:
        names: set[str] = set()
        for protection in _heard_by(self._protections, scope):
            names.update(protection.sections if sections else protection.tools)
        return frozenset(names)


def _append(entries: list[_Entry[T]], entry: _Entry[T]) -> Undo:
    entries.append(entry)

    def undo() -> None:
        for index, candidate in enumerate(entries):
            if candidate is entry:
                del entries[index]
                return

    return undo


def _heard_by(entries: list[_Entry[T]], scope: Agent | None) -> list[T]:
    return [entry.value for entry in entries if entry.scope is None or entry.scope is scope]
