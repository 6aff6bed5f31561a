"""Putting protected contributions back after the assembly waterfall.

Listeners may rewrite an assembly freely, except for what the registry marked
protected (Code Mode's ``tools:sdk`` section and ``run_code`` schema): without
them the model could not use its tools at all, so no listener ordering may lose
them. The rule is name-based and idempotent:

* the canonical assembly has the entry: the result holds it exactly once, in
  canonical form (a replaced entry is swapped back in place, duplicates go, a
  removed one is reinserted);
* the canonical assembly lacks it: a listener invented it, so it is removed
  (a protected name is the registry's to define, not a listener's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from dsh_tools.tool_types import ToolSchema
from dsh_tools.system_prompt.records import AssembledSection, PromptAssembly

__all__ = ["restore_protected"]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


N = TypeVar("N", bound=_Named)
Slot = Callable[[list[N], N, Sequence[N]], int]


def restore_protected(
    canonical: PromptAssembly,
    final: PromptAssembly,
    *,
    sections: frozenset[str],
    tools: frozenset[str],
) -> PromptAssembly:
    """``final`` with every protected section and tool restored to its canonical state."""
    if not sections and not tools:
        return final
    restored_sections = _restore(final.sections, canonical.sections, sections, _section_slot)
    restored_tools = _restore(final.tools, canonical.tools, tools, _tool_slot)
    if restored_sections == final.sections and restored_tools == final.tools:
        return final
    return PromptAssembly(restored_sections, restored_tools)


def _restore(items: tuple[N, ...], canonical: tuple[N, ...], protected: frozenset[str], slot: Slot[N]) -> tuple[N, ...]:
    if not protected:
        return items
    out = list(items)
    wanted = [item for item in canonical if item.name in protected]
    for want in wanted:
        positions = [index for index, item in enumerate(out) if item.name == want.name]
        if not positions:
            out.insert(slot(out, want, canonical), want)
            continue
        out[positions[0]] = want
        for index in reversed(positions[1:]):
            del out[index]
    invented = protected - {item.name for item in wanted}
    if invented:
        out = [item for item in out if item.name not in invented]
    return tuple(out)


def _section_slot(out: list[AssembledSection], want: AssembledSection, canonical: Sequence[AssembledSection]) -> int:
    """Reinsert a section by its order: before the first section ordered after it."""
    for index, item in enumerate(out):
        if item.order > want.order:
            return index
    return len(out)


def _tool_slot(out: list[ToolSchema], want: ToolSchema, canonical: Sequence[ToolSchema]) -> int:
    """Reinsert a tool right after its nearest canonical predecessor still present (else first)."""
    names = [item.name for item in out]
    position = next(index for index, item in enumerate(canonical) if item.name == want.name)
    for before in reversed(canonical[:position]):
        if before.name in names:
            return names.index(before.name) + 1
    return 0
