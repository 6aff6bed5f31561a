"""How every non-happy path becomes a result: one place that writes error texts.

The model sees ``Error: <message>``; retry/replay plugins see ``error`` for a
``HarnessError``. Nothing here raises, whatever the exception's ``__str__`` does.
"""

from __future__ import annotations

from returns.result import Failure

from dsh_tools.errors import HarnessError, safe_str
from dsh_tools.execution import ToolErrorInfo, ToolExecution, ToolExecutionResult
from dsh_tools.record import Record

__all__ = [
    "Settled",
    "StageFailure",
    "denied",
    "error_result",
    "exception_result",
    "failed",
    "harness_error_info",
    "safe_str",
]


class Settled(Record):
    """A call that has its final result: the failure track of the gates.

    Early exits (invalid input, a denial, a failed listener) carry the
    execution with them, because ``tools/result`` observers are told about
    *every* call, including the ones that never reached a tool.
    """

    execution: ToolExecution
    result: ToolExecutionResult


class StageFailure(Record):
    """Why a stage failed closed: the model-facing text and, for a ``HarnessError``, its class.

    Policy stages (the waterfalls, guards, approval) answer with this instead
    of raising, so a custom pipeline decides what to do with a failure as data.
    """

    message: str
    error: ToolErrorInfo | None = None

    @classmethod
    def raised(cls, error: BaseException, who: str) -> StageFailure:
        """``who`` raised ``error``: a ``HarnessError`` keeps its text and class, anything else is named."""
        info = harness_error_info(error)
        if info is not None:
            return cls(safe_str(error), info)
        return cls(f"{who} raised {type(error).__name__}: {safe_str(error)}")

    def result(self, call_id: str) -> ToolExecutionResult:
        """The ``is_error`` result this failure settles a call with."""
        return error_result(call_id, self.message, self.error)


def harness_error_info(exception: BaseException) -> ToolErrorInfo | None:
    """``ToolErrorInfo(type name, code)`` for a ``HarnessError`` with a usable ``code``, else ``None``."""
    if not isinstance(exception, HarnessError):
        return None
    try:  # a subclass may skip __init__ or make ``code`` a raising property
        code: object = exception.code
    except Exception:  # noqa: BLE001 - no usable code: plain error text
        return None
    return ToolErrorInfo(type(exception).__name__, code) if type(code) is str else None


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
    return error_result(call_id, safe_str(exception), harness_error_info(exception))


def denied(execution: ToolExecution, reason: str) -> Failure[Settled]:
    """The failure track for a policy denial: ``Error: <reason>``."""
    return Failure(Settled(execution, error_result(execution.call_id, reason)))


def failed(execution: ToolExecution, failure: StageFailure) -> Failure[Settled]:
    """The failure track for a misbehaving participant (fail closed)."""
    return Failure(Settled(execution, failure.result(execution.call_id)))
