"""The ``system-prompt/assemble`` waterfall: listeners wrapping the canonical assembly.

Each listener gets ``(context, canonical, next)``; ``next()`` runs the rest of
the chain (the innermost ``next`` returns the canonical assembly) and may be
called any number of times or not at all. Listeners may be sync or async.
Assembly is a configuration edge, so a listener that raises makes ``assemble``
raise, and one returning anything but a :class:`PromptAssembly` is a
``TypeError`` naming it, rather than a malformed prompt reaching a model.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from dsh_tools.schema import ToolSchema
from dsh_tools.system_prompt.canonical import describe
from dsh_tools.system_prompt.records import AssembleContext, AssembledSection, PromptAssembly

__all__ = ["ASSEMBLE_EVENT", "run_waterfall"]

ASSEMBLE_EVENT = "system-prompt/assemble"


async def run_waterfall(
    listeners: Sequence[Callable[..., Any]], context: AssembleContext, canonical: PromptAssembly
) -> PromptAssembly:
    """Compose ``listeners`` (first = outermost) around ``canonical`` and run them."""

    async def run(index: int) -> PromptAssembly:
        if index == len(listeners):
            return canonical
        listener = listeners[index]

        async def next_() -> PromptAssembly:
            return await run(index + 1)

        result = listener(context, canonical, next_)
        if inspect.isawaitable(result):
            result = await result
        return checked_assembly(result, listener)

    return await run(0)


def checked_assembly(result: object, listener: object) -> PromptAssembly:
    """``result`` as a well-formed assembly (tuples of the right records) or a ``TypeError``."""
    if not isinstance(result, PromptAssembly):
        raise TypeError(
            f"{ASSEMBLE_EVENT} listener {describe(listener)} returned {type(result).__name__}, not a PromptAssembly"
        )
    sections: object = result.sections
    tools: object = result.tools
    if not isinstance(sections, (tuple, list)) or not all(isinstance(s, AssembledSection) for s in sections):
        raise TypeError(
            f"{ASSEMBLE_EVENT} listener {describe(listener)} returned sections that are not AssembledSection records"
        )
    if not isinstance(tools, (tuple, list)) or not all(isinstance(t, ToolSchema) for t in tools):
        raise TypeError(
            f"{ASSEMBLE_EVENT} listener {describe(listener)} returned tools that are not ToolSchema records"
        )
    if isinstance(sections, tuple) and isinstance(tools, tuple):
        return result
    return PromptAssembly(tuple(sections), tuple(tools))
