"""Assembly rules as pure functions: section ordering, tool collection, ``tool_order``, a listener's answer.

Problems come back as ``Failure(error)`` (an unraised ``ValueError`` or
``TypeError`` carrying the message) rather than being raised, so the rules can
be tested and composed as plain values; the service is the configuration edge
that raises them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from returns.result import Failure, Result, Success

from dsh_tools.listener_chain import Refused
from dsh_tools.tool_types import ToolSchema
from dsh_tools.system_prompt.records import (
    TOOL_ORDER_REST,
    AssembleContext,
    AssembledSection,
    PromptAssembly,
    PromptSection,
    ToolProvider,
    ToolProviderResult,
)

__all__ = [
    "CollectedTools",
    "PromptError",
    "check_assembly",
    "check_section",
    "collect_tools",
    "describe",
    "evaluate_sections",
    "order_tools",
    "parse_tool_order",
]

PromptError = ValueError | TypeError
"""A configuration problem as a value: the exception the edge will raise."""

CollectedTools = tuple[tuple[ToolSchema, ...], frozenset[str]]
"""Every contributed schema in provider order, and the known-name universe."""


def describe(fn: object) -> str:
    """A callable's name for error messages (``module.qualname`` when it has one)."""
    qualname = getattr(fn, "__qualname__", None)
    module = getattr(fn, "__module__", None)
    if isinstance(qualname, str):
        return f"{module}.{qualname}" if isinstance(module, str) else qualname
    return repr(fn)


def parse_tool_order(names: Sequence[str] | None) -> Result[tuple[str, ...] | None, PromptError]:
    """Validate a ``tool_order``: strings, no duplicates, exactly one ``TOOL_ORDER_REST``.

    Without the rest marker there would be no place for tools nobody listed,
    so it is mandatory rather than defaulted: the author decides where they go.
    """
    if names is None:
        return Success(None)
    if isinstance(names, str):
        return Failure(TypeError(f"tool_order must be a sequence of tool names, not the string {names!r}"))
    order = tuple(names)
    for name in order:
        if not isinstance(name, str) or not name:
            return Failure(ValueError(f"tool_order entries must be non-empty strings, got {name!r}"))
    seen: set[str] = set()
    for name in order:
        if name in seen:
            what = "the rest marker TOOL_ORDER_REST" if name == TOOL_ORDER_REST else f"tool {name!r}"
            return Failure(ValueError(f"tool_order lists {what} twice"))
        seen.add(name)
    if TOOL_ORDER_REST not in seen:
        return Failure(
            ValueError(
                f"tool_order must contain TOOL_ORDER_REST ({TOOL_ORDER_REST!r}) exactly once, to place unlisted tools"
            )
        )
    return Success(order)


def check_section(section: object) -> PromptSection:
    """The registration edge's shape check of a section (raises ``TypeError``/``ValueError``)."""
    if not isinstance(section, PromptSection):
        raise TypeError(f"section() takes a PromptSection, got {type(section).__name__}")
    if not isinstance(section.name, str) or not section.name:
        raise ValueError(f"a prompt section needs a non-empty str name, got {section.name!r}")
    order = section.order
    if isinstance(order, bool) or not isinstance(order, (int, float)):
        raise TypeError(f"section {section.name!r}: order must be a number, got {type(order).__name__}")
    if not math.isfinite(order):
        raise ValueError(f"section {section.name!r}: order must be finite, got {order!r}")
    if not isinstance(section.text, str) and not callable(section.text):
        raise TypeError(f"section {section.name!r}: text must be a str or a function of AssembleContext")
    return section


def evaluate_sections(sections: Iterable[PromptSection], context: AssembleContext) -> tuple[AssembledSection, ...]:
    """Evaluate each section's text for ``context``; a lazy text must produce a ``str``."""
    out: list[AssembledSection] = []
    for section in sections:
        text = section.text
        if not isinstance(text, str):
            text = text(context)
            if not isinstance(text, str):
                raise TypeError(
                    f"section {section.name!r}: its text function {describe(section.text)} "
                    f"returned {type(text).__name__}, not str"
                )
        out.append(AssembledSection(section.name, section.order, text))
    return tuple(out)


def collect_tools(providers: Sequence[ToolProvider], context: AssembleContext) -> Result[CollectedTools, PromptError]:
    """Run the providers in registration order and concatenate their schemas.

    A schema named ``TOOL_ORDER_REST`` could never be placed by name, and two
    schemas of one name would give the model an ambiguous wire surface; both
    are configuration mistakes reported by naming the provider.
    """
    schemas: list[ToolSchema] = []
    known: set[str] = set()
    owner: dict[str, ToolProvider] = {}
    for provider in providers:
        result: object = provider(context)
        if not isinstance(result, ToolProviderResult):
            return Failure(
                TypeError(
                    f"tool provider {describe(provider)} returned {type(result).__name__}, not a ToolProviderResult"
                )
            )
        contributed: Sequence[object] = result.schemas
        for schema in contributed:
            if not isinstance(schema, ToolSchema):
                return Failure(
                    TypeError(
                        f"tool provider {describe(provider)} returned a {type(schema).__name__}, not a ToolSchema"
                    )
                )
            if schema.name == TOOL_ORDER_REST:
                return Failure(
                    ValueError(
                        f"tool provider {describe(provider)} returned a tool named {TOOL_ORDER_REST!r}, "
                        "which is reserved for tool_order"
                    )
                )
            first = owner.get(schema.name)
            if first is not None:
                return Failure(
                    ValueError(
                        f"tool {schema.name!r} is contributed twice (by {describe(first)} and {describe(provider)})"
                    )
                )
            owner[schema.name] = provider
            schemas.append(schema)
            known.add(schema.name)
        if result.known_names is not None:
            for name in result.known_names:
                if name == TOOL_ORDER_REST:
                    return Failure(
                        ValueError(
                            f"tool provider {describe(provider)} lists {TOOL_ORDER_REST!r} among its known names"
                        )
                    )
                known.add(name)
    return Success((tuple(schemas), frozenset(known)))


def order_tools(
    schemas: tuple[ToolSchema, ...], order: tuple[str, ...] | None, known: frozenset[str]
) -> Result[tuple[ToolSchema, ...], PromptError]:
    """Put the tools in their assembled order.

    Without ``tool_order``: code-point order of the names, whatever order the
    providers registered or returned them in, so the same set of tools is the
    same request prefix (prompt caches stay warm). With it: the listed names
    where listed, and at ``TOOL_ORDER_REST`` the unlisted rest in code-point
    order. A listed name outside ``known`` is a typo and fails; a known but
    absent name (a tool restricted away for this scope) is simply skipped.
    """
    by_name = sorted(schemas, key=_name)  # names are unique (collect_tools checks)
    if order is None:
        return Success(tuple(by_name))
    unknown = [name for name in order if name != TOOL_ORDER_REST and name not in known]
    if unknown:
        listed = ", ".join(repr(name) for name in unknown)
        return Failure(ValueError(f"tool_order names {listed}, which no tool provider knows"))
    named = {schema.name: schema for schema in schemas}
    listed_names = frozenset(order)
    out: list[ToolSchema] = []
    for name in order:
        if name == TOOL_ORDER_REST:
            out.extend(schema for schema in by_name if schema.name not in listed_names)
        else:
            schema = named.get(name)
            if schema is not None:
                out.append(schema)
    return Success(tuple(out))


def check_assembly(value: object) -> PromptAssembly | Refused:
    """A listener's answer as a well-formed assembly (tuples of the right records), or what is wrong with it.

    The problem is text, not an exception: only the listener chain knows whom to name in the ``TypeError``.
    """
    if not isinstance(value, PromptAssembly):
        return Refused(f"returned {type(value).__name__}, not a PromptAssembly")
    sections: object = value.sections
    tools: object = value.tools
    if not isinstance(sections, (tuple, list)) or not all(isinstance(s, AssembledSection) for s in sections):
        return Refused("returned sections that are not AssembledSection records")
    if not isinstance(tools, (tuple, list)) or not all(isinstance(t, ToolSchema) for t in tools):
        return Refused("returned tools that are not ToolSchema records")
    if isinstance(sections, tuple) and isinstance(tools, tuple):
        return value
    return PromptAssembly(tuple(sections), tuple(tools))


def _name(schema: ToolSchema) -> str:
    return schema.name
