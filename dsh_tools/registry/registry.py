"""``ToolRegistry``: the ``ctx.tools`` service.

One registry serves a whole app; what differs per caller is *which context it
acts as*. ``ctx.tools`` hands out a view bound to ``ctx`` (see
``Context.get``): registrations, restrictions and guards made through it land
in that context's scope and die with that context. All views share one
:class:`_Core` (the layers, the mark on the tokens it mints, the plugin seams).

The registry is also the :class:`~dsh_tools.pipeline.PipelineHost` of the
standard pipeline, and ``execute`` is :func:`~dsh_tools.pipeline.execute_call`.
Its call store (``store=``, a :class:`~dsh_tools.store.MemoryStore` unless
given) keeps the calls whose approval was deferred (:mod:`.approvals`) and
the journal of every call (:mod:`.journal`).

How tools are presented (``mode``, ``present_as``, Code Mode) is a plugin's,
:class:`~dsh_tools.code_mode.plugin.CodeMode`: built from the registry's keywords,
delegated to, and hooked in through :meth:`ToolRegistry.serve` and :meth:`ToolRegistry.add_gate`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from dsh_tools.code_mode import READ_RESULT_NAME, RUN_CODE_NAME
from dsh_tools.code_mode.plugin import Catalog, CodeMode, ToolMode
from dsh_tools.code_mode.runtime import CodeLanguage
from dsh_tools.code_mode.search.builtins import DEFAULT_CATALOG_CHARS
from dsh_tools.context.session import SESSION_EVENT
from dsh_tools.disposer import Disposer
from dsh_tools.execution import ToolExecutionInput, ToolExecutionResult, ToolExecutionToken, issued_by, mint_token
from dsh_tools.context.context import Agent, Context
from dsh_tools.context.identity import WeakIdentityDict
from dsh_tools.context.events import EventBus
from dsh_tools.context.services import APPROVAL, TOOLS
from dsh_tools.dbos.seam import QUEUE_DISPATCHER, QueueDispatcher, check_routes, route_of
from dsh_tools.pipeline.batch import DEFAULT_MAX_PARALLEL, execute_batch
from dsh_tools.pipeline.classify import ExecutionMode, classify_input
from dsh_tools.pipeline.compose import STANDARD_GATES, Gate, execute_call
from dsh_tools.seams import Guard
from dsh_tools.orphans import DEFAULT_GRACE_MS, Orphans, check_grace_ms
from dsh_tools.registry.approvals import DEFAULT_LEASE_SECONDS, DEFAULT_MAX_PARKED, ParkingLot
from dsh_tools.registry.journal import CallJournal
from dsh_tools.registry.parked_calls import ParkedCalls
from dsh_tools.registry.layers import Restriction, ScopeView, ToolLayers
from dsh_tools.registry.snapshot import snapshot
from dsh_tools.registry.spilling import RESERVED_READER, Spilling
from dsh_tools.tool_types import RegisteredTool, ToolDefinition, ToolSchema
from dsh_tools.store.memory import MemoryStore
from dsh_tools.call_store import CallStore
from dsh_tools.registry.store_features import check_store_features

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalService

__all__ = ["Served", "ToolMode", "ToolRegistry"]  # ToolMode: the type of the mode keyword, defined by the plugin

CHANGE: Final = "tools/change"

Served = Callable[[Agent | None], RegisteredTool | None]
"""A tool a plugin serves beside the layers: the one an agent gets, or ``None`` where it gets none."""


class _Core:
    """State shared by every view of one registry."""

    __slots__ = (
        "layers", "issuer", "lot", "journal", "forgetting", "orphans", "served", "added_gates", "gates", "code_mode",
        "spilling",
    )

    def __init__(self, lot: ParkingLot, cancel_grace_ms: float) -> None:
        self.orphans = Orphans(cancel_grace_ms)
        self.layers = ToolLayers()
        self.lot = lot
        self.journal = CallJournal(lot.store, lease_seconds=lot.lease_seconds)
        # Agents whose disposal drops their parked calls from a store that is not durable (tracked once each).
        self.forgetting: WeakIdentityDict[Agent, None] = WeakIdentityDict()
        self.issuer = object()  # the mark on every token this registry mints (execution.issued_by)
        self.served: dict[str, tuple[Served, str]] = {}  # name -> (who gets it, why a layer may not use the name)
        self.added_gates: tuple[Gate, ...] = ()  # by add_gate, in order
        self.gates: tuple[Gate, ...] = STANDARD_GATES  # what execute runs: the added gates, then the standard ones
        self.code_mode: CodeMode
        self.spilling: Spilling

    def check_unserved(self, names: Sequence[str], agent: Agent | None, suffix: str = "") -> None:
        """``ValueError`` (the server's reason) if a layer of ``agent`` may not use one of ``names``: it is served there."""
        for name in names:
            entry = self.served.get(name)
            if entry is not None and entry[0](agent) is not None:
                raise ValueError(entry[1] + suffix)


class ToolRegistry(ParkedCalls):
    """Register tools, restrict and guard them, resolve them per agent, execute calls."""

    __slots__ = ("_core", "_ctx", "events", "logger", "routes", "__weakref__")

    events: EventBus
    """Listeners by event name and scope: the app's bus, held here so a stage reads it without a call."""
    logger: logging.Logger
    """Where contained listener failures go (the app's logger)."""
    routes: dict[str, str | None] | None
    """Tool name (or ``"*"``) → the queue its calls' dispatch goes to (``queues=``); ``None``: every call runs here."""

    def __init__(
        self,
        ctx: Context,
        *,
        mode: ToolMode = "native",
        max_parallel_sub_calls: int = DEFAULT_MAX_PARALLEL,
        store: CallStore | None = None,
        max_parked_per_agent: int = DEFAULT_MAX_PARKED,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        cancel_grace_ms: float = DEFAULT_GRACE_MS,
        code_language: CodeLanguage = "typescript",
        catalog: Catalog = "full",
        catalog_chars: int = DEFAULT_CATALOG_CHARS,
        max_inline_bytes: int | None = None,
        queues: Mapping[str, str | None] | None = None,
        approval_ttl_seconds: float | None = None,
    ) -> None:
        routes = check_routes(queues)
        if type(max_parked_per_agent) is not int or max_parked_per_agent < 0:
            raise ValueError("max_parked_per_agent must be an int >= 0")
        if type(lease_seconds) not in (int, float) or not 0.03 <= lease_seconds <= 86_400:
            raise ValueError("lease_seconds must be a number of seconds from 0.03 to 86400")
        if store is not None and not isinstance(store, CallStore):
            raise TypeError(f"store must be a CallStore (MemoryStore, SqliteStore, PostgresStore), got {type(store).__name__}")
        check_grace_ms(cancel_grace_ms, "cancel_grace_ms")
        store = store if store is not None else MemoryStore()
        ttl = check_store_features(store, approval_ttl_seconds)
        lot = ParkingLot(store, max_per_agent=max_parked_per_agent, lease_seconds=float(lease_seconds), ttl_seconds=ttl)
        self._core = _Core(lot, cancel_grace_ms)
        self._core.spilling = Spilling(max_inline_bytes, lambda: lot.store)
        self._ctx = ctx
        self.events, self.logger, self.routes = ctx.events, ctx.logger, routes
        # Before anything is provided: the plugin checks its keywords and needs the SystemPrompt.
        self._core.code_mode = CodeMode(
            self, mode=mode, code_language=code_language, max_parallel_sub_calls=max_parallel_sub_calls,
            catalog=catalog, catalog_chars=catalog_chars,
        )
        spilling = self._core.spilling
        self.serve(READ_RESULT_NAME, lambda agent: spilling.served(self._core.layers.view(agent)), RESERVED_READER)
        ctx.track(ctx.events.add_probe(self._core.journal))
        # Session events reach the store through the journal, which hears them on the bus.
        ctx.track(ctx.events.add(SESSION_EVENT, self._core.journal.record_event, None, prepend=False))
        ctx.provide(TOOLS, self)
        if routes is not None and route_of(routes, RUN_CODE_NAME) is not None:
            from dsh_tools.dbos.scoped import refuse_scoped_parts  # only a deployment that queues programs needs it

            refuse_scoped_parts(self)

    def bind(self, ctx: Context) -> ToolRegistry:
        """This registry acting as ``ctx`` (what ``ctx.tools`` returns)."""
        view = object.__new__(ToolRegistry)
        view._core = self._core
        view._ctx = ctx
        view.events, view.logger, view.routes = self.events, self.logger, self.routes
        return view

    # -- presentation: the Code Mode plugin's -----------------------------
    @property
    def code_mode(self) -> CodeMode:
        """Internal: the presentation plugin this registry delegates modes, Code Mode and parked programs to."""
        return self._core.code_mode

    @property
    def mode(self) -> ToolMode:
        """``native``, ``code`` or ``both``: how the tools are presented to this view's scope.

        The registry's ``mode``, unless the scope's agent chose its own with
        :meth:`present_as`.
        """
        return self._core.code_mode.mode_for(self._ctx.scope)

    @property
    def code_language(self) -> CodeLanguage:
        """What Code Mode programs are written in: the SDK, the transport's description and the runtime follow it."""
        return self._core.code_mode.code_language

    def mode_for(self, agent: Agent | None) -> ToolMode:
        """The effective presentation mode of ``agent`` (``None``: the registry's)."""
        return self._core.code_mode.mode_for(agent)

    def present_as(self, mode: ToolMode) -> Disposer:
        """Present the tools to the calling agent as ``mode``, shadowing the registry's (see ``docs/code-mode.md``).

        ``RuntimeError`` from a plain context or a second time in one scope
        (dispose the first to change it), ``ValueError`` for an unknown mode
        or a non-native one the agent's own tools collide with.
        """
        self._ensure_live()
        return self._announce(self._core.code_mode.present_as(self._ctx.scope, mode))

    @property
    def max_parallel_sub_calls(self) -> int:
        """How many of a Code Mode program's safe binding calls may dispatch at once."""
        return self._core.code_mode.max_parallel_sub_calls

    @property
    def max_inline_bytes(self) -> int | None:
        """The UTF-8 bytes of result text the model reads whole; past them it reads a preview (``None``: no limit)."""
        return self._core.spilling.limit

    async def keep_spilled(self, agent_id: str, text: str) -> str:
        """Internal (the spill step's): keep a whole result text in the store; its locator."""
        return await self._core.spilling.keep(agent_id, text)

    @property
    def orphans(self) -> Orphans:
        """Bodies still running past ``cancel_grace_ms`` after their call was cancelled (``running``, ``count``)."""
        return self._core.orphans

    @property
    def context(self) -> Context:
        """The context this view acts as."""
        return self._ctx

    # -- registration -----------------------------------------------------
    def register(self, definition: ToolDefinition) -> Disposer:
        """File a frozen snapshot of ``definition`` in the calling scope's layer."""
        self._ensure_live()
        tool = snapshot(definition)
        scope = self._ctx.scope
        self._core.spilling.admit(tool)
        self._core.check_unserved((tool.name,), scope)
        layers = self._core.layers
        if tool.name in layers.layer(scope):
            where = "globally" if scope is None else f"for agent {scope.name!r}"
            hint = "; register a per-agent variant through agent.ctx instead" if scope is None else ""
            raise ValueError(f'tool "{tool.name}" is already registered {where}{hint}')
        return self._announce(layers.add_tool(scope, tool))

    def restrict(self, *, allow: Sequence[str] | None = None, deny: Sequence[str] | None = None) -> Disposer:
        """Mask the global layer for the calling agent (scoped contexts only)."""
        self._ensure_live()
        scope = self._ctx.scope
        if scope is None:
            raise RuntimeError("restrict() masks tools for one agent: call it through agent.ctx.tools")
        if allow is None and deny is None:
            raise ValueError("restrict() needs allow=[...] or deny=[...]; an empty restriction is a configuration slip")
        named = [*(allow or ()), *(deny or ())]
        if any(type(name) is not str for name in named) or isinstance(allow, str) or isinstance(deny, str):
            raise ValueError("restrict() takes sequences of tool names (str)")
        self._core.check_unserved(named, scope, " and cannot be restricted")
        known = set(self._core.layers.known_names(scope))
        unknown = sorted({name for name in named if name not in known})
        if unknown:
            raise ValueError(f"restrict() names unknown tools: {', '.join(unknown)}")
        restriction = Restriction(None if allow is None else frozenset(allow), frozenset(deny or ()))
        return self._announce(self._core.layers.add_restriction(scope, restriction))

    def guard(self, fn: Guard) -> Disposer:
        """Add a monotonic synchronous guard (global, or the calling agent's)."""
        if not callable(fn):
            raise TypeError("a guard must be callable: (execution) -> str | None")
        self._ensure_live()  # before adding: track() on a disposed context would leave it installed
        scope = self._ctx.scope
        remove = self._core.layers.add_guard(scope, fn)
        if scope is not None:  # an agent's own guard, as its own listeners are, may be refused by a plugin
            try:
                self._ctx.events.check_scope(scope)
            except BaseException:
                remove()
                raise
        return self._ctx.track(remove)

    # -- plugin seams ------------------------------------------------------
    def serve(self, name: str, served: Served, reserved: str) -> Disposer:
        """Serve ``served(agent)`` as ``name`` beside the layers (after them), to each agent it gives a tool.

        For such an agent the served tool is what ``name`` resolves to, and its
        layer may neither register nor restrict ``name`` (``ValueError(reserved)``).
        Code Mode serves ``run_code`` this way. Undone with this view's context.
        """
        self._ensure_live()
        served_tools = self._core.served
        if name in served_tools:
            raise ValueError(f'"{name}" is already served')
        entry = served_tools[name] = (served, reserved)

        def withdraw() -> None:
            if served_tools.get(name) is entry:  # only this serving, never a later one of the same name
                del served_tools[name]

        return self._ctx.track(withdraw)

    def add_gate(self, gate: Gate) -> Disposer:
        """Run ``gate`` in :meth:`execute` and :meth:`execute_batch`, before the standard gates and after earlier added ones.

        Code Mode's presentation gate comes in this way. Undone with this view's context.
        """
        self._ensure_live()
        core = self._core
        core.added_gates = (*core.added_gates, gate)
        core.gates = (*core.added_gates, *STANDARD_GATES)

        def remove() -> None:
            core.added_gates = tuple(added for added in core.added_gates if added is not gate)
            core.gates = (*core.added_gates, *STANDARD_GATES)

        return self._ctx.track(remove)

    @property
    def gates(self) -> tuple[Gate, ...]:
        """What :meth:`execute` runs between admission and dispatch: the added gates, then ``STANDARD_GATES``."""
        return self._core.gates

    def _ensure_live(self) -> None:
        if self._ctx.disposed:
            raise RuntimeError("this context has been disposed; registering through it is not allowed")

    def _announce(self, undo: Callable[[], bool]) -> Disposer:
        """Fire ``tools/change`` for a change just applied, and return its disposer.

        A listener that raises vetoes the change: it is rolled back silently
        (no second event) and the error propagates. Undoing later fires
        ``tools/change`` once more, and only if the change was still in place.
        """
        try:
            self._changed()
        except BaseException:
            undo()
            raise

        def revert() -> None:
            if undo():
                self._changed()

        return self._ctx.track(revert)

    def _changed(self) -> None:
        self._ctx.events.emit(CHANGE)

    # -- resolution -------------------------------------------------------
    def _scope(self, scope: Agent | None) -> Agent | None:
        return self._ctx.scope if scope is None else scope

    def visible(self, scope: Agent | None = None) -> list[RegisteredTool]:
        """The executable view: restricted global layer ∪ the scope's own, then the tools served to it (``run_code``)."""
        agent = self._scope(scope)
        tools = list(self._core.layers.view(agent).tools)
        tools.extend(self._served(agent))
        return tools

    def _served(self, agent: Agent | None) -> list[RegisteredTool]:
        served = self._core.served
        return [tool for entry, _ in served.values() if (tool := entry(agent)) is not None] if served else []

    def end_capabilities(self, scope: Agent | None = None) -> tuple[RegisteredTool, ...]:
        """The visible tools without the served ones (what the Code Mode SDK binds)."""
        return self._core.layers.view(self._scope(scope)).tools

    def scope_view(self, scope: Agent | None = None) -> ScopeView:
        """Internal: the cached per-scope view (valid until the next registry change)."""
        return self._core.layers.view(self._scope(scope))

    @property
    def layers(self) -> ToolLayers:
        """Internal: the layers themselves (a catalog index follows their ``version`` and ``every_tool()``)."""
        return self._core.layers

    def get(self, name: str, scope: Agent | None = None) -> RegisteredTool | None:
        """The snapshot ``scope`` resolves ``name`` to, or ``None`` (absent or restricted away)."""
        return self.resolve(name, self._scope(scope))

    def known_names(self, scope: Agent | None = None) -> list[str]:
        """The pre-restriction name universe ``restrict`` validates against."""
        return self._core.layers.known_names(self._scope(scope))

    def schemas(self, scope: Agent | None = None) -> list[ToolSchema]:
        """Name, description and parameters of every visible tool (never callbacks)."""
        agent = self._scope(scope)
        schemas = list(self._core.layers.view(agent).schemas)
        for tool in self._served(agent):
            schemas.append(tool.schema)
        return schemas

    # -- execution (PipelineHost) ------------------------------------------
    async def execute(self, call: ToolExecutionInput) -> ToolExecutionResult:
        """Run one call through the standard pipeline; never raises for bad input.

        Gates: :attr:`gates` (Code Mode's presentation gate, once armed, then
        the standard gates). If the task
        awaiting it is cancelled, the call is still recorded (``tools/result``
        sees it, ``ABORTED``) before ``CancelledError`` propagates.
        """
        return await execute_call(self, call, gates=self._core.gates)

    async def execute_batch(
        self, calls: Sequence[ToolExecutionInput], *, max_parallel: int = DEFAULT_MAX_PARALLEL
    ) -> list[ToolExecutionResult]:
        """Run the sibling calls of one assistant message; results in input order.

        Calls whose :meth:`execution_mode` is ``"parallel"`` dispatch side by
        side (a rolling pool of ``max_parallel``); an ``"exclusive"`` one runs
        alone, after everything before it and before anything after it. Policy
        stages and observers still run one call at a time, in input order
        (see ``dsh_tools.pipeline.batch``). ``max_parallel < 1`` raises
        ``ValueError``.
        """
        return await execute_batch(self, calls, max_parallel=max_parallel, gates=self._core.gates)

    def execution_mode(self, call: ToolExecutionInput) -> ExecutionMode:
        """``"parallel"`` if the definition the call's agent resolves says its arguments are safe to overlap.

        Only an exact ``True`` from ``is_concurrency_safe(args)`` counts;
        unknown tools, ``run_code``, invalid input and a classifier that
        raises are ``"exclusive"``.
        """
        return classify_input(self, call)

    def resolve(self, name: str, agent: Agent | None) -> RegisteredTool | None:
        if type(name) is not str:
            return None
        core = self._core
        entry = core.served.get(name) if core.served else None
        if entry is not None:
            served = entry[0](agent)
            if served is not None:
                return served
        return core.layers.view(agent).by_name.get(name)

    def guards_for(self, agent: Agent | None) -> Sequence[Guard]:
        return self._core.layers.guards_for(agent)

    def approval(self) -> ApprovalService | None:
        return self._ctx.get(APPROVAL)

    def queue_dispatcher(self) -> QueueDispatcher | None:
        """Who runs this registry's queued dispatches (``QUEUE_DISPATCHER``), looked up when a routed call is planned."""
        return self._ctx.get(QUEUE_DISPATCHER)

    def restrictions_of(self, agent: Agent) -> tuple[tuple[frozenset[str] | None, frozenset[str]], ...]:
        """``agent``'s ``restrict()`` calls in force, as ``(allow, deny)`` pairs (a queued call carries them to its worker)."""
        return tuple((r.allow, r.deny) for r in self._core.layers.restrictions.get(agent, ()))

    def mint_token(self) -> ToolExecutionToken:
        return mint_token(self._core.issuer)

    def issued(self, token: object) -> bool:
        return issued_by(token, self._core.issuer)

