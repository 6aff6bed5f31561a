"""The values of prompt assembly: what plugins contribute and what comes out.

Everything here is an immutable :class:`~dsh_tools.record.Record`, so an
``system-prompt/assemble`` listener can hand an assembly around (or keep a
reference to the canonical one) without anybody mutating it behind its back;
it derives a new one with ``assembly.set(...)`` or by constructing one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, TypeAlias

from dsh_tools.record import Record
from dsh_tools.tool_types import ToolSchema

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent

__all__ = [
    "TOOL_ORDER_REST",
    "AssembleContext",
    "AssembledSection",
    "Preflight",
    "PromptAssembly",
    "PromptSection",
    "SectionText",
    "ToolProvider",
    "ToolProviderResult",
]

TOOL_ORDER_REST: Final = "<unlisted-tools>"
"""The ``tool_order`` entry standing for "every tool not listed by name, in provider order"."""


class AssembleContext(Record):
    """Who the prompt is being assembled for: an agent (``scope``) or nobody (global)."""

    _wire_skip = frozenset({"scope"})
    scope: Agent | None = None


SectionText: TypeAlias = "str | Callable[[AssembleContext], str]"
"""A section's text, or a function computing it at each assembly (lazy sections)."""


class PromptSection(Record):
    """A named piece of the system prompt; sections are sorted by ascending ``order``."""

    _wire_skip = frozenset({"text"})
    name: str
    order: float
    text: SectionText


class AssembledSection(Record):
    """A section as assembled: its text already evaluated for one scope."""

    name: str
    order: float
    text: str


class PromptAssembly(Record):
    """What a model request is built from: ordered sections plus the wire tool schemas."""

    sections: tuple[AssembledSection, ...] = ()
    tools: tuple[ToolSchema, ...] = ()


class ToolProviderResult(Record):
    """One tool provider's contribution to an assembly.

    ``known_names`` is the name universe ``tool_order`` is validated against
    (a restricted-away tool is known but absent, so naming it in ``tool_order``
    is not a typo). It defaults to the names of ``schemas``; contributed schema
    names always count as known.
    """

    schemas: Sequence[ToolSchema]
    known_names: Sequence[str] | None = None


ToolProvider: TypeAlias = Callable[[AssembleContext], ToolProviderResult]
"""Contributes tool schemas to each assembly (the registry is one)."""

Preflight: TypeAlias = Callable[[AssembleContext], None]
"""A check run at the start of every assembly; raising rejects the assembly."""
