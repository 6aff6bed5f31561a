"""How often an approved effect runs: at most once, unless its tool is idempotent.

A human (or a remembered rule) approved *one* call. If its tool is not
idempotent, running the body a second time is a second effect nobody
approved: a second charge, a second email. So an approved call of such a tool
starts its body at most once. The rule is enforced where the body starts
(:func:`second_start`, called by the body's error boundary), so every path
that would start it again is covered: the retry policy, and any wrapper that
calls ``next()`` twice. The retry policy asks first (:func:`at_most_once`)
and says why it did not retry.

A body of such a call that started and then timed out or was aborted may
have done its work or not; the result says so (:func:`maybe_took_effect`),
so a model does not assume either.

The texts are the contract's; this is the one module that writes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from dsh_tools.content import text_block
from dsh_tools.execution import ToolExecutionResult
from dsh_tools.pipeline.outcomes import error_result
from dsh_tools.pipeline.plan import CallState
from dsh_tools.tool_types import RegisteredTool

__all__ = ["MAYBE_EFFECT", "at_most_once", "maybe_took_effect", "not_retried", "second_start"]

MAYBE_EFFECT: Final = "it may or may not have taken effect"
"""The line a started, then timed-out or aborted, approved call of a non-idempotent tool gains."""

_CUT_SHORT: Final = frozenset({"TOOL_TIMEOUT", "ABORTED"})


def at_most_once(state: CallState, tool: RegisteredTool) -> bool:
    """Whether the call may start its body only once: it was approved, and its tool is not idempotent."""
    return state.approved and not tool.idempotent


def not_retried(result: ToolExecutionResult, name: str) -> ToolExecutionResult:
    """``result`` as the call's final word: ``meta["attempts"] == 1`` and a line saying why there was no second try."""
    meta = result.meta
    line = text_block(f'(not retried: tool "{name}" is not idempotent and this call was approved)')
    changes: dict[str, object] = {"content": (*result.content, line)}
    if meta is None or isinstance(meta, Mapping):
        changes["meta"] = {**(meta or {}), "attempts": 1}
    return result.set(**changes)


def second_start(state: CallState, tool: RegisteredTool, call_id: str) -> ToolExecutionResult | None:
    """What a second start of an at-most-once call returns instead of running the body (``None``: let it start)."""
    if state.body_starts == 0 or not at_most_once(state, tool):
        return None
    first = state.first_result
    if first is None:  # the first run never finished (it was cut short): nobody knows what it did
        first = error_result(call_id, f'tool "{tool.name}" was started once and did not finish\n{MAYBE_EFFECT}')
    return not_retried(first, tool.name)


def maybe_took_effect(state: CallState, tool: RegisteredTool | None, result: ToolExecutionResult) -> ToolExecutionResult:
    """``result`` with :data:`MAYBE_EFFECT` on a line of its own, when an at-most-once call's started body was cut short."""
    error = result.error
    if (
        tool is None
        or not state.body_started
        or error is None
        or error.code not in _CUT_SHORT
        or not at_most_once(state, tool)
        or MAYBE_EFFECT in result.text
    ):
        return result
    return result.set(content=(*result.content, text_block(MAYBE_EFFECT)))
