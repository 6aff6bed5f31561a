"""``CodeMode``: how each agent is shown its tools, and what Code Mode adds to a registry.

An agent sees its tools ``native`` (wire function definitions), ``code`` (only
``run_code``, the tools described as an SDK) or ``both``: the registry's mode,
or its own from ``present_as``. This plugin holds those modes and hooks the
registry's seams, as ``TimeoutPolicy`` hooks ``tools/execute``: it is the
prompt's tool provider, and once a scope's mode is not native it serves
``run_code`` beside the layers (``registry.serve``), gates direct calls
(``registry.add_gate``) and adds the SDK section (:mod:`.install`).

``ToolRegistry`` builds one from its keywords and delegates ``mode``,
``present_as``, ``code_language``, ``max_parallel_sub_calls``, ``catalog``, the
presentation rule of approvals and parked programs to it. With
``catalog="search"`` it also keeps the catalog index ``tools.$search`` ranks
with (:mod:`.search`), built on first need and kept in step with the layers. The registry loads this module,
so it stays light: the SDK renderers, the bridge and replay load on first
need. They never import this module, so deferring them closes no cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from returns.result import Failure, Result, Success

from dsh_tools.code_mode import DIRECT_NAMES, RUN_CODE_NAME
from dsh_tools.code_mode.runtime import CodeLanguage, check_choice, code_runtime
from dsh_tools.code_seam import Catalog as Catalog, ToolMode as ToolMode
from dsh_tools.code_mode.search.builtins import DEFAULT_CATALOG_CHARS, check_catalog_chars
from dsh_tools.errors import ToolNotFoundError
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.context.identity import WeakIdentityDict
from dsh_tools.context.services import SYSTEM_PROMPT
from dsh_tools.dbos.seam import route_of
from dsh_tools.pipeline.batch import check_max_parallel
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.outcomes import Settled, exception_result
from dsh_tools.pipeline.plan import CallPlan, plan_call
from dsh_tools.system_prompt.records import AssembleContext, ToolProviderResult

if TYPE_CHECKING:
    from dsh_tools.code_mode.search.index import CatalogIndex
    from dsh_tools.context.context import Agent
    from dsh_tools.context.ports import ToolsPort
    from dsh_tools.call_records import ParkedCall

__all__ = ["RESERVED", "Catalog", "CodeMode", "ToolMode"]

RESERVED: Final = f'"{RUN_CODE_NAME}" is the reserved Code Mode transport'


class CodeMode:
    """The registry's presentation plugin: per-agent modes, the wire tools, Code Mode armed on first need."""

    __slots__ = (
        "_registry", "mode", "code_language", "max_parallel_sub_calls", "catalog", "catalog_chars", "_modes", "_armed",
        "_index",
    )

    def __init__(
        self,
        registry: ToolsPort,
        *,
        mode: ToolMode,
        code_language: CodeLanguage,
        max_parallel_sub_calls: int,
        catalog: Catalog = "full",
        catalog_chars: int = DEFAULT_CATALOG_CHARS,
    ) -> None:
        check_choice("mode", mode, ToolMode)
        check_choice("code_language", code_language, CodeLanguage)
        check_choice("catalog", catalog, Catalog)
        check_max_parallel(max_parallel_sub_calls, "max_parallel_sub_calls")
        prompt = registry.context.get(SYSTEM_PROMPT)
        if prompt is None:
            raise RuntimeError("ToolRegistry needs a SystemPrompt on the context: construct SystemPrompt(ctx) first")
        self._registry = registry
        self.mode: ToolMode = mode
        self.code_language: CodeLanguage = code_language
        self.max_parallel_sub_calls = max_parallel_sub_calls
        self.catalog: Catalog = catalog
        self.catalog_chars = check_catalog_chars(catalog_chars)
        self._index: CatalogIndex | None = None
        # Weak: a gone agent keeps nothing alive; by identity: its own __hash__/__eq__ are never asked.
        self._modes: WeakIdentityDict[Agent, ToolMode] = WeakIdentityDict()
        self._armed = False
        prompt.tools(self._wire_tools)
        if mode != "native":
            self._arm()

    def mode_for(self, agent: Agent | None) -> ToolMode:
        """The effective presentation mode of ``agent`` (``None``: the registry's)."""
        return self.mode if agent is None else self._modes.get(agent, self.mode)

    def present_as(self, agent: Agent | None, mode: ToolMode) -> Callable[[], bool]:
        """Set ``agent``'s mode; the undo (``True`` if it was still in place) is the registry's to announce."""
        if agent is None:
            raise RuntimeError("present_as() sets one agent's presentation: call it through agent.ctx.tools")
        check_choice("mode", mode, ToolMode)
        modes = self._modes
        if agent in modes:
            raise RuntimeError(
                f"agent {agent.name!r} already presents its tools as {modes[agent]!r}; dispose that present_as() first"
            )
        if mode != "native":
            if RUN_CODE_NAME in self._registry.scope_view(agent).by_name:
                raise ValueError(f"{RESERVED}; agent {agent.name!r} has a tool by that name")
            self._arm()
        modes[agent] = mode

        def undo() -> bool:
            if modes.get(agent) != mode:
                return False
            del modes[agent]
            return True

        return undo

    def _arm(self) -> None:
        if not self._armed:
            from dsh_tools.code_mode.install import install_code_mode  # first need: see the module docstring

            registry = self._registry
            transport = install_code_mode(registry, self.code_language)
            registry.serve(RUN_CODE_NAME, lambda agent: None if self.mode_for(agent) == "native" else transport, RESERVED)
            registry.add_gate(self.check_presentation)
            self._armed = True

    def catalog_index(self) -> CatalogIndex:
        """The index ``$search`` ranks with, first brought in step with the layers (one new tool: one new document)."""
        index = self._index
        if index is None:
            from dsh_tools.code_mode.search.index import CatalogIndex  # first need: see the module docstring

            index = self._index = CatalogIndex()
        layers = self._registry.layers
        index.sync(layers.version, layers.every_tool)
        return index

    def _wire_tools(self, context: AssembleContext) -> ToolProviderResult:
        """The prompt's tools for ``context.scope``: native, only the served ones (``run_code``, ``read_result``), or both.

        With ``catalog="search"`` the agent's own names stay known in ``code``
        mode, so ``tool_order`` may name them: it orders the SDK's declarations.
        """
        scope, registry = context.scope, self._registry
        mode = self.mode_for(scope)
        schemas = registry.schemas(scope)  # the served tools (run_code, read_result) come last
        served = schemas[len(registry.end_capabilities(scope)):]
        served_names = [schema.name for schema in served]
        if mode == "code":
            known = [*served_names, *registry.known_names(scope)] if self.catalog == "search" else served_names
            return ToolProviderResult(served, known)
        return ToolProviderResult(schemas, [*registry.known_names(scope), *served_names])

    # -- the presentation rule -------------------------------------------------
    def refuses(self, name: str, agent: Agent | None) -> bool:
        """Whether ``agent`` may not call ``name`` directly: in code mode only ``run_code`` and ``read_result`` are."""
        return name not in DIRECT_NAMES and self.mode_for(agent) == "code"

    async def check_presentation(self, host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
        """The gate: a code-mode agent's direct call (no ``parent``) of anything but ``run_code`` is ``UNKNOWN_TOOL``.

        That agent was shown one wire tool, so the call did not come from its
        surface; the text routes the model back. A program's sub-calls carry a
        ``parent`` and pass, except ``run_code`` itself: a program does not
        start programs (``catalog="search"`` reaches any name, and a nested run
        would start with bounds of its own), so it is unknown there, as it is
        to the full SDK.
        """
        name = execution.name
        if execution.parent is None:
            if self.refuses(name, execution.agent):
                text = f"only `{RUN_CODE_NAME}` is callable directly; call `{name}` from inside a run_code program instead"
                return Failure(Settled(execution, exception_result(execution.call_id, ToolNotFoundError(name, text))))
        elif name == RUN_CODE_NAME and type(host) is CallPlan and _run_code(host.parent):
            return Failure(Settled(execution, exception_result(execution.call_id, ToolNotFoundError(name))))
        return Success(execution)

    def stale_reason(self, name: str, agent: Agent) -> str | None:
        """Why an approved direct call of ``name`` is no longer offered to ``agent`` as one (``APPROVAL_STALE``)."""
        if self.refuses(name, agent):
            return f'tool "{name}" was approved, but agent {agent.name!r} now calls it only from {RUN_CODE_NAME}'
        return None

    # -- parked programs ---------------------------------------------------------
    def program_problem(self) -> str | None:
        """Why a parked program cannot be rerun here now, or ``None`` (checked before anything is claimed).

        A registry that routes ``run_code`` to a queue reruns programs there: it needs no runtime of its own.
        """
        routes = self._registry.routes
        if routes and route_of(routes, RUN_CODE_NAME) is not None:
            return None
        runtime = code_runtime(self._registry.context, self.code_language)
        if isinstance(runtime, str):
            return runtime
        return "the code runtime is disposed" if getattr(runtime, "disposed", False) is True else None

    async def resume_program(
        self, plan: PipelineHost, parked: ParkedCall, execution: ToolExecution, stale: str | None, *, tampered: bool
    ) -> ToolExecutionResult:
        """Settle the approved sub-call (``plan`` is its plan), then rerun its program by replay.

        ``tampered``: the parked row does not match its digest, so neither runs. ``plan`` is typed as the
        call's host (what ``ctx.tools``'s contract can name); a host that is not the sub-call's plan is
        planned for it here, as a queue dispatcher does.
        """
        from dsh_tools.code_mode.replay import resume_program  # first need: see the module docstring

        return await resume_program(self._registry, plan_call(plan, execution), parked, execution, stale, tampered=tampered)


def _run_code(plan: CallPlan | None) -> bool:
    """Whether ``plan`` is a ``run_code`` call's (so a call it makes is a program's sub-call)."""
    return plan is not None and plan.name == RUN_CODE_NAME
