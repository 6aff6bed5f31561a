"""How every non-happy path becomes a result: one place that writes error texts.

The model sees ``Error: <message>``; retry/replay plugins see ``error`` for a
``HarnessError``. Nothing here raises, whatever the exception's ``__str__`` does.
"""

from __future__ import annotations

from returns.result import Failure

from dsh_tools.errors import HarnessError, safe_str
from dsh_tools.execution import ToolErrorInfo, ToolExecution, ToolExecutionResult
from dsh_tools.record import Record

__all__ = ["Settled", "denied", "error_result", "exception_result", "failed", "safe_str"]


class Settled(Record):
    """A call that has its final result: the failure track of the gates.

    Early exits (invalid input, a denial, a failed listener) carry the
    execution with them, because ``tools/result`` observers are told about
    *every* call, including the ones that never reached a tool.
    """

    execution: ToolExecution
    result: ToolExecutionResult


def error_result(call_id: str, message: str, error: ToolErrorInfo | None = None) -> ToolExecutionResult:
    """An ``is_error`` result whose content is the one block ``Error: <message>``."""
    return ToolExecutionResult(
        call_id=call_id if type(call_id) is str else "",
        content=({"type": "text", "text": f"Error: {message}"},),
        is_error=True,
        error=error,
    )


def exception_result(call_id: str, exception: BaseException) -> ToolExecutionResult:
    """The result of a raised exception (structured ``error`` for ``HarnessError``)."""
    info = None
    if isinstance(exception, HarnessError):
        try:  # a subclass may skip __init__ or make ``code`` a raising property
            code: object = exception.code
        except Exception:  # noqa: BLE001 - no usable code: plain error text
            code = None
        if type(code) is str:
            info = ToolErrorInfo(type(exception).__name__, code)
    return error_result(call_id, safe_str(exception), info)


def denied(execution: ToolExecution, reason: str) -> Failure[Settled]:
    """The failure track for a policy denial: ``Error: <reason>``."""
    return Failure(Settled(execution, error_result(execution.call_id, reason)))


def failed(execution: ToolExecution, message: str) -> Failure[Settled]:
    """The failure track for a misbehaving participant (fail closed)."""
    return Failure(Settled(execution, error_result(execution.call_id, message)))
