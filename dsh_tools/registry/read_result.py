"""``read_result``: the registry's built-in tool that pages through a spilled result.

A result past ``max_inline_bytes`` reaches the model as a preview naming a
locator (``pipeline/spill.py``); this tool reads the whole text back from the
call store, ``limit`` characters from ``offset`` (16,384 by default, at most
65,536 a call), as ``{"text", "offset", "nextOffset", "total"}``
(``nextOffset`` is ``null`` at the end). The registry serves it to every
agent whenever anything may spill (its own ``max_inline_bytes``, or a tool's),
in every presentation mode (a code-mode agent calls it directly); its name is
reserved. It is a tool call like any other, through the whole pipeline, and
its pages are never cut themselves.

A locator is read with the calling agent's id, so a forged, foreign, pruned
or malformed locator gets the same answer: ``Error: no spilled result ...``.
An offset past the end is an empty page; a negative one, or a limit below
one, is an error naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Final, NotRequired, TypedDict

from dsh_tools.code_mode import READ_RESULT_NAME
from dsh_tools.definitions.define import define_tool
from dsh_tools.definitions.props import Prop
from dsh_tools.execution import ToolExecution
from dsh_tools.registry.snapshot import snapshot
from dsh_tools.call_store import CallStore
from dsh_tools.store.spilled import DEFAULT_PAGE_CHARS, SpillStore
from dsh_tools.tool_types import RegisteredTool

__all__ = ["ReadResultArgs", "ResultPage", "make_read_result"]

DESCRIPTION: Final = (
    "Read more of a result that was too long to show whole: it was cut to its head and tail and names a "
    "locator. Returns up to `limit` characters from character `offset`, and `nextOffset` to go on from "
    "(null at the end)."
)


class ReadResultArgs(TypedDict):
    locator: Annotated[str, Prop(description="The locator the cut result names (res_...).")]
    offset: NotRequired[Annotated[int, Prop(description="The first character to read (default 0).")]]
    limit: NotRequired[Annotated[int, Prop(description="How many characters to read (default 16384, at most 65536).")]]


class ResultPage(TypedDict):
    text: str
    offset: int
    nextOffset: int | None
    total: int


class SpilledResultNotFound(LookupError):
    """The locator names no spilled result this agent may read (unknown, pruned, malformed or another agent's)."""


def make_read_result(store: Callable[[], CallStore]) -> RegisteredTool:
    """The ``read_result`` snapshot, reading from ``store()`` (the registry's store, looked up at each call)."""

    async def read(args: ReadResultArgs, exec: ToolExecution) -> ResultPage:
        kept = store()
        if not isinstance(kept, SpillStore):
            raise SpilledResultNotFound(f"this registry's store ({type(kept).__name__}) keeps no spilled results")
        agent = exec.agent
        page = await kept.read_spilled(
            args["locator"], agent.id if agent is not None else "", args.get("offset", 0), args.get("limit", DEFAULT_PAGE_CHARS)
        )
        if page is None:
            raise SpilledResultNotFound(
                "no spilled result under this locator: it is unknown, expired (pruned), or not this agent's"
            )
        return {"text": page.text, "offset": page.offset, "nextOffset": page.next_offset, "total": page.total}

    definition = define_tool(
        name=READ_RESULT_NAME, description=DESCRIPTION, args=ReadResultArgs, output=ResultPage, execute=read,
        is_concurrency_safe=lambda args: True,
    )
    return snapshot(definition)
