"""Runtime checks of what participants hand back: decisions, results, tool output.

Type hints are a claim the pipeline cannot rely on (listeners are plugins, the
tool body is plugin code, and Python lets anyone return anything). Every check
is by exact type, so a subclass carrying extra state or a dict with the wire
keys is refused, and answers with an error text instead of raising.

The checks a listener chain runs at every level (``checked_*``) answer the
value itself or a :class:`~dsh_tools.listener_chain.Refused`: a good answer,
the common case, builds nothing. The body's output checks answer a
``Result``, as the stages they feed do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, TypeVar, cast

from returns.result import Failure, Result, Success

from dsh_tools.content import ToolOutput
from dsh_tools.decisions import Accept, Allow, Ask, Block, Deny, PostToolDecision, PreToolDecision
from dsh_tools.execution import HookContext, PluginSource, ToolErrorInfo, ToolExecutionResult, UserSource
from dsh_tools.listener_chain import Refused
from dsh_tools.json_values import FrozenJson, JsonValue, NotJson, freeze_json, frozen_or_failure

__all__ = [
    "check_content",
    "check_post_decision",
    "check_pre_decision",
    "check_result",
    "check_tool_output",
    "checked_post_decision",
    "checked_pre_decision",
    "checked_result",
]

T = TypeVar("T")

_PVECTOR: Final[type] = type(freeze_json([]).unwrap())


def _kind(value: object) -> str:
    return type(value).__name__


def checked_pre_decision(value: object) -> PreToolDecision | Refused:
    """An exact ``Allow``/``Deny``/``Ask`` with well-typed fields, or why not."""
    kind = type(value)
    if kind is Allow:
        return value  # type: ignore[return-value]
    if kind is Deny:
        reason = value.reason  # type: ignore[attr-defined]
        return value if type(reason) is str else Refused("Deny.reason must be a str")  # type: ignore[return-value]
    if kind is Ask:
        reason = value.reason  # type: ignore[attr-defined]
        ok = reason is None or type(reason) is str
        return value if ok else Refused("Ask.reason must be a str or None")  # type: ignore[return-value]
    return Refused(f"returned {_kind(value)}, expected Allow, Deny or Ask")


def checked_post_decision(value: object) -> PostToolDecision | Refused:
    """An exact ``Accept``/``Block`` with well-typed fields, or why not."""
    kind = type(value)
    if kind is not Accept and kind is not Block:
        return Refused(f"returned {_kind(value)}, expected Accept or Block")
    context = value.additional_context  # type: ignore[attr-defined]
    if context is not None and (problem := _hook_context_problem(context)) is not None:
        return Refused(f"{kind.__name__}.additional_context: {problem}")
    content = value.content if kind is Accept else value.feedback  # type: ignore[attr-defined]
    if content is None and kind is Accept:
        return value  # type: ignore[return-value]
    problem = _content_problem(content)
    if problem is not None:
        field = "content" if kind is Accept else "feedback"
        return Refused(f"{kind.__name__}.{field}: {problem}")
    return value  # type: ignore[return-value]


def checked_result(value: object, call_id: str) -> ToolExecutionResult | Refused:
    """An exact, well-formed ``ToolExecutionResult`` for ``call_id``, or why not."""
    if type(value) is not ToolExecutionResult:
        return Refused(f"returned {_kind(value)}, expected ToolExecutionResult")
    result: ToolExecutionResult = value
    found: object = result.call_id
    if type(found) is not str:  # before comparing: a hostile __ne__/__repr__ must not run
        return Refused(f"returned a result whose call_id is {_kind(found)}, expected {call_id!r}")
    if found != call_id:
        return Refused(f"returned a result for call {found!r}, expected {call_id!r}")
    is_error: object = result.is_error
    if type(is_error) is not bool:
        return Refused("result.is_error must be a bool")
    problem = _content_problem(result.content)
    if problem is not None:
        return Refused(f"result.content: {problem}")
    error = result.error
    if error is not None and (
        type(error) is not ToolErrorInfo or type(error.name) is not str or type(error.code) is not str
    ):
        return Refused("result.error must be a ToolErrorInfo of two strs")
    context = result.additional_context
    if context is not None and (problem := _hook_context_problem(context)) is not None:
        return Refused(f"result.additional_context: {problem}")
    if is_error and result.value is not None:
        return Refused("returned an error result with a value (only a successful typed call has one)")
    return result


def check_pre_decision(value: object) -> Result[PreToolDecision, str]:
    """:func:`checked_pre_decision` on the railway (``Success(decision)`` or ``Failure(problem)``), for a custom pipeline."""
    return _railway(checked_pre_decision(value))


def check_post_decision(value: object) -> Result[PostToolDecision, str]:
    """:func:`checked_post_decision` on the railway, for a custom pipeline."""
    return _railway(checked_post_decision(value))


def check_result(value: object, call_id: str) -> Result[ToolExecutionResult, str]:
    """:func:`checked_result` on the railway, for a custom pipeline."""
    return _railway(checked_result(value, call_id))


def _railway(checked: T | Refused) -> Result[T, str]:
    return Failure(checked.problem) if type(checked) is Refused else Success(checked)  # type: ignore[arg-type]


def check_tool_output(value: object) -> Result[tuple[FrozenJson, JsonValue | None], str]:
    """A body's return (content blocks or ``ToolOutput``) as frozen ``(content, meta)``."""
    if type(value) is ToolOutput:
        output: ToolOutput = value
        content, meta = output.content, output.meta
    elif type(value) in (list, tuple) or type(value) is _PVECTOR:
        content, meta = value, None  # type: ignore[assignment]
    else:
        return Failure(f"returned {_kind(value)}, expected a list of content blocks or ToolOutput")
    frozen, problem = _frozen_content(content)
    return Failure(problem) if problem is not None else Success((frozen, meta))  # ToolOutput froze meta already


def check_content(value: object) -> Result[FrozenJson, str]:
    """Frozen content: a JSON array of objects that each carry a str ``type``."""
    content, problem = _frozen_content(value)
    return Failure(problem) if problem is not None else Success(content)


def _frozen_content(value: object) -> tuple[FrozenJson, str | None]:
    """``value`` frozen, and what is wrong with it as content (``None``: nothing); the one rule of both checks."""
    content = frozen_or_failure(value)
    if isinstance(content, NotJson):
        return None, f"content is not JSON: {content.why}"
    return content, _content_problem(content)


def _content_problem(content: object) -> str | None:
    if type(content) is not _PVECTOR:
        return f"expected a list of content blocks, got {_kind(content)}"
    for index, block in enumerate(cast("Sequence[object]", content)):
        if not isinstance(block, Mapping) or type(block.get("type")) is not str:
            return f"block [{index}] must be an object with a str 'type'"
    return None


def _hook_context_problem(context: object) -> str | None:
    if type(context) is not HookContext:
        return f"expected HookContext, got {_kind(context)}"
    source = context.source
    if type(source) is not UserSource and not (type(source) is PluginSource and type(source.plugin) is str):
        return "source must be UserSource() or PluginSource(plugin)"
    return _content_problem(context.content)
