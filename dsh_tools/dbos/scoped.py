"""Why an agent cannot send its programs to a queue: parts a worker cannot have.

A queued ``run_code`` call runs its program on a worker, where its sub-calls
go through the worker's pipeline as a stand-in of the calling agent. The
stand-in has the worker's tools and policy, and the caller's restrictions;
it cannot have what was registered for that one agent object in the calling
process (its own tools, guards and call listeners): those are code in that
process. Letting such an agent's programs run elsewhere would drop that
policy silently, so it is refused where it is set up, as a ``ValueError``
naming the parts:

* a change to the registry (a scoped ``register``, ``present_as``) is vetoed
  through ``tools/change``, whose listener may refuse a change;
* a scoped call listener or guard is vetoed by the bus's scope check
  (``EventBus.check_scope``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.context.context import Agent, live_agents
from dsh_tools.context.events import CALL_EVENTS
from dsh_tools.dbos.seam import route_of

if TYPE_CHECKING:
    from dsh_tools.context.ports import ToolsPort

__all__ = ["refuse_scoped_parts", "scoped_parts"]

def scoped_parts(registry: ToolsPort, agent: Agent) -> list[str]:
    """What ``agent`` has of its own that a worker's stand-in could not have (empty: nothing)."""
    parts = [f"tool {tool.name}" for tool in registry.end_capabilities(agent) if registry.resolve(tool.name, None) is not tool]
    guards = registry.guards_for(agent)[len(registry.guards_for(None)) :]
    parts.extend(f"guard {_name(guard)}" for guard in guards)
    events = registry.events
    for event in CALL_EVENTS:
        shared = set(map(id, events.listeners(event, None)))
        parts.extend(f"{event} listener {_name(fn)}" for fn in events.listeners(event, agent) if id(fn) not in shared)
    return parts


def _name(fn: object) -> str:
    return str(getattr(fn, "__qualname__", None) or type(fn).__name__)


def check_agent(registry: ToolsPort, agent: Agent) -> None:
    """``ValueError`` if ``agent`` presents code (so calls ``run_code``), that goes to a queue, and it has scoped parts."""
    routes = registry.routes
    queue = route_of(routes, RUN_CODE_NAME) if routes else None
    if queue is None or agent.ctx.disposed or registry.mode_for(agent) == "native":
        return
    parts = scoped_parts(registry, agent)
    if parts:
        raise ValueError(
            f'agent {agent.name!r} sends its run_code programs to queue "{queue}", where a worker runs their '
            f"calls without what was registered for this agent alone: {', '.join(parts)}; register them globally "
            "(in the worker's modules too) or route run_code to None"
        )


def refuse_scoped_parts(registry: ToolsPort) -> None:
    """Install both vetoes on ``registry``'s context (see the module docstring)."""
    ctx = registry.context

    def on_change() -> None:
        for agent in live_agents(ctx):
            check_agent(registry, agent)

    def on_scoped_listener(scope: object) -> None:
        if type(scope) is Agent:
            check_agent(registry, scope)

    ctx.on("tools/change", on_change)
    events = ctx.events
    events.scope_checks = (*events.scope_checks, on_scoped_listener)

    def withdraw() -> None:
        events.scope_checks = tuple(check for check in events.scope_checks if check is not on_scoped_listener)

    ctx.track(withdraw)
