"""``ctx.tools``'s contract, below the registry: the Protocols of its public members, and the ``TOOLS`` key.

The context hands out the tool registry (``ctx.tools``, ``ctx.get(TOOLS)``)
without importing it: the registry sits above the context (it is built on
one), and a floor never imports the floors above it. So the context names the
registry by its contract: :class:`ToolsPort`, every public member of
:class:`~dsh_tools.registry.registry.ToolRegistry` with its full types, and
the two Protocols its members hand out (:class:`CodeModePort`,
:class:`CatalogIndexPort`); the system prompt service likewise
(:class:`SystemPromptPort`, ``ctx.system_prompt``). A user's type checker sees every member of
``ctx.tools`` with its types; what changed is the name of its type: a
function annotated ``registry: ToolRegistry`` does not accept ``ctx.tools``
(a Protocol is not the class), so code that takes ``ctx.tools`` is annotated
``ToolsPort`` (or ``PipelineHost``, for the pipeline's view), and
``isinstance(ctx.tools, ToolRegistry)`` narrows it where the class is needed
(the registry is what is provided).

``tests/foundation/test_ports.py`` keeps each Protocol and its class in
agreement: the same public names, and the class assignable to the Protocol
under ``mypy --strict``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from dsh_tools.context.keys import ServiceKey

if TYPE_CHECKING:
    from returns.result import Result

    from dsh_tools.approval import ApprovalService, ApprovalVerdict, PendingApproval, Remember
    from dsh_tools.call_records import ApprovalRule, ParkedCall
    from dsh_tools.call_store import CallStore
    from dsh_tools.code_seam import Catalog, CodeLanguage, ToolMode
    from dsh_tools.context.context import Agent, Context
    from dsh_tools.context.events import EventBus
    from dsh_tools.dbos.seam import QueueDispatcher
    from dsh_tools.disposer import Disposer
    from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult, ToolExecutionToken
    from dsh_tools.json_values import JsonValue
    from dsh_tools.orphans import Orphans
    from dsh_tools.seams import ExecutionMode, Gate, Guard, PipelineHost, Settled
    from dsh_tools.signals import AbortSignal
    from dsh_tools.system_prompt.records import AssembleContext, Preflight, PromptAssembly, PromptSection, ToolProvider
    from dsh_tools.tool_layers import ScopeView, ToolLayers
    from dsh_tools.tool_types import RegisteredTool, ToolDefinition, ToolSchema

__all__ = ["SYSTEM_PROMPT", "TOOLS", "CatalogIndexPort", "CodeModePort", "Served", "SystemPromptPort", "ToolsPort"]

Served = Callable[["Agent | None"], "RegisteredTool | None"]
"""A tool a plugin serves beside the layers: the one an agent gets, or ``None`` where it gets none."""


class ToolsPort(Protocol):
    """Every public member of :class:`~dsh_tools.registry.registry.ToolRegistry` (``ctx.tools``); a test keeps the two in agreement."""

    events: EventBus
    logger: logging.Logger
    routes: dict[str, str | None] | None

    def bind(self, ctx: Context) -> ToolsPort:
        """This registry acting as ``ctx`` (what ``ctx.tools`` returns)."""
        ...

    @property
    def code_mode(self) -> CodeModePort:
        """Internal: the presentation plugin this registry delegates modes, Code Mode and parked programs to."""
        ...

    @property
    def mode(self) -> ToolMode:
        """``native``, ``code`` or ``both``: how the tools are presented to this view's scope."""
        ...

    @property
    def code_language(self) -> CodeLanguage:
        """What Code Mode programs are written in: the SDK, the transport's description and the runtime follow it."""
        ...

    def mode_for(self, agent: Agent | None) -> ToolMode:
        """The effective presentation mode of ``agent`` (``None``: the registry's)."""
        ...

    def present_as(self, mode: ToolMode) -> Disposer:
        """Present the tools to the calling agent as ``mode``, shadowing the registry's (see ``docs/code-mode.md``)."""
        ...

    @property
    def max_parallel_sub_calls(self) -> int:
        """How many of a Code Mode program's safe binding calls may dispatch at once."""
        ...

    @property
    def max_inline_bytes(self) -> int | None:
        """The UTF-8 bytes of result text the model reads whole; past them it reads a preview (``None``: no limit)."""
        ...

    async def keep_spilled(self, agent_id: str, text: str) -> str:
        """Internal (the spill step's): keep a whole result text in the store; its locator."""
        ...

    @property
    def orphans(self) -> Orphans:
        """Bodies still running past ``cancel_grace_ms`` after their call was cancelled (``running``, ``count``)."""
        ...

    @property
    def context(self) -> Context:
        """The context this view acts as."""
        ...

    def register(self, definition: ToolDefinition) -> Disposer:
        """File a frozen snapshot of ``definition`` in the calling scope's layer."""
        ...

    def restrict(self, *, allow: Sequence[str] | None=..., deny: Sequence[str] | None=...) -> Disposer:
        """Mask the global layer for the calling agent (scoped contexts only)."""
        ...

    def guard(self, fn: Guard) -> Disposer:
        """Add a monotonic synchronous guard (global, or the calling agent's)."""
        ...

    def serve(self, name: str, served: Served, reserved: str) -> Disposer:
        """Serve ``served(agent)`` as ``name`` beside the layers (after them), to each agent it gives a tool."""
        ...

    def add_gate(self, gate: Gate) -> Disposer:
        """Run ``gate`` in :meth:`execute` and :meth:`execute_batch`, before the standard gates and after earlier added ones."""
        ...

    @property
    def gates(self) -> tuple[Gate, ...]:
        """What :meth:`execute` runs between admission and dispatch: the added gates, then ``STANDARD_GATES``."""
        ...

    def visible(self, scope: Agent | None=...) -> list[RegisteredTool]:
        """The executable view: restricted global layer ∪ the scope's own, then the tools served to it (``run_code``)."""
        ...

    def end_capabilities(self, scope: Agent | None=...) -> tuple[RegisteredTool, ...]:
        """The visible tools without the served ones (what the Code Mode SDK binds)."""
        ...

    def scope_view(self, scope: Agent | None=...) -> ScopeView:
        """Internal: the cached per-scope view (valid until the next registry change)."""
        ...

    @property
    def layers(self) -> ToolLayers:
        """Internal: the layers themselves (a catalog index follows their ``version`` and ``every_tool()``)."""
        ...

    def get(self, name: str, scope: Agent | None=...) -> RegisteredTool | None:
        """The snapshot ``scope`` resolves ``name`` to, or ``None`` (absent or restricted away)."""
        ...

    def known_names(self, scope: Agent | None=...) -> list[str]:
        """The pre-restriction name universe ``restrict`` validates against."""
        ...

    def schemas(self, scope: Agent | None=...) -> list[ToolSchema]:
        """Name, description and parameters of every visible tool (never callbacks)."""
        ...

    async def execute(self, call: ToolExecutionInput) -> ToolExecutionResult:
        """Run one call through the standard pipeline; never raises for bad input."""
        ...

    async def execute_batch(self, calls: Sequence[ToolExecutionInput], *, max_parallel: int=...) -> list[ToolExecutionResult]:
        """Run the sibling calls of one assistant message; results in input order."""
        ...

    def execution_mode(self, call: ToolExecutionInput) -> ExecutionMode:
        """``"parallel"`` if the definition the call's agent resolves says its arguments are safe to overlap."""
        ...

    def resolve(self, name: str, agent: Agent | None) -> RegisteredTool | None:
        ...

    def guards_for(self, agent: Agent | None) -> Sequence[Guard]:
        ...

    def approval(self) -> ApprovalService | None:
        ...

    def queue_dispatcher(self) -> QueueDispatcher | None:
        """Who runs this registry's queued dispatches (``QUEUE_DISPATCHER``), looked up when a routed call is planned."""
        ...

    def restrictions_of(self, agent: Agent) -> tuple[tuple[frozenset[str] | None, frozenset[str]], ...]:
        """``agent``'s ``restrict()`` calls in force, as ``(allow, deny)`` pairs (a queued call carries them to its worker)."""
        ...

    def mint_token(self) -> ToolExecutionToken:
        ...

    def issued(self, token: object) -> bool:
        ...

    @property
    def store(self) -> CallStore:
        """The call store in use: parked calls, decisions and the journal."""
        ...

    @property
    def lease_seconds(self) -> float:
        """How long a claim (a parked call run here, a thread step's calls) outlives this process unless renewed."""
        ...

    async def pending_approvals(self, agent: Agent | None=...) -> list[PendingApproval]:
        """Parked calls from the store, oldest first: ``agent``'s (decided or not, not yet run), or every undecided one."""
        ...

    async def resume(self, approval_id: str, outcome: ApprovalVerdict | None=..., *, arguments: JsonValue | None=..., decided_by: str | None=..., message: str | None=..., remember: Remember | None=..., signal: AbortSignal | None=...) -> ToolExecutionResult:
        """Decide a parked call (unless ``outcome`` is ``None`` and it is decided) and run it here; its final result."""
        ...

    async def remembered_rule(self, execution: ToolExecution, /) -> ApprovalRule | None:
        """Internal (:mod:`dsh_tools.pipeline.remembered`): the rule remembered for this call's agent and tool, as it is now."""
        ...

    async def recover(self, agent: Agent) -> list[ToolExecutionResult]:
        """Settle ``agent``'s calls that a stopped process left running (their lease lapsed); their results."""
        ...

    async def resume_decided(self, agent: Agent) -> list[ToolExecutionResult]:
        """Run every decided, not yet run parked call of ``agent`` (those another process claims first are skipped)."""
        ...

    def watch_decisions(self, agent: Agent, *, poll_seconds: float=...) -> AsyncIterator[ToolExecutionResult]:
        """Run each of ``agent``'s parked calls as its decision arrives, yielding its result; ends when the agent is disposed."""
        ...

    async def run_parked(self, parked: ParkedCall, execution: ToolExecution, stale: str | None) -> ToolExecutionResult:
        """Internal (:class:`~dsh_tools.registry.approvals.ParkingLot`): settle a claimed call's verdict and run it."""
        ...

    async def settle_parked(self, host: PipelineHost, parked: ParkedCall, execution: ToolExecution, stale: str | None) -> ToolExecutionResult:
        """Internal: settle a claimed call's verdict and run what follows it (a parked program's sub-call too)."""
        ...

    async def park_approval(self, execution: ToolExecution, reason: str | None, /) -> str:
        """Internal (:class:`~dsh_tools.pipeline.verdicts.ApprovalParking`): commit a deferred call."""
        ...

    async def announce_parked(self, approval_id: str) -> None:
        """Internal (Code Mode): a held sub-call became visible with its program; tell ``tools/parked`` listeners."""
        ...


class CodeModePort(Protocol):
    """Every public member of :class:`~dsh_tools.code_mode.plugin.CodeMode` (``ctx.tools.code_mode``)."""

    mode: ToolMode
    code_language: CodeLanguage
    max_parallel_sub_calls: int
    catalog: Catalog
    catalog_chars: int

    def mode_for(self, agent: Agent | None) -> ToolMode:
        """The effective presentation mode of ``agent`` (``None``: the registry's)."""
        ...

    def present_as(self, agent: Agent | None, mode: ToolMode) -> Callable[[], bool]:
        """Set ``agent``'s mode; the undo (``True`` if it was still in place) is the registry's to announce."""
        ...

    def catalog_index(self) -> CatalogIndexPort:
        """The index ``$search`` ranks with, first brought in step with the layers (one new tool: one new document)."""
        ...

    def refuses(self, name: str, agent: Agent | None) -> bool:
        """Whether ``agent`` may not call ``name`` directly: in code mode only ``run_code`` and ``read_result`` are."""
        ...

    async def check_presentation(self, host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
        """The gate: a code-mode agent's direct call (no ``parent``) of anything but ``run_code`` is ``UNKNOWN_TOOL``."""
        ...

    def stale_reason(self, name: str, agent: Agent) -> str | None:
        """Why an approved direct call of ``name`` is no longer offered to ``agent`` as one (``APPROVAL_STALE``)."""
        ...

    def program_problem(self) -> str | None:
        """Why a parked program cannot be rerun here now, or ``None`` (checked before anything is claimed)."""
        ...

    async def resume_program(self, plan: PipelineHost, parked: ParkedCall, execution: ToolExecution, stale: str | None, *, tampered: bool) -> ToolExecutionResult:
        """Settle the approved sub-call (``plan`` is its plan), then rerun its program by replay."""
        ...


class CatalogIndexPort(Protocol):
    """Every public member of :class:`~dsh_tools.code_mode.search.index.CatalogIndex`."""

    def __len__(self) -> int:
        """How many tools it holds documents for."""
        ...

    def sync(self, version: object, tools: Callable[[], Iterable[RegisteredTool]]) -> None:
        """Make the documents exactly ``tools()`` (by identity), unless ``version`` is the one last synced."""
        ...

    def search(self, query: str, limit: int, admits: Callable[[RegisteredTool], bool]) -> list[RegisteredTool]:
        """The ``limit`` best tools for ``query`` that ``admits`` lets through, best first (ties by name)."""
        ...


class SystemPromptPort(Protocol):
    """Every public member of :class:`~dsh_tools.system_prompt.service.SystemPrompt` (``ctx.system_prompt``)."""

    def bind(self, ctx: Context) -> SystemPromptPort:
        """A view of the same prompt acting as ``ctx`` (its layer, its lifetime)."""
        ...

    @property
    def tool_order(self) -> tuple[str, ...] | None:
        """The validated ``tool_order`` this prompt was built with."""
        ...

    @property
    def scope(self) -> Agent | None:
        """The layer this view registers in: its context's agent, or ``None`` (global)."""
        ...

    def section(self, section: PromptSection) -> Disposer:
        """Add a section to this view's layer; a scoped one shadows a same-named global."""
        ...

    def tools(self, provider: ToolProvider) -> Disposer:
        """Add a tool provider; global providers feed every assembly, scoped ones their agent's."""
        ...

    def preflight(self, check: Preflight) -> Disposer:
        """Run ``check(context)`` at the start of every assembly this view's scope hears."""
        ...

    def protect(self, *, sections: Sequence[str]=..., tools: Sequence[str]=...) -> Disposer:
        """Guarantee these names survive the assembly waterfall in canonical form."""
        ...

    async def assemble(self, context: AssembleContext | None=...) -> PromptAssembly:
        """Build the prompt for ``context.scope`` (default: this view's scope)."""
        ...

    def canonical(self, context: AssembleContext) -> PromptAssembly:
        """The registry's own assembly for ``context``, before any listener (no preflight)."""
        ...


TOOLS: ServiceKey[ToolsPort] = ServiceKey("tools")
"""The tool registry's service key (``ctx.tools`` reads it)."""
SYSTEM_PROMPT: ServiceKey[SystemPromptPort] = ServiceKey("systemPrompt")
"""The system prompt's service key (``ctx.system_prompt`` reads it)."""
