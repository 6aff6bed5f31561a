"""Spilling, between ``tools/post-execute`` and the final check: a result too large for the model is cut.

A registry's ``max_inline_bytes`` (or a tool's own, which wins) bounds the
text a result carries to the model. Past it, the text (all text blocks, as
``result.text`` joins them) is kept once in the call store under a fresh
locator, and the result goes on with one text block in its place: the
text's head, a line naming its full size and how to read the rest
(``read_result``), and its tail, the whole preview within the limit.
Image blocks stay as they are, where they were. A block of another kind
counts as the JSON text a model is sent for it (``content.block_text``),
and is cut with the text. ``meta["spilled"]`` says
``{"locator", "bytes", "characters"}`` (when ``meta`` is an object or none).

It runs after ``tools/post-execute``, so a listener there sees the whole
text and may shorten it itself; everything after (the final check,
``tools/result`` observers, the journal, threads) sees what the model sees.

Not cut: a Code Mode program's sub-calls (``parent`` set), whose results go
to the program, not the model (only ``run_code``'s own result reaches the
model, and it is cut like any other); ``read_result``'s pages, which are
bounded by their own limit. If the store cannot keep the text, the preview
says so and carries no locator: the model still gets a bounded result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Protocol, runtime_checkable

from dsh_tools.code_mode import READ_RESULT_NAME
from dsh_tools.content import ContentBlock, block_text, past_utf8_bytes, text_block
from dsh_tools.execution import ToolExecution, ToolExecutionResult, content_text
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.plan import CallPlan
from dsh_tools.store.spilled import DEFAULT_PAGE_CHARS

__all__ = ["SpillKeeper", "preview", "spill", "spill_limit"]

@runtime_checkable
class SpillKeeper(Protocol):
    """What a host that spills provides (the registry): its limit, and where a whole text goes."""

    @property
    def max_inline_bytes(self) -> int | None: ...

    async def keep_spilled(self, agent_id: str, text: str) -> str:
        """Keep ``text`` for ``agent_id``; its locator (raises when it cannot be kept)."""
        ...


def spill_limit(host: PipelineHost, execution: ToolExecution) -> int | None:
    """The UTF-8 bytes of text the call's result may carry to the model, or ``None``: it is never cut."""
    if type(host) is not CallPlan or execution.parent is not None:
        return None
    tool = host.tool
    if tool is None or tool.name == READ_RESULT_NAME:
        return None
    limit: object = tool.max_inline_bytes
    if limit is None:
        limit = getattr(host.host, "max_inline_bytes", None)  # a plain read: every call passes here
    return limit if type(limit) is int else None


async def spill(host: PipelineHost, execution: ToolExecution, result: ToolExecutionResult) -> ToolExecutionResult:
    """``result``, or its preview when its text is past the call's limit (see the module docstring)."""
    limit = spill_limit(host, execution)
    if limit is None or type(host) is not CallPlan:  # only a plan has a limit: this narrows host for the type checker
        return result
    keeper = host.host
    content = _as_read(result.content)
    text = content_text(content)
    if not past_utf8_bytes(text, limit):
        return result
    encoded = text.encode("utf-8")
    agent = execution.agent
    locator: str | None = None
    if isinstance(keeper, SpillKeeper):
        try:
            locator = await keeper.keep_spilled(agent.id if agent is not None else "", text)
        except Exception:  # noqa: BLE001 - the keeper counted it; the model still gets a bounded preview
            locator = None
    cut = preview(text, encoded, limit, locator)
    meta = result.meta
    if meta is None or isinstance(meta, Mapping):
        spilled = {"locator": locator, "bytes": len(encoded), "characters": len(text)}
        meta = {**(meta or {}), "spilled": spilled}
    return result.set(content=_replaced(content, cut), meta=meta)


def preview(text: str, encoded: bytes, limit: int, locator: str | None) -> str:
    """The head and the tail of ``text`` around a line saying what was cut; at most ``limit`` UTF-8 bytes.

    ``encoded`` is ``text`` in UTF-8. The head and tail are cut at character
    boundaries, so the preview is well-formed text; the line tells the model
    the offset at which to go on reading.
    """
    def note(head_chars: int, tail_chars: int) -> str:
        where = (
            f'read_result(locator="{locator}", offset={head_chars}) reads on from the head, '
            f"up to {DEFAULT_PAGE_CHARS:,} characters a call"
            if locator is not None
            else "the full text could not be kept, so it cannot be read"
        )
        return (
            f"\n… [result cut: {len(encoded):,} bytes ({len(text):,} characters) in all; the first {head_chars:,} "
            f"and the last {tail_chars:,} characters are shown; {where}] …\n"
        )

    room = max(limit - len(note(len(text), len(text)).encode("utf-8")), 0)
    head = encoded[: room // 2].decode("utf-8", "ignore")
    tail = encoded[len(encoded) - room // 2 :].decode("utf-8", "ignore") if room // 2 else ""
    return f"{head}{note(len(head), len(tail))}{tail}"


def _replaced(content: object, cut: str) -> list[ContentBlock]:
    """The content with its text blocks replaced by one block, ``cut``, where the first was; images stay."""
    blocks: list[ContentBlock] = []
    placed = False
    for block in content if isinstance(content, (list, tuple)) else ():
        if block.get("type") == "text":
            if not placed:
                blocks.append(text_block(cut))
                placed = True
        else:
            blocks.append(block)
    return blocks


def _as_read(content: Sequence[ContentBlock]) -> Sequence[ContentBlock]:
    """``content`` with each block that is neither text nor an image as the text block a model reads for it."""
    if all(block.get("type") in _KEPT for block in content):
        return content
    return tuple(block if block.get("type") in _KEPT else text_block(block_text(block)) for block in content)


_KEPT: Final = frozenset({"text", "image"})
