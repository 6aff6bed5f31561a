"""Host: contexts as lifetimes, agents as scopes, app-wide services, scoped events."""

from __future__ import annotations

import functools
import logging

import pytest

from dsh_tools.disposer import Disposer
from dsh_tools.context import Agent, Context, ServiceKey, SessionLog, scope_of


class Counter:
    def __init__(self) -> None:
        self.value = 0


COUNTER: ServiceKey[Counter] = ServiceKey("counter")


class Registry:
    """A ContextBound service: ``bind`` hands out a view acting as the asking context."""

    def __init__(self, items: list[tuple[str, Agent | None]] | None = None, ctx: Context | None = None) -> None:
        self.items: list[tuple[str, Agent | None]] = [] if items is None else items
        self.ctx = ctx

    def bind(self, ctx: Context) -> Registry:
        return Registry(self.items, ctx)

    def add(self, item: str) -> Disposer:
        assert self.ctx is not None, "only bound views register"
        entry = (item, scope_of(self.ctx))
        self.items.append(entry)
        return self.ctx.track(lambda: self.items.remove(entry))


REGISTRY: ServiceKey[Registry] = ServiceKey("registry")


def noop() -> None:
    pass


# -- lifetimes -----------------------------------------------------------------


async def test_dispose_runs_tracked_actions_in_reverse_order_once() -> None:
    ctx = Context()
    order: list[int] = []
    for i in range(3):
        ctx.track(functools.partial(order.append, i))
    await ctx.dispose()
    await ctx.dispose()
    assert order == [2, 1, 0]
    assert ctx.disposed


async def test_early_disposer_runs_once_and_is_forgotten() -> None:
    ctx = Context()
    runs: list[str] = []
    disposer = ctx.track(lambda: runs.append("x"))
    disposer()
    disposer()
    await ctx.dispose()
    assert runs == ["x"] and disposer.disposed


async def test_forks_are_disposed_with_their_parent() -> None:
    root = Context()
    order: list[str] = []
    root.track(lambda: order.append("root-first"))
    child = root.fork()
    grandchild = child.fork()
    child.track(lambda: order.append("child"))
    grandchild.track(lambda: order.append("grandchild"))
    root.track(lambda: order.append("root-last"))
    await root.dispose()
    assert order == ["root-last", "child", "grandchild", "root-first"]
    assert child.disposed and grandchild.disposed


async def test_disposing_a_fork_leaves_the_parent_alive() -> None:
    root = Context()
    child = root.fork()
    runs: list[str] = []
    child.track(lambda: runs.append("child"))
    await child.dispose()
    assert runs == ["child"] and not root.disposed
    root.track(noop)  # still usable
    await root.dispose()
    assert runs == ["child"]


async def test_a_failing_disposer_does_not_stop_the_teardown() -> None:
    ctx = Context()
    runs: list[str] = []
    ctx.track(lambda: runs.append("first"))

    def bad() -> None:
        raise RuntimeError("teardown failure")

    ctx.track(bad)
    ctx.track(lambda: runs.append("last"))
    with pytest.raises(RuntimeError, match="teardown failure"):
        await ctx.dispose()
    assert runs == ["last", "first"] and ctx.disposed


async def test_disposed_context_refuses_registration() -> None:
    ctx = Context()
    await ctx.dispose()
    with pytest.raises(RuntimeError):
        ctx.track(noop)
    with pytest.raises(RuntimeError):
        ctx.on_event("x", noop)
    with pytest.raises(RuntimeError):
        ctx.provide(COUNTER, Counter())
    with pytest.raises(RuntimeError):
        ctx.fork()
    with pytest.raises(RuntimeError):
        Agent(ctx, name="late")


async def test_forks_of_a_disposed_parent_refuse_registration() -> None:
    root = Context()
    child = root.fork()
    await root.dispose()
    with pytest.raises(RuntimeError):
        child.on_event("x", noop)


def test_logger_is_a_dsh_tools_logger() -> None:
    ctx = Context()
    assert isinstance(ctx.logger, logging.Logger)
    assert ctx.logger.name.startswith("dsh_tools")
    assert ctx.fork().logger is ctx.logger


# -- agents and scopes -----------------------------------------------------------


async def test_agent_scope_and_session() -> None:
    root = Context()
    agent = Agent(root, name="reviewer")
    assert agent.name == "reviewer"
    assert scope_of(root) is None
    assert scope_of(root.fork()) is None
    assert scope_of(agent.ctx) is agent
    assert scope_of(agent.ctx.fork()) is agent
    assert isinstance(agent.session, SessionLog) and len(agent.session) == 0
    other = Agent(root, name="reviewer")
    assert other != agent and scope_of(other.ctx) is other


@pytest.mark.parametrize("name", ["", None, 3])
def test_agent_name_must_be_a_non_empty_str(name: object) -> None:
    with pytest.raises(ValueError):
        Agent(Context(), name=name)  # type: ignore[arg-type]


async def test_agent_dispose_undoes_its_registrations_only() -> None:
    root = Context()
    agent = Agent(root, name="a")
    runs: list[str] = []
    agent.ctx.track(lambda: runs.append("agent"))
    agent.ctx.fork().track(lambda: runs.append("agent-fork"))
    root.track(lambda: runs.append("root"))
    await agent.dispose()
    assert runs == ["agent-fork", "agent"]
    assert agent.ctx.disposed and not root.disposed
    with pytest.raises(RuntimeError):
        agent.ctx.on_event("x", noop)


async def test_disposing_the_root_disposes_agents() -> None:
    root = Context()
    agent = Agent(root, name="a")
    await root.dispose()
    assert agent.ctx.disposed


# -- services --------------------------------------------------------------------


async def test_services_are_app_wide_and_withdrawn_with_the_provider() -> None:
    root = Context()
    plugin = root.fork()
    sibling = root.fork()
    agent = Agent(root, name="a")
    service = Counter()
    plugin.provide(COUNTER, service)
    assert root.get(COUNTER) is service
    assert sibling.get(COUNTER) is service
    assert agent.ctx.get(COUNTER) is service
    assert plugin.fork().require(COUNTER) is service
    await plugin.dispose()
    assert root.get(COUNTER) is None and sibling.get(COUNTER) is None
    with pytest.raises(RuntimeError, match="counter"):
        sibling.require(COUNTER)


async def test_provide_disposer_withdraws_and_duplicates_raise() -> None:
    ctx = Context()
    first = Counter()
    withdraw = ctx.provide(COUNTER, first)
    with pytest.raises(ValueError):
        ctx.fork().provide(COUNTER, Counter())
    withdraw()
    assert ctx.get(COUNTER) is None
    second = Counter()
    ctx.provide(COUNTER, second)
    withdraw()  # idempotent: does not withdraw the newer service
    assert ctx.get(COUNTER) is second


def test_missing_service_is_none_and_require_raises() -> None:
    ctx = Context()
    assert ctx.get(COUNTER) is None
    with pytest.raises(RuntimeError):
        ctx.require(COUNTER)
    with pytest.raises(RuntimeError):
        _ = ctx.tools
    with pytest.raises(RuntimeError):
        _ = ctx.system_prompt


async def test_bound_service_acts_as_the_asking_context() -> None:
    root = Context()
    registry = Registry()
    root.provide(REGISTRY, registry)
    agent = Agent(root, name="a")
    global_view = root.require(REGISTRY)
    agent_view = agent.ctx.require(REGISTRY)
    assert global_view.ctx is root and agent_view.ctx is agent.ctx
    assert agent.ctx.get(REGISTRY) is agent_view  # cached per context
    global_view.add("g")
    agent_view.add("scoped")
    assert registry.items == [("g", None), ("scoped", agent)]
    await agent.dispose()  # the agent's registration goes with it
    assert registry.items == [("g", None)]


async def test_bound_view_is_rebuilt_for_a_new_service() -> None:
    root = Context()
    withdraw = root.provide(REGISTRY, Registry())
    old_view = root.require(REGISTRY)
    withdraw()
    fresh = Registry()
    root.provide(REGISTRY, fresh)
    new_view = root.require(REGISTRY)
    assert new_view is not old_view and new_view.items is fresh.items


# -- events ------------------------------------------------------------------------


def test_on_returns_a_disposer_and_rejects_non_callables() -> None:
    ctx = Context()
    disposer = ctx.on_event("e", noop)
    assert isinstance(disposer, Disposer)
    assert ctx.events.listeners("e") == (noop,)
    disposer()
    assert ctx.events.listeners("e") == ()
    with pytest.raises(TypeError):
        ctx.on("e", "not callable")  # type: ignore[call-overload]


def test_listener_order_and_prepend() -> None:
    ctx = Context()

    def first() -> None: ...
    def second() -> None: ...
    def outermost() -> None: ...

    ctx.on_event("e", first)
    ctx.on_event("e", second)
    ctx.on_event("e", outermost, prepend=True)
    assert ctx.events.listeners("e") == (outermost, first, second)


def test_scoped_listeners_hear_only_their_agent() -> None:
    root = Context()
    a = Agent(root, name="a")
    b = Agent(root, name="b")

    def global_one() -> None: ...
    def a_one() -> None: ...
    def a_fork_one() -> None: ...
    def b_one() -> None: ...

    root.on_event("e", global_one)
    a.ctx.on_event("e", a_one)
    b.ctx.on_event("e", b_one, prepend=True)
    a.ctx.fork().on_event("e", a_fork_one)
    events = root.events
    assert events.listeners("e") == (global_one,)
    assert events.listeners("e", None) == (global_one,)
    assert events.listeners("e", a) == (global_one, a_one, a_fork_one)
    assert events.listeners("e", b) == (b_one, global_one)
    assert events.listeners("other", a) == ()


async def test_listeners_are_removed_with_their_context() -> None:
    root = Context()
    agent = Agent(root, name="a")

    def global_one() -> None: ...
    def scoped() -> None: ...

    root.on_event("e", global_one)
    agent.ctx.on_event("e", scoped)
    assert root.events.listeners("e", agent) == (global_one, scoped)  # populate the cache
    await agent.dispose()
    assert root.events.listeners("e", agent) == (global_one,)


def test_emit_is_unfiltered_and_ordered() -> None:
    root = Context()
    agent = Agent(root, name="a")
    heard: list[str] = []
    root.on("tools/change", lambda: heard.append("global"))
    agent.ctx.on("tools/change", lambda: heard.append("scoped"))
    agent.ctx.on("tools/change", lambda: heard.append("first"), prepend=True)
    root.events.emit("tools/change")
    assert heard == ["first", "global", "scoped"]


def test_emit_propagates_the_first_failure() -> None:
    ctx = Context()
    heard: list[str] = []

    def bad() -> None:
        raise RuntimeError("listener")

    ctx.on_event("e", bad)
    ctx.on_event("e", lambda: heard.append("later"))
    with pytest.raises(RuntimeError, match="listener"):
        ctx.events.emit("e")
    assert heard == []


def test_same_listener_twice_is_removed_per_registration() -> None:
    ctx = Context()
    first = ctx.on_event("e", noop)
    ctx.on_event("e", noop)
    first()
    assert ctx.events.listeners("e") == (noop,)


@pytest.mark.parametrize("id_", ["a\x00", "\x00", "a\ud800"])
def test_an_agent_id_holds_no_nul_and_no_lone_surrogate(id_: str) -> None:
    """A store's columns keep neither (they hold U+FFFD): ``"a\\x00"`` and ``"a\\ufffd"`` would share parked calls."""
    with pytest.raises(ValueError, match="no NUL"):
        Agent(Context(), name="a", id=id_)
    assert Agent(Context(), name="a", id="a\ufffd").id == "a\ufffd"
