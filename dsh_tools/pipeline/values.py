"""What a tool body hands back becomes a result: content for the model, a value for programs.

A *content* tool returns content blocks (or ``ToolOutput``); a *typed* tool
(one whose snapshot has an ``output_schema``) returns its value. For a typed
tool the value is frozen (the JSON boundary's limits apply), checked against
the schema with the tool's compiled validator, and rendered into the content
the model reads: by the tool's ``render(args, value)``, or by default a
string as is and anything else as compact JSON. A body that returns
``ToolOutput(content, value=...)`` made the content itself, so rendering is
skipped but the value is still checked.

Everything that can go wrong is one error result with a clear text, never an
exception: a value that is not JSON or has the wrong shape is
``ToolOutputError`` (``OUTPUT_INVALID``, path-qualified violations), a
``render`` that raises or returns something else than content is named as
such, and a value where content was declared (or the reverse) says which.
"""

from __future__ import annotations

from typing import Final

from returns.result import Failure, Result, Success

from dsh_tools.content import ToolOutput
from dsh_tools.definitions.shape_code import UNSURE
from dsh_tools.errors import ToolOutputError, safe_str
from dsh_tools.execution import HookContext, ToolExecution, ToolExecutionResult
from dsh_tools.json_values import FrozenJson, dumps, freeze_json
from dsh_tools.json_walk import frozen_text_content
from dsh_tools.off_loop import INLINE_VALUES, count_over
from dsh_tools.pipeline.checks import check_content, check_tool_output
from dsh_tools.pipeline.outcomes import error_result, exception_result
from dsh_tools.tool_types import RegisteredTool

__all__ = ["default_render", "is_large_value", "render_value", "replace_value", "tool_result"]

_JSON_VALUE_TYPES: Final = frozenset({str, int, float, bool, dict})


def is_large_value(tool: RegisteredTool, output: object) -> bool:
    """Whether a typed tool's returned value is large enough that :func:`tool_result` belongs on a thread.

    Freezing, validating and rendering 750,000 small values held the event
    loop for seconds; past :data:`~dsh_tools.off_loop.INLINE_VALUES` values
    the pipeline runs :func:`tool_result` off the loop (a ``render`` then runs
    on that worker thread). Counting stops at the threshold, so a small value
    costs a few steps.
    """
    if tool.check_output is None:
        return False
    value = output.value if type(output) is ToolOutput else output
    return count_over(value, INLINE_VALUES)


def tool_result(tool: RegisteredTool, execution: ToolExecution, output: object) -> ToolExecutionResult:
    """The result of a body that returned ``output`` (the normalisation step of dispatch)."""
    if tool.check_output is None:
        return _content_result(tool, execution, output)
    additional: HookContext | None = None
    value: object
    meta: object
    if type(output) is ToolOutput:
        supplied: ToolOutput = output
        value, meta, additional = supplied.value, supplied.meta, supplied.additional_context
    else:
        value, meta = output, None
    frozen = _checked_value(tool, value)
    if type(frozen) is Failure:
        if type(output) is ToolOutput and value is None:
            message = f'tool "{tool.name}" declares an output schema but returned ToolOutput without a value'
            return error_result(execution.call_id, message)
        return exception_result(execution.call_id, frozen.failure())
    canonical = frozen.unwrap()
    if type(output) is ToolOutput:
        content: FrozenJson = supplied.content  # type: ignore[assignment]  # frozen by ToolOutput
    else:
        rendered = render_value(tool, execution, canonical)
        if type(rendered) is Failure:
            return error_result(execution.call_id, rendered.failure())
        content = rendered.unwrap()
    # Frozen by construction: the content by ToolOutput or the render's check, meta by ToolOutput, the value above.
    carried = {"content": content, "meta": meta, "value": canonical}
    return ToolExecutionResult._carrying(carried, execution.call_id, is_error=False, additional_context=additional)


def replace_value(
    tool: RegisteredTool | None, execution: ToolExecution, result: ToolExecutionResult, value: object
) -> ToolExecutionResult:
    """``result`` with ``value`` in place of its value: re-checked, then re-rendered.

    ``Accept(value=...)`` applies through this. Only a successful typed call
    has a value to replace; for anything else the replacement fails closed.
    """
    if tool is None or tool.check_output is None or result.is_error:
        what = "a failed call" if result.is_error else "a tool without an output schema"
        return error_result(execution.call_id, f"Accept(value=...) cannot replace the value of {what}")
    frozen = _checked_value(tool, value)
    if type(frozen) is Failure:
        error = frozen.failure()
        return exception_result(execution.call_id, error).set(
            content=({"type": "text", "text": f"Error: Accept(value=...): {safe_str(error)}"},)
        )
    canonical = frozen.unwrap()
    rendered = render_value(tool, execution, canonical)
    if type(rendered) is Failure:
        return error_result(execution.call_id, rendered.failure())
    return result.set(content=rendered.unwrap(), value=canonical)


def render_value(tool: RegisteredTool, execution: ToolExecution, value: FrozenJson) -> Result[FrozenJson, str]:
    """The model-facing content of ``value``: the tool's ``render``, else :func:`default_render`."""
    render = tool.render
    if render is None:
        return Success(default_render(value))
    try:
        content: object = render(execution.arguments, value)
    except Exception as error:  # noqa: BLE001 - the renderer is tool code: its failure is the call's
        return Failure(f'tool "{tool.name}" render raised {type(error).__name__}: {safe_str(error)}')
    return check_content(content).alt(lambda problem: f'tool "{tool.name}" render returned no valid content: {problem}')


def default_render(value: FrozenJson) -> FrozenJson:
    """One text block: a string as is, any other JSON value as compact JSON."""
    text = value if type(value) is str else dumps(value).decode()
    made = frozen_text_content(text)  # a frozen value's text is Unicode: never None here
    return made if made is not None else freeze_json(({"type": "text", "text": text},)).unwrap()  # type: ignore[return-value]


def _checked_value(tool: RegisteredTool, value: object) -> Result[FrozenJson, ToolOutputError]:
    """The frozen value if it is JSON and valid: the tool's one-pass freezer first, else both walks."""
    fast = tool.freeze_output
    if fast is not None:
        vouched = fast(value)
        if vouched is not UNSURE:
            return Success(vouched)  # type: ignore[arg-type]  # frozen JSON, built and checked by the freezer
    frozen = freeze_json(value)
    if type(frozen) is Failure:
        return Failure(ToolOutputError([f"not JSON: {frozen.failure()}"], tool=tool.name))
    canonical = frozen.unwrap()
    assert tool.check_output is not None
    violations = tool.check_output(canonical)
    return Failure(ToolOutputError(violations, tool=tool.name)) if violations else Success(canonical)


def _content_result(tool: RegisteredTool, execution: ToolExecution, output: object) -> ToolExecutionResult:
    if type(output) is ToolOutput and output.value is not None:
        message = f'tool "{tool.name}" returned a value but declares no output schema (give it output=...)'
        return error_result(execution.call_id, message)
    checked = check_tool_output(output)
    if type(checked) is Failure:
        hint = " (a value needs output=... on the tool)" if type(output) in _JSON_VALUE_TYPES else ""
        return error_result(execution.call_id, f'tool "{tool.name}" {checked.failure()}{hint}')
    content, meta = checked.unwrap()
    additional = output.additional_context if type(output) is ToolOutput else None
    carried = {"content": content, "meta": meta}  # frozen by the check and by ToolOutput
    return ToolExecutionResult._carrying(carried, execution.call_id, is_error=False, additional_context=additional)
