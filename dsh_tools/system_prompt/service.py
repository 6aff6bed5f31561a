"""``SystemPrompt``: the prompt-assembly service plugins reach as ``ctx.system_prompt``.

It is a *context-bound* service: one shared :class:`PromptState` behind any
number of views, each acting as the context that asked for it. A registration
made through ``agent.ctx.system_prompt`` therefore lands in that agent's layer
and is undone when ``agent.ctx`` is disposed, with no scope argument to forget.

``assemble`` is the configuration edge of this package: the pure rules in
:mod:`~dsh_tools.system_prompt.canonical` report problems as values, and here
they become exceptions, because a prompt built from a broken configuration
must not reach a model. So do the ``system-prompt/assemble`` listeners' own
failures: one that raises makes ``assemble`` raise, and a malformed answer is
a ``TypeError`` naming the listener.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, NoReturn

from returns.functions import raise_exception

from dsh_tools.disposer import Disposer
from dsh_tools.context.services import SYSTEM_PROMPT
from dsh_tools.listener_chain import run_chain
from dsh_tools.system_prompt.canonical import (
    check_assembly,
    check_section,
    collect_tools,
    describe,
    evaluate_sections,
    order_tools,
    parse_tool_order,
)
from dsh_tools.system_prompt.records import (
    AssembleContext,
    Preflight,
    PromptAssembly,
    PromptSection,
    ToolProvider,
)
from dsh_tools.system_prompt.restore import restore_protected
from dsh_tools.system_prompt.state import PromptState

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent, Context

__all__ = ["ASSEMBLE_EVENT", "SystemPrompt"]

ASSEMBLE_EVENT: Final = "system-prompt/assemble"


class SystemPrompt:
    """Sections, tool providers, protections and preflight checks → one assembly.

    ``SystemPrompt(ctx, tool_order=...)`` provides itself as ``ctx.system_prompt``
    until ``ctx`` is disposed. ``tool_order`` is validated here (exactly one
    ``TOOL_ORDER_REST``, no duplicates) so a typo in its shape fails at boot;
    whether its names exist can only be known per assembly.
    """

    __slots__ = ("_state", "_ctx")

    _state: PromptState
    _ctx: Context

    def __init__(self, ctx: Context, *, tool_order: Sequence[str] | None = None) -> None:
        self._state = PromptState(parse_tool_order(tool_order).lash(raise_exception).unwrap())
        self._ctx = ctx
        ctx.provide(SYSTEM_PROMPT, self)

    def bind(self, ctx: Context) -> SystemPrompt:
        """A view of the same prompt acting as ``ctx`` (its layer, its lifetime)."""
        view = object.__new__(SystemPrompt)
        view._state = self._state
        view._ctx = ctx
        return view

    @property
    def tool_order(self) -> tuple[str, ...] | None:
        """The validated ``tool_order`` this prompt was built with."""
        return self._state.tool_order

    @property
    def scope(self) -> Agent | None:
        """The layer this view registers in: its context's agent, or ``None`` (global)."""
        return self._ctx.scope

    # -- registration ----------------------------------------------------
    def section(self, section: PromptSection) -> Disposer:
        """Add a section to this view's layer; a scoped one shadows a same-named global.

        ``ValueError`` on a duplicate name in the layer, or when a scoped section
        would shadow a globally protected one.
        """
        return self._tie(self._state.add_section(self.scope, check_section(section)))

    def tools(self, provider: ToolProvider) -> Disposer:
        """Add a tool provider; global providers feed every assembly, scoped ones their agent's.

        Providers' schemas are collected in registration order, then put in
        code-point order of their names, or by ``tool_order`` when given.
        """
        if not callable(provider):
            raise TypeError("tools() takes a function (AssembleContext) -> ToolProviderResult")
        return self._tie(self._state.add_provider(self.scope, provider))

    def preflight(self, check: Preflight) -> Disposer:
        """Run ``check(context)`` at the start of every assembly this view's scope hears.

        A check rejects the assembly by raising (an actionable error, e.g. "Code
        Mode needs a TypeScript runtime: provide CODE_RUNTIME"); the exception
        propagates from ``assemble`` unchanged. Checks run in registration order,
        before any section text or tool provider is evaluated.
        """
        if not callable(check):
            raise TypeError("preflight() takes a function (AssembleContext) -> None")
        return self._tie(self._state.add_preflight(self.scope, check))

    def protect(self, *, sections: Sequence[str] = (), tools: Sequence[str] = ()) -> Disposer:
        """Guarantee these names survive the assembly waterfall in canonical form.

        Protection is per scope (global from a plain context, covering every
        assembly). ``ValueError`` when naming nothing, or when globally
        protecting a section name some agent already shadows.
        """
        section_names = _names("sections", sections)
        tool_names = _names("tools", tools)
        if not section_names and not tool_names:
            raise ValueError("protect() needs at least one section or tool name")
        return self._tie(self._state.add_protection(self.scope, section_names, tool_names))

    def _tie(self, undo: Callable[[], None]) -> Disposer:
        try:
            return self._ctx.track(undo)
        except BaseException:
            undo()  # the context is disposed: do not leave an untracked registration behind
            raise

    # -- assembly --------------------------------------------------------
    async def assemble(self, context: AssembleContext | None = None) -> PromptAssembly:
        """Build the prompt for ``context.scope`` (default: this view's scope).

        Preflight checks → canonical assembly (visible sections in ascending
        order with texts evaluated, provider tools in code-point order of
        their names or by ``tool_order``) →
        the ``system-prompt/assemble`` waterfall → protected entries restored.
        """
        if context is None:
            context = AssembleContext(scope=self.scope)
        elif not isinstance(context, AssembleContext):
            raise TypeError(f"assemble() takes an AssembleContext, got {type(context).__name__}")
        state = self._state
        scope = context.scope
        for check in state.preflights(scope):
            check(context)
        canonical = self.canonical(context)
        listeners = self._ctx.events.listeners(ASSEMBLE_EVENT, scope)
        final = await run_chain(listeners, (context, canonical), _canonical, check_assembly, _RAISE)
        protected_sections, protected_tools = state.protected(scope)
        return restore_protected(canonical, final, sections=protected_sections, tools=protected_tools)

    def canonical(self, context: AssembleContext) -> PromptAssembly:
        """The registry's own assembly for ``context``, before any listener (no preflight)."""
        state = self._state
        sections = evaluate_sections(state.visible_sections(context.scope), context)
        tools = (
            collect_tools(state.providers(context.scope), context)
            .bind(lambda collected: order_tools(collected[0], state.tool_order, collected[1]))
            .lash(raise_exception)
            .unwrap()
        )
        return PromptAssembly(sections, tools)


async def _canonical(context: AssembleContext, canonical: PromptAssembly) -> PromptAssembly:
    return canonical  # the innermost ``next()``


class _RaiseAtEdge:
    """The assembly chain's failure rule (see the module docstring)."""

    def raised(self, listener: object, error: BaseException) -> NoReturn:
        raise error

    def refused(self, listener: object, problem: str) -> NoReturn:
        raise TypeError(f"{ASSEMBLE_EVENT} listener {describe(listener)} {problem}")


_RAISE: Final = _RaiseAtEdge()


def _names(what: str, names: Sequence[str]) -> frozenset[str]:
    if isinstance(names, str):
        raise TypeError(f"protect({what}=...) takes a sequence of names, not the string {names!r}")
    out = frozenset(names)
    for name in out:
        if not isinstance(name, str) or not name:
            raise ValueError(f"protect({what}=...) names must be non-empty strings, got {name!r}")
    return out
