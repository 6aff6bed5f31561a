"""The plugin host: contexts (lifetimes), agents (scopes), services and events.

A :class:`Context` is a lifetime. Everything registered through it (``on``,
``provide``, and every service registration made through ``ctx.tools`` or
``ctx.system_prompt``) is recorded on it and undone, in reverse order, when it
is disposed. ``fork()`` makes a child lifetime; disposing a parent disposes its
children first.

An :class:`Agent` owns a *scoped* context: what is registered through
``agent.ctx`` belongs to that agent alone (its tool layer, its guards, its
listeners). The scope key is the ``Agent`` object itself.

Services are app-wide, as in a plugin host: provided through any context of a
root, visible from all of them, withdrawn with the providing context. A service
that implements :class:`ContextBound` is handed out *bound to the asking
context*, so ``agent.ctx.tools.register(t)`` files ``t`` in the agent's layer
and ties it to ``agent.ctx``.
"""

from __future__ import annotations

import logging
import secrets
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeVar, overload

from dsh_tools.disposer import Disposer
from dsh_tools.context.events import EventBus
from dsh_tools.context.keys import ServiceKey
from dsh_tools.context.ports import SYSTEM_PROMPT, TOOLS, SystemPromptPort, ToolsPort
from dsh_tools.context.session import SESSION_EVENT, SessionLog
from dsh_tools.json_values import FrozenJson
from dsh_tools.json_walk import has_lone_surrogate

if TYPE_CHECKING:
    from dsh_tools.hooks import (
        AssembleListener,
        ChangeListener,
        DecidedListener,
        ExecuteListener,
        ParkedListener,
        PostExecuteListener,
        PreExecuteListener,
        ProgressListener,
        ResultListener,
    )

__all__ = ["Agent", "Context", "ContextBound", "ScopeKey", "ServiceKey", "scope_of"]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
_LOGGER = logging.getLogger("dsh_tools")


MAX_AGENT_ID: Final = 200
"""The longest agent id (it is a column in every durable record)."""


class ContextBound(Protocol[T_co]):
    """A service that acts as whichever context reaches it."""

    def bind(self, ctx: Context) -> T_co: ...


class _App:
    """State shared by every context of one root: services, events, logger, live agents by id."""

    __slots__ = ("services", "events", "logger", "agents")

    def __init__(self, logger: logging.Logger) -> None:
        self.services: dict[ServiceKey[Any], tuple[object, Context]] = {}
        self.events = EventBus()
        self.logger = logger
        # Durable records name agents by id; resuming one finds the live agent here.
        self.agents: weakref.WeakValueDictionary[str, Agent] = weakref.WeakValueDictionary()


class Context:
    """A lifetime in the plugin host; see the module docstring."""

    __slots__ = ("_app", "_parent", "_scope", "_disposers", "_disposed", "_bound", "_release", "__weakref__")

    def __init__(self, *, logger: logging.Logger | None = None) -> None:
        self._app = _App(logger or _LOGGER.getChild("host"))
        self._parent: Context | None = None
        self._scope: Agent | None = None
        self._disposers: dict[Disposer, None] = {}
        self._disposed = False
        self._bound: dict[ServiceKey[Any], tuple[object, object]] = {}
        self._release: Disposer | None = None

    # -- lifetimes -------------------------------------------------------
    def fork(self) -> Context:
        """A child lifetime sharing services and events; keeps this scope."""
        return self._child(self._scope)

    def _child(self, scope: Agent | None) -> Context:
        self._ensure_live()
        child = object.__new__(Context)
        child._app = self._app
        child._parent = self
        child._scope = scope
        child._disposers = {}
        child._disposed = False
        child._bound = {}
        child._release = self.track(child._dispose_now)
        return child

    @property
    def scope(self) -> Agent | None:
        """The agent this context registers for (``None``: context-global)."""
        return self._scope

    @property
    def disposed(self) -> bool:
        return self._disposed

    @property
    def logger(self) -> logging.Logger:
        """Where contained listener failures are reported (WARNING)."""
        return self._app.logger

    def track(self, action: Callable[[], None]) -> Disposer:
        """Record ``action`` on this lifetime; the returned disposer runs it once.

        Calling the disposer early runs the action and forgets it; disposing
        the context runs every remaining action in reverse registration order.
        """
        self._ensure_live()
        disposer: Disposer

        def run() -> None:
            self._disposers.pop(disposer, None)
            action()

        disposer = Disposer(run)
        self._disposers[disposer] = None
        return disposer

    async def dispose(self) -> None:
        """Undo everything registered through this context and its forks."""
        self._dispose_now()

    def _dispose_now(self) -> None:
        if self._disposed:
            return
        self._disposed = True
        failures: list[BaseException] = []
        for disposer in reversed(list(self._disposers)):
            try:
                disposer()
            except Exception as error:  # noqa: BLE001 - finish the teardown first
                failures.append(error)
        self._disposers.clear()
        self._bound.clear()
        if self._release is not None:
            self._release()  # forget this child on the parent's lifetime
        if failures:
            raise failures[0]

    def _ensure_live(self) -> None:
        if self._disposed:
            raise RuntimeError("this context has been disposed; registering through it is not allowed")

    # -- services --------------------------------------------------------
    def provide(self, key: ServiceKey[T], service: T) -> Disposer:
        """Offer ``service`` app-wide under ``key`` until this context is disposed."""
        self._ensure_live()
        services = self._app.services
        if key in services:
            raise ValueError(f"service {key.name!r} is already provided")
        services[key] = (service, self)

        def withdraw() -> None:
            if services.get(key, (None, None))[0] is service:
                del services[key]

        return self.track(withdraw)

    def get(self, key: ServiceKey[T]) -> T | None:
        """The service under ``key``, acting as this context, or ``None``."""
        entry = self._app.services.get(key)
        if entry is None:
            return None
        service = entry[0]
        bind = getattr(type(service), "bind", None)
        if bind is None:
            return service  # type: ignore[return-value]
        cached = self._bound.get(key)
        if cached is not None and cached[0] is service:
            return cached[1]  # type: ignore[return-value]
        view = bind(service, self)
        self._bound[key] = (service, view)
        return view  # type: ignore[no-any-return]

    def require(self, key: ServiceKey[T]) -> T:
        """Like :meth:`get`, but a missing service is a ``RuntimeError`` naming it."""
        service = self.get(key)
        if service is None:
            raise RuntimeError(f"no {key.name!r} service is provided on this context")
        return service

    @property
    def tools(self) -> ToolsPort:
        """The tool registry, acting as this context (``RuntimeError`` if none); typed by its contract (``context/ports.py``)."""
        return self.require(TOOLS)

    @property
    def system_prompt(self) -> SystemPromptPort:
        """The system prompt service, acting as this context (``RuntimeError`` if none)."""
        return self.require(SYSTEM_PROMPT)

    # -- events ----------------------------------------------------------
    @overload
    def on(self, name: Literal["tools/pre-execute"], listener: PreExecuteListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["tools/execute"], listener: ExecuteListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["tools/post-execute"], listener: PostExecuteListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["tools/result"], listener: ResultListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["tools/progress"], listener: ProgressListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["tools/change"], listener: ChangeListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["tools/parked"], listener: ParkedListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["tools/decided"], listener: DecidedListener, *, prepend: bool = False) -> Disposer: ...
    @overload
    def on(self, name: Literal["system-prompt/assemble"], listener: AssembleListener, *, prepend: bool = False) -> Disposer: ...
    def on(self, name: str, listener: Callable[..., Any], *, prepend: bool = False) -> Disposer:
        """Listen to ``name``; a scoped context's listener hears only its agent's calls.

        Waterfall listeners compose in registration order, the first registered
        outermost; ``prepend=True`` makes this one the outermost. The overloads
        accept only the library's event names, each with its listener type, so
        ``mypy`` rejects a misspelled event or a listener of the wrong shape;
        :meth:`on_event` is the untyped form for events of your own.
        """
        return self.on_event(name, listener, prepend=prepend)

    def on_event(self, name: str, listener: Callable[..., Any], *, prepend: bool = False) -> Disposer:
        """:meth:`on` for any event name (a plugin's own events), without listener typing."""
        self._ensure_live()
        if not callable(listener):
            raise TypeError(f"listener for {name!r} must be callable")
        remove = self._app.events.add(name, listener, self._scope, prepend=prepend)
        return self.track(remove)

    @property
    def events(self) -> EventBus:
        """The app-wide event bus (read side for services that run waterfalls)."""
        return self._app.events


def scope_of(ctx: Context) -> Agent | None:
    """The agent a context is scoped to, or ``None`` for a context-global one."""
    return ctx.scope


def live_agent(ctx: Context, agent_id: str) -> Agent | None:
    """The live (not disposed) agent of ``ctx``'s app whose ``id`` is ``agent_id``, if any."""
    agent = ctx._app.agents.get(agent_id)
    return agent if agent is not None and not agent.ctx.disposed else None


def live_agents(ctx: Context) -> list[Agent]:
    """Every live (not disposed) agent of ``ctx``'s app."""
    return [agent for agent in list(ctx._app.agents.values()) if not agent.ctx.disposed]


class Agent:
    """One agent: a scoped context plus its session log. The agent is the scope key.

    ``id`` is its stable identity across processes (a fresh random one when
    not given): durable records (parked calls, the journal) name agents by
    id, and resuming a parked call looks for the live agent with that id.
    Two live agents of one app may not share an id (``ValueError``).
    """

    __slots__ = ("_name", "_id", "_ctx", "_session", "__weakref__")

    def __init__(self, ctx: Context, *, name: str, id: str | None = None) -> None:  # noqa: A002 - the contract's name
        if type(name) is not str or not name:
            raise ValueError("an agent needs a non-empty str name")
        if id is None:
            id = secrets.token_hex(8)
        elif type(id) is not str or not id or len(id) > MAX_AGENT_ID or has_lone_surrogate(id) or "\x00" in id:
            # No NUL either: a store's columns cannot hold one (they keep U+FFFD), so "a\x00" and "a\ufffd"
            # would share parked calls, caps and session events there.
            raise ValueError(
                f"an agent id is a non-empty str of at most {MAX_AGENT_ID} characters (valid Unicode, no NUL)"
            )
        agents = ctx._app.agents
        if live_agent(ctx, id) is not None:
            raise ValueError(f"agent id {id!r} is already used by a live agent {agents[id].name!r}")
        self._name = name
        self._id = id
        self._ctx = ctx._child(self)
        self._session = SessionLog(self._publish_session_event)
        agents[id] = self

        def release() -> None:
            if agents.get(id) is self:
                del agents[id]

        self._ctx.track(release)

    def _publish_session_event(self, kind: str, data: FrozenJson) -> None:
        """Send one appended session event out on the bus (``session/event``), while this agent lives."""
        ctx = self._ctx
        if not ctx.disposed:
            ctx._app.events.emit(SESSION_EVENT, self._id, kind, data)

    @property
    def name(self) -> str:
        return self._name

    @property
    def id(self) -> str:
        """The agent's stable identity (see the class docstring)."""
        return self._id

    @property
    def ctx(self) -> Context:
        """The agent's scoped context: registrations through it are this agent's alone."""
        return self._ctx

    @property
    def session(self) -> SessionLog:
        """This agent's durable session log."""
        return self._session

    async def dispose(self) -> None:
        """Dispose every registration made through ``agent.ctx``."""
        await self._ctx.dispose()

    def __repr__(self) -> str:
        return f"Agent({self._name!r})"


ScopeKey = Agent
"""What scopes a registration: the ``Agent`` object itself (by identity)."""
