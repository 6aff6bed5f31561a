"""How every non-happy path becomes a result: one place that writes error texts.

The model sees ``Error: <message>``; retry/replay plugins see ``error`` for a
``HarnessError``. Nothing here raises, whatever the exception's ``__str__`` does.

A participant that raises (listener, guard, wrapper, approval service) reads
to the model exactly like a tool body that raised, ``Error: <str(exception)>``
(the exception's type name when its ``str()`` is empty: ``Error: RuntimeError``
tells the model more than ``Error: ``):
who failed is the operator's business, so :func:`report_failure` puts the
participant's name and the traceback on ``ctx.logger`` instead.
"""

from __future__ import annotations

import logging
from typing import Literal

from returns.result import Failure

from dsh_tools.errors import (
    HarnessError,
    RecordTamperedError,
    ToolAbortedError,
    safe_str,
)
from dsh_tools.execution import ToolErrorInfo, ToolExecution, ToolExecutionResult
from dsh_tools.json_values import freeze_json
from dsh_tools.json_walk import unicode_text
from dsh_tools.outcome import Outcome
from dsh_tools.record import Record
from dsh_tools.seams import Settled as Settled

__all__ = [
    "AbortCode",
    "Settled",
    "StageFailure",
    "aborted_result",
    "denied",
    "describe_participant",
    "error_result",
    "exception_message",
    "exception_result",
    "failed",
    "harness_error_info",
    "record_tampered",
    "report_failure",
    "safe_str",
]


class StageFailure(Record):
    """Why a stage failed closed: the model-facing text and, for a ``HarnessError``, its class.

    Policy stages (the waterfalls, guards, approval) answer with this instead
    of raising, so a custom pipeline decides what to do with a failure as data.
    """

    message: str
    error: ToolErrorInfo | None = None

    @classmethod
    def raised(cls, error: BaseException) -> StageFailure:
        """A participant raised ``error``: the model reads what a raising tool body would give."""
        return cls(exception_message(error), harness_error_info(error))

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
    """An ``is_error`` result whose content is the one block ``Error: <message>``.

    A lone surrogate in ``message`` (quoted from a model's tool name or an
    exception's text) becomes U+FFFD: the result must stay JSON.
    """
    return ToolExecutionResult(
        call_id=call_id if type(call_id) is str else "",
        content=({"type": "text", "text": unicode_text(f"Error: {message}")},),
        is_error=True,
        error=error,
    )


def exception_message(exception: BaseException) -> str:
    """``str(exception)`` (safely), or its type name when that is empty (``RuntimeError()``, ``CancelledError()``).

    A model that reads ``Error: RuntimeError`` learns more than one that reads
    ``Error: ``; every other exception reads exactly ``str(e)``.
    """
    return safe_str(exception) or type(exception).__name__


def exception_result(call_id: str, exception: BaseException) -> ToolExecutionResult:
    """The result of a raised exception (structured ``error`` for ``HarnessError``, and its ``meta``: the
    approval id a caller resumes with, the effects that ran during a failed replay). A ``meta`` that is
    not JSON is left out: the error's text still reaches the model."""
    result = error_result(call_id, exception_message(exception), harness_error_info(exception))
    try:
        meta = exception.meta if isinstance(exception, HarnessError) else None
    except Exception:  # noqa: BLE001 - a subclass's raising property: the text still reaches the model
        meta = None
    if meta is not None:
        frozen = freeze_json(meta)
        if type(frozen) is not Failure:
            return result.set(meta=frozen.unwrap())
    return result


AbortCode = Literal["ABORTED", "ABORTED_BEFORE_DISPATCH"]


def aborted_result(execution: ToolExecution, code: AbortCode, reason: object) -> ToolExecutionResult:
    """``ToolAbortedError`` result: the body never started (``ABORTED_BEFORE_DISPATCH``) or was cut short."""
    when = "before" if code == "ABORTED_BEFORE_DISPATCH" else "while"
    because = exception_message(reason) if issubclass(type(reason), BaseException) else safe_str(reason)  # type: ignore[arg-type]
    message = f'the call was aborted {when} tool "{execution.name}" ran: {because}'
    return exception_result(execution.call_id, ToolAbortedError(message, code))


def describe_participant(participant: object) -> str:
    """A participant's ``__qualname__`` for a log line; never raises (``__getattr__`` may)."""
    try:
        name: object = getattr(participant, "__qualname__", None)
    except Exception:  # noqa: BLE001 - a hostile __getattr__ is data here
        name = None
    return name if type(name) is str else type(participant).__qualname__


def report_failure(logger: logging.Logger, role: str, participant: object, error: BaseException) -> None:
    """Tell the operator which participant failed, with the traceback (WARNING); never raises."""
    try:
        logger.warning(
            "%s %s raised %s: %s",
            role,
            describe_participant(participant),
            type(error).__name__,
            safe_str(error),
            exc_info=(type(error), error, error.__traceback__),
        )
    except Exception:  # noqa: BLE001 - reporting must not become the failure
        pass


def denied(execution: ToolExecution, reason: str, outcome: Outcome = "denied") -> Failure[Settled]:
    """The failure track for a policy denial: ``Error: <reason>``, ``outcome`` naming who denied it."""
    return Failure(Settled(execution, error_result(execution.call_id, reason).set(outcome=outcome)))


def failed(execution: ToolExecution, failure: StageFailure) -> Failure[Settled]:
    """The failure track for a misbehaving participant (fail closed)."""
    return Failure(Settled(execution, failure.result(execution.call_id)))


def record_tampered(execution: ToolExecution) -> Failure[Settled]:
    """The failure track for a stored record that does not match its digest: ``RECORD_TAMPERED``, nothing ran."""
    return Failure(Settled(execution, exception_result(execution.call_id, RecordTamperedError())))
