"""What ``catalog="search"`` adds to Code Mode: the declared part of the SDK, and ``$search``/``$describe``.

The section declares the calling agent's tools in order (the author's
``tool_order`` first, then code-point order) while the whole text stays
within ``catalog_chars`` (:func:`search_section`, memoised on the agent's
view like the full SDK). A program's run then binds those tools by name, the
two built-ins, and every other name through the namespace's ``lookup``, so
any tool the agent may call is callable, through the full pipeline, and any
other name rejects as an unknown tool does.

The built-ins (:class:`Builtins`, one per run) are not tool calls: they run
no pipeline, write no journal row, do not count in ``meta["dispatches"]``,
and a run may make :data:`MAX_BUILTIN_CALLS` of them. On a replay they run
live, so a catalog that changed meanwhile may make the rerun diverge.
``$search`` ranks with the registry's :class:`~.index.CatalogIndex` over the
tools this agent may call; ``$describe`` gives a tool's declaration as the
full SDK shows it, or ``null`` for a tool the agent may not call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

from dsh_tools.code_mode.runtime import CodeBindingNamespace

from dsh_tools.json_values import JsonValue
from dsh_tools.system_prompt.canonical import order_tools
from dsh_tools.tool_types import RegisteredTool, describe_value
from dsh_tools_codegen import describe_tool_python, describe_tool_ts, render_search_sdk, render_search_sdk_python

if TYPE_CHECKING:
    from dsh_tools.code_mode.runtime import Binding
    from dsh_tools.context.context import Agent
    from dsh_tools.context.ports import ToolsPort

__all__ = [
    "DEFAULT_CATALOG_CHARS",
    "DEFAULT_SEARCH_LIMIT",
    "MAX_BUILTIN_CALLS",
    "MAX_SEARCH_LIMIT",
    "MIN_CATALOG_CHARS",
    "PYTHON_ALIASES",
    "Builtins",
    "check_catalog_chars",
    "search_namespace",
    "search_section",
]

SEARCH: Final = "$search"
DESCRIBE: Final = "$describe"
PYTHON_ALIASES: Final = {"search_tools": SEARCH, "describe_tool": DESCRIBE}
"""A Python program's spelling of the built-ins (``tools.search_tools``): attribute name → binding."""
DEFAULT_CATALOG_CHARS: Final = 6000
MIN_CATALOG_CHARS: Final = 2500
"""The instructions, the built-ins and the line counting the rest take about 2,150 characters (Python)."""
MAX_BUILTIN_CALLS: Final = 100
DEFAULT_SEARCH_LIMIT: Final = 10
MAX_SEARCH_LIMIT: Final = 50
_SECTION: Final = "tools:sdk:search"


class BuiltinError(Exception):
    """A built-in call the program got wrong (its arguments, or one call too many); it rejects inside the program."""


def check_catalog_chars(catalog_chars: object) -> int:
    """``catalog_chars`` as given, or ``ValueError``: an ``int`` the instructions and built-ins fit in."""
    if type(catalog_chars) is not int or catalog_chars < MIN_CATALOG_CHARS:
        raise ValueError(
            f"catalog_chars must be an int of at least {MIN_CATALOG_CHARS} (the instructions and built-ins "
            f"take about 2,150 characters), got {describe_value(catalog_chars)}"
        )
    return catalog_chars


def search_section(registry: ToolsPort, scope: Agent | None) -> tuple[str, tuple[str, ...]]:
    """The search-mode ``tools:sdk`` text for ``scope`` and the names it declares (memoised on the scope's view)."""
    view = registry.scope_view(scope)
    memo = view.memo.get(_SECTION)
    if isinstance(memo, tuple):
        return memo
    order = registry.context.system_prompt.tool_order
    names = {tool.name: tool for tool in view.tools}
    known = frozenset(names) | frozenset(order or ())
    schemas = order_tools(view.schemas, order, known).unwrap()  # every listed name is known: cannot fail
    ordered = [names[schema.name] for schema in schemas]
    budget = registry.code_mode.catalog_chars
    if registry.code_language == "python":
        made = render_search_sdk_python(ordered, budget)
    else:  # the snapshots' schemas are deep-frozen: the renderer's memo may trust them by identity
        made = render_search_sdk(ordered, budget, True)
    view.memo[_SECTION] = made
    return made


def search_namespace(
    registry: ToolsPort, agent: Agent | None, binding: Callable[..., Binding]
) -> CodeBindingNamespace:
    """A search-mode program's ``tools``: the declared tools, the built-ins, and any other name through
    ``lookup`` (``binding(name, typed=...)`` makes a tool's binding; ``typed=None`` reads it at the call).

    A tool named ``$search`` or ``$describe`` is shadowed by the built-in (in
    TypeScript they are the same member); Python reaches a tool named
    ``search_tools`` or ``describe_tool`` as ``tools["search_tools"](...)``.
    """
    view = registry.scope_view(agent)
    declared = (view.by_name[name] for name in search_section(registry, agent)[1])
    bindings = {tool.name: binding(tool.name, typed=tool.output_schema is not None) for tool in declared}
    bindings.update(Builtins(registry, agent).bindings())
    aliases = PYTHON_ALIASES if registry.code_language == "python" else {}
    return CodeBindingNamespace("tools", bindings, lambda name: binding(name, typed=None), aliases)


_PYTHON_SPELLING: Final = {SEARCH: "search_tools", DESCRIBE: "describe_tool"}
_KEYS: Final = {SEARCH: ("query", "limit"), DESCRIBE: ("name",)}
"""What each built-in takes."""


class Builtins:
    """The built-in bindings of one program run: ``$search`` and ``$describe``, counted."""

    __slots__ = ("_registry", "_agent", "_python", "calls")

    def __init__(self, registry: ToolsPort, agent: Agent | None) -> None:
        self._registry = registry
        self._agent = agent
        self._python = registry.code_language == "python"
        self.calls = 0

    def bindings(self) -> dict[str, Binding]:
        return {SEARCH: self.search, DESCRIBE: self.describe}

    def _spelled(self, name: str) -> str:
        return f"tools.{_PYTHON_SPELLING[name] if self._python else name}()"

    def _arguments(self, name: str, args: JsonValue) -> Mapping[str, JsonValue]:
        self.calls += 1
        if self.calls > MAX_BUILTIN_CALLS:
            raise BuiltinError(
                f"{self._spelled(name)}: a run may make at most {MAX_BUILTIN_CALLS} calls of the built-ins "
                "(search, describe); narrow the search instead"
            )
        if not isinstance(args, Mapping):
            raise BuiltinError(f"{self._spelled(name)} takes one object of arguments")
        unknown = sorted(key for key in args if key not in _KEYS[name])
        if unknown:  # a misspelt limit would otherwise be the default, silently
            takes = ", ".join(_KEYS[name])
            raise BuiltinError(f"{self._spelled(name)}: unknown argument {unknown[0][:60]!r} (it takes {takes})")
        return args

    async def search(self, args: JsonValue) -> JsonValue:
        """``{query, limit?}`` → ``[{name, description}, ...]``, best first, of the tools this agent may call."""
        found = self._arguments(SEARCH, args)
        query, limit = found.get("query"), found.get("limit", DEFAULT_SEARCH_LIMIT)
        if type(query) is not str:
            raise BuiltinError(f"{self._spelled(SEARCH)}: query must be a string, got {describe_value(query)}")
        if type(limit) is not int or not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise BuiltinError(
                f"{self._spelled(SEARCH)}: limit must be an integer from 1 to {MAX_SEARCH_LIMIT}, got {describe_value(limit)}"
            )
        view = self._registry.scope_view(self._agent)
        by_name = view.by_name

        def admits(tool: RegisteredTool) -> bool:
            return by_name.get(tool.name) is tool

        tools = self._registry.code_mode.catalog_index().search(query, limit, admits)
        return [{"name": tool.name, "description": tool.description} for tool in tools]

    async def describe(self, args: JsonValue) -> JsonValue:
        """``{name}`` → the tool's declaration as the full SDK shows it, or ``None`` for a tool this agent may not call."""
        found = self._arguments(DESCRIBE, args)
        name = found.get("name")
        if type(name) is not str:
            raise BuiltinError(f"{self._spelled(DESCRIBE)}: name must be a string, got {describe_value(name)}")
        tool = self._registry.scope_view(self._agent).by_name.get(name)
        if tool is None:
            return None
        return describe_tool_python(tool) if self._python else describe_tool_ts(tool, True)
