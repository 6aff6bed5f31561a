"""Stand-ins: on a worker, one agent per calling agent id, acting with the call's mode and restrictions.

A queued call names its agent by id; the worker has no such agent object, and
a Code Mode program's sub-calls must run as *that* agent (its journal rows and
its parked calls carry its id, and a resume in the caller's process finds the
live agent by that id). So the worker keeps one stand-in :class:`Agent` per
agent id, with the caller's name, presenting its tools as the caller's agent
does (``present_as``), and restricted as the call says. A later call of the
same agent with other restrictions or another mode replaces them, but never
under a call still running: it waits until the stand-in is idle (calls with
the same restrictions and mode share it meanwhile, unless a call wanting
others already waits). So a call never runs with another call's restrictions.
Restriction names the worker does not know are dropped: a tool it lacks is
invisible anyway, and a call of one settles ``TOOL_MISMATCH`` before anything
runs.

The worker keeps at most ``limit`` stand-ins; past that, idle ones are
disposed, oldest first.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from dsh_tools.context.context import Agent, Context
from dsh_tools.dbos.codec import Request, Restrictions
from dsh_tools.disposer import Disposer
from dsh_tools.registry.registry import ToolMode

__all__ = ["StandIns"]

DEFAULT_LIMIT: Final = 1024

_Setup = tuple[str, Restrictions]
"""A call's mode and restrictions: what a stand-in is set up as."""


class _StandIn:
    __slots__ = ("agent", "mode", "mode_undo", "restrictions", "restriction_undos", "busy", "waiting", "sleepers")

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.mode = "native"
        self.mode_undo: Disposer | None = None
        self.restrictions: Restrictions = ()
        self.restriction_undos: list[Disposer] = []
        self.busy = 0
        """Calls running as this stand-in now (all with its current mode and restrictions)."""
        self.waiting: Counter[_Setup] = Counter()
        """The setups calls wait for (a call wanting the current one waits too while another setup is wanted)."""
        self.sleepers: list[asyncio.Future[None]] = []
        """Calls waiting for it to change, each woken to look again."""

    @property
    def held(self) -> int:
        """Calls running or waiting to run as it (it is not evicted while any is)."""
        return self.busy + self.waiting.total()

    def wake(self) -> None:
        """Wake every waiting call, in the order they came, to look again (no lock: nothing here awaits)."""
        sleepers, self.sleepers = self.sleepers, []
        for woken in sleepers:
            if not woken.done():
                woken.set_result(None)

    def may_act(self, setup: _Setup) -> bool:
        """Whether a call wanting ``setup`` may run as this stand-in now (its own ``waiting`` entry already counted)."""
        if self.busy == 0:
            return True
        if (self.mode, self.restrictions) != setup:
            return False
        return all(wanted == setup for wanted in self.waiting)


class StandIns:
    """The worker's stand-in agents (see the module docstring)."""

    def __init__(self, ctx: Context, *, limit: int = DEFAULT_LIMIT) -> None:
        self._ctx = ctx
        self._limit = limit
        self._agents: dict[str, _StandIn] = {}

    def __len__(self) -> int:
        return len(self._agents)

    @asynccontextmanager
    async def acting(self, request: Request) -> AsyncIterator[Agent | None]:
        """The stand-in for ``request``'s agent, set up as the call says, kept so while the call uses it.

        While other calls run as it with another mode or other restrictions,
        this waits for them to finish (see the module docstring).
        """
        if request.agent_id is None:
            yield None
            return
        entry = self._entry(request.agent_id, request.agent_name)
        setup: _Setup = (request.mode, request.restrictions)
        entry.waiting[setup] += 1
        try:
            while not entry.may_act(setup):
                woken = asyncio.get_running_loop().create_future()
                entry.sleepers.append(woken)
                await woken
        finally:
            entry.waiting[setup] -= 1
            if entry.waiting[setup] == 0:
                del entry.waiting[setup]
                entry.wake()  # calls held back by this setup's wait may go now
        if entry.busy == 0:
            self._present(entry, request.mode)
            self._restrict(entry, request.restrictions)
        entry.busy += 1
        try:
            yield entry.agent
        finally:
            entry.busy -= 1
            if entry.busy == 0:
                entry.wake()

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
            if entry.held == 0:
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
