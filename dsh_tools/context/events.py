"""The app-wide event bus: ordered, scope-filtered listener lists.

Listeners are stored once per event name with the scope they were registered
under. ``listeners(name, scope)`` answers "who hears a call made by this agent":
every global listener plus that agent's own, in composition order. The answer
is cached per (name, scope) and the cache is dropped on any change, so the hot
path of ``execute`` does no filtering.

Call probes (:mod:`dsh_tools.context.probes`) are a typed listener kind kept
on the same bus: ``add_probe`` files one under each hook it hears, and a
call's plan reads them with its listener chains (:meth:`EventBus.call_chains`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from dsh_tools.context.identity import WeakIdentityDict
from dsh_tools.context.probes import PROBE_HOOKS, CallProbe, ProbeHook

__all__ = ["CALL_EVENTS", "PROBE_HOOKS", "CallChains", "EventBus", "ProbeHook"]


class _Entry:
    __slots__ = ("listener", "scope")

    def __init__(self, listener: Callable[..., Any], scope: object) -> None:
        self.listener = listener
        self.scope = scope




CALL_EVENTS: Final = ("tools/pre-execute", "tools/execute", "tools/post-execute", "tools/result", "tools/progress")
"""The events one tool call's stages run, in pipeline order."""

_Chain = tuple[Callable[..., Any], ...]
CallChains = tuple[_Chain, _Chain, _Chain, _Chain, _Chain]
"""The listeners of each of :data:`CALL_EVENTS` for one scope."""


def _chains(bus: EventBus, scope: object) -> CallChains:
    pre, execute, post, result, progress = (bus.listeners(event, scope) for event in CALL_EVENTS)
    return pre, execute, post, result, progress


class EventBus:
    """Listener registry shared by all contexts of one root."""

    __slots__ = (
        "_entries", "_cache", "_scoped_cache", "_chains", "_global_chains", "probes", "hearing", "scope_checks", "memo",
    )

    def __init__(self) -> None:
        self.probes: tuple[CallProbe, ...] = ()
        """The call probes (:mod:`dsh_tools.context.probes`): the registry's journal, a tracer."""
        self.hearing: dict[ProbeHook, tuple[CallProbe, ...]] = dict.fromkeys(PROBE_HOOKS, ())
        """The probes by hook they hear, in the order added: what a stage tells."""
        self._entries: dict[str, list[_Entry]] = {}
        self._cache: dict[str, tuple[Callable[..., Any], ...]] = {}
        # Per-scope answers live under weak identity keys: a finished agent is not kept
        # alive, and an agent's own __hash__/__eq__ are never asked (scope is identity).
        self._scoped_cache: WeakIdentityDict[Any, dict[str, tuple[Callable[..., Any], ...]]] = WeakIdentityDict()
        self._chains: WeakIdentityDict[Any, CallChains] = WeakIdentityDict()
        self._global_chains: CallChains | None = None
        self.scope_checks: tuple[Callable[[object], None], ...] = ()
        """Told the scope of each listener added for one agent; one that raises refuses the listener (a plugin's veto)."""
        self.memo: dict[object, object] = {}
        """What readers derive from the listeners alone, kept between calls; emptied whenever the listeners change
        (a call plan keeps which ``tools/execute`` wrappers wrap a tool here)."""

    def add(self, name: str, listener: Callable[..., Any], scope: object, *, prepend: bool) -> Callable[[], None]:
        """Add a listener; returns the action that removes exactly this entry."""
        entry = _Entry(listener, scope)
        entries = self._entries.setdefault(name, [])
        if prepend:
            entries.insert(0, entry)
        else:
            entries.append(entry)
        self._forget()
        if scope is not None and self.scope_checks:
            try:
                self.check_scope(scope)
            except BaseException:
                entries.remove(entry)
                self._forget()
                raise

        def remove() -> None:
            try:
                entries.remove(entry)
            except ValueError:
                return
            self._forget()

        return remove

    def check_scope(self, scope: object) -> None:
        """Tell every scope check that ``scope`` (one agent) got a part of its own: a listener, a guard.

        A check that raises refuses the part; whoever added it takes it back.
        """
        for check in self.scope_checks:
            check(scope)

    def add_probe(self, probe: CallProbe) -> Callable[[], None]:
        """Add an internal stage probe; returns the action that removes exactly it."""
        self._set_probes((*self.probes, probe))

        def remove() -> None:
            self._set_probes(tuple(p for p in self.probes if p is not probe))

        return remove

    def _set_probes(self, probes: tuple[CallProbe, ...]) -> None:
        self.probes = probes
        self.hearing = {hook: tuple(p for p in probes if hook in p.hears) for hook in PROBE_HOOKS}

    def _forget(self) -> None:
        self.memo.clear()
        self._cache.clear()
        self._scoped_cache.clear()
        self._chains.clear()
        self._global_chains = None

    def call_chains(self, scope: object = None) -> CallChains:
        """The five listener chains a call of ``scope`` runs (:data:`CALL_EVENTS` order), in one cached answer.

        A call plan reads them once, at admission, instead of asking for each
        chain at each stage.
        """
        if scope is None:
            chains = self._global_chains
            if chains is None:
                chains = self._global_chains = _chains(self, None)
            return chains
        found = self._chains.get(scope)
        if found is None:
            found = self._chains[scope] = _chains(self, scope)
        return found

    def listeners(self, name: str, scope: object = None) -> tuple[Callable[..., Any], ...]:
        """Listeners that hear an event of ``scope`` (global ones + that scope's), outermost first."""
        cache = self._cache if scope is None else self._scoped_cache.get(scope)
        if cache is None:
            cache = self._scoped_cache[scope] = {}
        cached = cache.get(name)
        if cached is None:
            cached = tuple(e.listener for e in self._entries.get(name, ()) if e.scope is None or e.scope is scope)
            cache[name] = cached
        return cached

    def emit(self, name: str, *args: object) -> None:
        """Call every listener of an unfiltered notification, whatever its scope.

        Shared-state notifications (``tools/change``) concern every agent, so
        scope does not filter them. The first failure propagates.
        """
        for entry in list(self._entries.get(name, ())):
            entry.listener(*args)
