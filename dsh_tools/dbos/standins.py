"""Stand-ins: on a worker, one agent per calling agent id, acting with the call's mode and restrictions.

A queued call names its agent by id; the worker has no such agent object, and
a Code Mode program's sub-calls must run as *that* agent (its journal rows and
its parked calls carry its id, and a resume in the caller's process finds the
live agent by that id). So the worker keeps one stand-in :class:`Agent` per
agent id, with the caller's name, presenting its tools as the caller's agent
does (``present_as``), and restricted as the call says. A later call of the
same agent with other restrictions replaces them. Restriction names the
worker does not know are dropped: a tool it lacks is invisible anyway, and a
call of one settles ``TOOL_MISMATCH`` before anything runs.

The worker keeps at most ``limit`` stand-ins; past that, idle ones are
disposed, oldest first.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from dsh_tools.context.context import Agent, Context
from dsh_tools.dbos.codec import Request, Restrictions
from dsh_tools.disposer import Disposer
from dsh_tools.registry.registry import ToolMode

__all__ = ["StandIns"]

DEFAULT_LIMIT: Final = 1024


class _StandIn:
    __slots__ = ("agent", "mode", "mode_undo", "restrictions", "restriction_undos", "busy")

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.mode = "native"
        self.mode_undo: Disposer | None = None
        self.restrictions: Restrictions = ()
        self.restriction_undos: list[Disposer] = []
        self.busy = 0


class StandIns:
    """The worker's stand-in agents (see the module docstring)."""

    def __init__(self, ctx: Context, *, limit: int = DEFAULT_LIMIT) -> None:
        self._ctx = ctx
        self._limit = limit
        self._agents: dict[str, _StandIn] = {}

    def __len__(self) -> int:
        return len(self._agents)

    @contextmanager
    def acting(self, request: Request) -> Iterator[Agent | None]:
        """The stand-in for ``request``'s agent, set up as the call says, kept while the call uses it."""
        if request.agent_id is None:
            yield None
            return
        entry = self._entry(request.agent_id, request.agent_name)
        self._present(entry, request.mode)
        self._restrict(entry, request.restrictions)
        entry.busy += 1
        try:
            yield entry.agent
        finally:
            entry.busy -= 1

    def _entry(self, agent_id: str, name: str | None) -> _StandIn:
        entry = self._agents.pop(agent_id, None)
        if entry is None or entry.agent.ctx.disposed:
            self._evict()
            entry = _StandIn(Agent(self._ctx, name=name or agent_id, id=agent_id))
        self._agents[agent_id] = entry  # newest last
        return entry

    def _evict(self) -> None:
        if len(self._agents) < self._limit:
            return
        for agent_id, entry in list(self._agents.items()):
            if entry.busy == 0:
                del self._agents[agent_id]
                entry.agent.ctx._dispose_now()
                if len(self._agents) < self._limit:
                    return

    def _present(self, entry: _StandIn, mode: str) -> None:
        if mode == entry.mode:
            return
        if entry.mode_undo is not None:
            entry.mode_undo()
            entry.mode_undo = None
        if mode in ("code", "both"):
            wanted: ToolMode = "code" if mode == "code" else "both"
            entry.mode_undo = entry.agent.ctx.tools.present_as(wanted)
        entry.mode = mode

    def _restrict(self, entry: _StandIn, restrictions: Restrictions) -> None:
        if restrictions == entry.restrictions:
            return
        for undo in entry.restriction_undos:
            undo()
        entry.restriction_undos = []
        tools = entry.agent.ctx.tools
        known = set(tools.known_names(entry.agent))
        for allow, deny in restrictions:
            kept_allow = None if allow is None else [name for name in allow if name in known]
            kept_deny = [name for name in deny if name in known]
            entry.restriction_undos.append(tools.restrict(allow=kept_allow, deny=kept_deny))
        entry.restrictions = restrictions
