"""``ToolRegistry``: the ``ctx.tools`` service.

One registry serves a whole app; what differs per caller is *which context it
acts as*. ``ctx.tools`` hands out a view bound to ``ctx`` (see
``Context.get``): registrations, restrictions and guards made through it land
in that context's scope and die with that context. All views share one
:class:`_Core` (the layers, the minted tokens, the mode).

The registry is also the :class:`~dsh_tools.pipeline.PipelineHost` of the
standard pipeline, and ``execute`` is :func:`~dsh_tools.pipeline.execute_call`.
Its call store (``store=``, a :class:`~dsh_tools.store.MemoryStore` unless
given) keeps the calls whose approval was deferred (:mod:`.approvals`) and
the journal of every call (:mod:`.journal`).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, Literal, get_args

from dsh_tools.code_mode.runtime import CodeLanguage
from dsh_tools.disposer import Disposer
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult, ToolExecutionToken, mint_token
from dsh_tools.host.context import Agent, Context
from dsh_tools.host.identity import WeakIdentityDict
from dsh_tools.host.events import EventBus
from dsh_tools.host.services import APPROVAL, SYSTEM_PROMPT, TOOLS
from dsh_tools.pipeline.batch import DEFAULT_MAX_PARALLEL, check_max_parallel, execute_batch
from dsh_tools.pipeline.classify import ExecutionMode, classify_input
from dsh_tools.pipeline.compose import execute_call
from dsh_tools.pipeline.presentation import REGISTRY_GATES
from dsh_tools.pipeline.host import Guard
from dsh_tools.pipeline.orphans import DEFAULT_GRACE_MS, Orphans, check_grace_ms
from dsh_tools.registry.approvals import DEFAULT_LEASE_SECONDS, DEFAULT_MAX_PARKED, ParkingLot
from dsh_tools.registry.journal import CallJournal
from dsh_tools.registry.parked_calls import ParkedCalls
from dsh_tools.registry.layers import Restriction, ScopeView, ToolLayers
from dsh_tools.registry.snapshot import snapshot
from dsh_tools.schema import RegisteredTool, ToolDefinition, ToolSchema
from dsh_tools.store.memory import MemoryStore
from dsh_tools.store.protocol import CallStore
from dsh_tools.store.records import ParkedCall

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalService

__all__ = ["RUN_CODE_NAME", "ToolMode", "ToolRegistry"]

ToolMode = Literal["native", "code", "both"]
RUN_CODE_NAME: Final = "run_code"
"""The reserved Code Mode transport: outside the filterable layers in code/both modes."""

CHANGE: Final = "tools/change"


class _Core:
    """State shared by every view of one registry."""

    __slots__ = (
        "mode", "modes", "layers", "tokens", "transport", "install_code_mode", "max_parallel_sub_calls", "lot", "journal",
        "forgetting", "orphans", "code_language",
    )

    def __init__(self, mode: ToolMode, max_parallel_sub_calls: int, lot: ParkingLot, cancel_grace_ms: float) -> None:
        self.mode: ToolMode = mode
        self.orphans = Orphans(cancel_grace_ms)
        self.max_parallel_sub_calls = max_parallel_sub_calls
        # Per-agent presentation (``present_as``); weak: a gone agent keeps nothing alive;
        # by identity: an agent's own __hash__/__eq__ are never asked.
        self.modes: WeakIdentityDict[Agent, ToolMode] = WeakIdentityDict()
        self.layers = ToolLayers()
        self.lot = lot
        self.journal = CallJournal(lot.store)
        # Agents whose disposal drops their parked calls from a store that is not durable (tracked once each).
        self.forgetting: WeakIdentityDict[Agent, None] = WeakIdentityDict()
        self.tokens: weakref.WeakSet[ToolExecutionToken] = weakref.WeakSet()
        self.transport: RegisteredTool | None = None
        # Set by the prompt wiring: installs run_code and the SDK section once.
        self.install_code_mode: Callable[[], None] | None = None
        self.code_language: CodeLanguage = "typescript"

    def mode_for(self, agent: Agent | None) -> ToolMode:
        if agent is None:
            return self.mode
        return self.modes.get(agent, self.mode)


class ToolRegistry(ParkedCalls):
    """Register tools, restrict and guard them, resolve them per agent, execute calls."""

    __slots__ = ("_core", "_ctx", "__weakref__")

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
    ) -> None:
        if mode not in get_args(ToolMode):
            raise ValueError(f"mode must be one of native, code, both; got {mode!r}")
        if code_language not in get_args(CodeLanguage):
            raise ValueError(f"code_language must be 'typescript' or 'python', got {code_language!r}")
        check_max_parallel(max_parallel_sub_calls, "max_parallel_sub_calls")
        if type(max_parked_per_agent) is not int or max_parked_per_agent < 0:
            raise ValueError("max_parked_per_agent must be an int >= 0")
        if type(lease_seconds) not in (int, float) or not 0.03 <= lease_seconds <= 86_400:
            raise ValueError("lease_seconds must be a number of seconds from 0.03 to 86400")
        if store is not None and not isinstance(store, CallStore):
            raise TypeError(f"store must be a CallStore (MemoryStore, SqliteStore, PostgresStore), got {type(store).__name__}")
        prompt = ctx.get(SYSTEM_PROMPT)
        if prompt is None:
            raise RuntimeError("ToolRegistry needs a SystemPrompt on the context: construct SystemPrompt(ctx) first")
        check_grace_ms(cancel_grace_ms, "cancel_grace_ms")
        lot = ParkingLot(store if store is not None else MemoryStore(), max_per_agent=max_parked_per_agent, lease_seconds=float(lease_seconds))
        self._core = _Core(mode, max_parallel_sub_calls, lot, cancel_grace_ms)
        self._core.code_language = code_language
        self._ctx = ctx
        ctx.track(ctx.events.add_probe(self._core.journal))
        ctx.provide(TOOLS, self)
        from dsh_tools.registry.prompt import contribute_to_prompt

        contribute_to_prompt(self, prompt)

    def bind(self, ctx: Context) -> ToolRegistry:
        """This registry acting as ``ctx`` (what ``ctx.tools`` returns)."""
        view = object.__new__(ToolRegistry)
        view._core = self._core
        view._ctx = ctx
        return view

    @property
    def mode(self) -> ToolMode:
        """``native``, ``code`` or ``both``: how the tools are presented to this view's scope.

        The registry's ``mode``, unless the scope's agent chose its own with
        :meth:`present_as`.
        """
        return self._core.mode_for(self._ctx.scope)

    @property
    def code_language(self) -> CodeLanguage:
        """The language Code Mode programs are written in (``"typescript"`` or ``"python"``):
        the SDK section, ``run_code``'s description and the runtime it needs follow it."""
        return self._core.code_language

    def mode_for(self, agent: Agent | None) -> ToolMode:
        """The effective presentation mode of ``agent`` (``None``: the registry's)."""
        return self._core.mode_for(agent)

    def present_as(self, mode: ToolMode) -> Disposer:
        """Present the tools to the calling agent as ``mode``, shadowing the registry's.

        Assembly, ``run_code`` availability and the SDK section follow the
        agent's mode; in ``code`` mode its direct calls of anything but
        ``run_code`` settle as ``UNKNOWN_TOOL``. Raises ``RuntimeError`` from
        a plain context or a second time in one scope (dispose the first to
        change it), ``ValueError`` for an unknown mode or when a non-native
        mode would collide with a tool of the agent's named ``run_code``.
        """
        self._ensure_live()
        agent = self._ctx.scope
        if agent is None:
            raise RuntimeError("present_as() sets one agent's presentation: call it through agent.ctx.tools")
        if mode not in get_args(ToolMode):
            raise ValueError(f"mode must be one of native, code, both; got {mode!r}")
        core = self._core
        if agent in core.modes:
            raise RuntimeError(
                f"agent {agent.name!r} already presents its tools as {core.modes[agent]!r}; "
                "dispose that present_as() first"
            )
        if mode != "native":
            if RUN_CODE_NAME in core.layers.view(agent).by_name:
                raise ValueError(f'"{RUN_CODE_NAME}" is the reserved Code Mode transport; agent {agent.name!r} has a tool by that name')
            if core.transport is None and core.install_code_mode is not None:
                core.install_code_mode()
        core.modes[agent] = mode

        def undo() -> bool:
            if core.modes.get(agent) != mode:
                return False
            del core.modes[agent]
            return True

        return self._announce(undo)

    @property
    def max_parallel_sub_calls(self) -> int:
        """How many of a Code Mode program's safe binding calls may dispatch at once."""
        return self._core.max_parallel_sub_calls

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
        if tool.name == RUN_CODE_NAME and self.mode != "native":
            raise ValueError(f'"{RUN_CODE_NAME}" is the reserved Code Mode transport in mode {self.mode!r}')
        scope = self._ctx.scope
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
        if RUN_CODE_NAME in named and self.mode != "native":
            raise ValueError(f'"{RUN_CODE_NAME}" is the reserved Code Mode transport and cannot be restricted')
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
        return self._ctx.track(self._core.layers.add_guard(self._ctx.scope, fn))

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
        """The executable view: restricted global layer ∪ the scope's own (+ ``run_code``)."""
        agent = self._scope(scope)
        tools = list(self._core.layers.view(agent).tools)
        transport = self._transport_for(agent)
        if transport is not None:
            tools.append(transport)
        return tools

    def _transport_for(self, agent: Agent | None) -> RegisteredTool | None:
        """``run_code`` when ``agent``'s mode has it."""
        core = self._core
        return core.transport if core.transport is not None and core.mode_for(agent) != "native" else None

    def end_capabilities(self, scope: Agent | None = None) -> tuple[RegisteredTool, ...]:
        """The visible tools without the Code Mode transport (what the SDK binds)."""
        return self._core.layers.view(self._scope(scope)).tools

    def scope_view(self, scope: Agent | None = None) -> ScopeView:
        """Internal: the cached per-scope view (valid until the next registry change)."""
        return self._core.layers.view(self._scope(scope))

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
        transport = self._transport_for(agent)
        if transport is not None:
            schemas.append(transport.schema)
        return schemas

    # -- execution (PipelineHost) ------------------------------------------
    async def execute(self, call: ToolExecutionInput) -> ToolExecutionResult:
        """Run one call through the standard pipeline; never raises for bad input.

        Gates: :data:`~dsh_tools.pipeline.REGISTRY_GATES` (a Code Mode agent's
        direct calls are checked first, then the standard gates). If the task
        awaiting it is cancelled, the call is still recorded (``tools/result``
        sees it, ``ABORTED``) before ``CancelledError`` propagates.
        """
        return await execute_call(self, call, gates=REGISTRY_GATES)

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
        return await execute_batch(self, calls, max_parallel=max_parallel, gates=REGISTRY_GATES)

    def execution_mode(self, call: ToolExecutionInput) -> ExecutionMode:
        """``"parallel"`` if the definition the call's agent resolves says its arguments are safe to overlap.

        Only an exact ``True`` from ``is_concurrency_safe(args)`` counts;
        unknown tools, ``run_code``, invalid input and a classifier that
        raises are ``"exclusive"``.
        """
        return classify_input(self, call)

    @property
    def events(self) -> EventBus:
        return self._ctx.events

    @property
    def logger(self) -> logging.Logger:
        return self._ctx.logger

    def resolve(self, name: str, agent: Agent | None) -> RegisteredTool | None:
        if name == RUN_CODE_NAME:
            transport = self._transport_for(agent)
            if transport is not None:
                return transport
        return self._core.layers.view(agent).by_name.get(name) if type(name) is str else None

    def guards_for(self, agent: Agent | None) -> Sequence[Guard]:
        return self._core.layers.guards_for(agent)

    def approval(self) -> ApprovalService | None:
        return self._ctx.get(APPROVAL)

    def mint_token(self) -> ToolExecutionToken:
        token = mint_token()
        self._core.tokens.add(token)
        return token

    def issued(self, token: object) -> bool:
        return type(token) is ToolExecutionToken and token in self._core.tokens

    def offer_code_mode(self, install: Callable[[], None]) -> None:
        """Internal (prompt wiring): how to install Code Mode when an agent first needs it."""
        self._core.install_code_mode = install

    def install_transport(self, transport: RegisteredTool) -> None:
        """Internal (Code Mode): set the reserved ``run_code`` tool of a non-native registry."""
        self._core.transport = transport

