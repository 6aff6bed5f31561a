"""The ``HarnessError`` family: failures that carry a structured ``code``.

Inside the pipeline these never escape as exceptions: a raised
``HarnessError`` becomes an ``is_error`` result whose ``error`` is
``ToolErrorInfo(name=type(e).__name__, code=e.code)``, which is what retry and
replay plugins key on. Outside the pipeline (definition time) they are ordinary
exceptions.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ApprovalExpiredError",
    "ApprovalPendingError",
    "ApprovalStaleError",
    "ApprovalUnavailableError",
    "ReplayDivergedError",
    "CodeRunFailedError",
    "CodeRuntimeBusyError",
    "HarnessError",
    "OutputSchemaError",
    "PayloadTooLargeError",
    "QueueUnavailableError",
    "RecordTamperedError",
    "ToolAbortedError",
    "ToolArgsError",
    "ToolMismatchError",
    "ToolNotFoundError",
    "ToolOutcomeUnknownError",
    "ToolOutputError",
    "ToolTimeoutError",
    "safe_str",
]


def safe_str(value: object) -> str:
    """``str(value)``, or ``<unprintable TypeName>`` when ``__str__`` misbehaves.

    Every place that puts an exception (or any foreign object) into a message
    uses this, so a hostile ``__str__`` can never turn error reporting itself
    into a crash.
    """
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - a hostile __str__ is data here
        return f"<unprintable {type(value).__name__}>"
    return text if type(text) is str else f"<unprintable {type(value).__name__}>"


class HarnessError(Exception):
    """A failure with a stable machine-readable ``code`` next to its message.

    ``meta`` (JSON) is what the call's result carries as its ``meta``: what
    a caller needs beyond the text, such as the approval id to resume with.
    """

    meta: dict[str, object] | None = None  # also for a subclass that never calls __init__

    def __init__(self, message: str, code: str, *, meta: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.meta = meta

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[object, ...]:
        # Exception's default re-calls ``cls(*self.args)`` (= ``cls(message)``),
        # which does not match these constructors; rebuild without ``__init__``.
        return (_rebuild, (type(self), self.args), self.__dict__)


def _rebuild(cls: type[HarnessError], args: tuple[object, ...]) -> HarnessError:
    return cls.__new__(cls, *args)


class ToolNotFoundError(HarnessError):
    """The call names a tool the calling scope cannot see."""

    def __init__(self, tool_name: str, message: str | None = None) -> None:
        super().__init__(f'unknown tool "{tool_name}"' if message is None else message, "UNKNOWN_TOOL")
        self.tool_name = tool_name


def _joined(violations: tuple[str, ...], lead: str) -> str:
    return lead + "; ".join(violations) if violations else lead.rstrip(": ")


class ToolArgsError(HarnessError):
    """Model-generated arguments failed the tool's schema; lists every violation."""

    def __init__(self, violations: Iterable[str]) -> None:
        self.violations: tuple[str, ...] = tuple(violations)
        super().__init__(_joined(self.violations, "invalid arguments: "), "INVALID_ARGS")


class CodeRunFailedError(HarnessError):
    """A Code Mode program failed (kind, message and captured logs in the text).

    A replay that failed after its approved call ran carries ``meta``
    (``{"effects": [...]}``), as :class:`ReplayDivergedError` does.
    """

    def __init__(self, message: str, *, meta: dict[str, object] | None = None) -> None:
        super().__init__(message, "CODE_RUN_FAILED", meta=meta)


class CodeRuntimeBusyError(HarnessError):
    """Every sandbox process of a code runtime is busy and its queue of waiting runs is full."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "CODE_RUNTIME_BUSY")


class ToolTimeoutError(HarnessError):
    """A tool overran its ``timeout_ms`` budget."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "TOOL_TIMEOUT")


class OutputSchemaError(HarnessError):
    """A structured-output schema uses something outside the supported subset.

    ``tool`` names the typed tool whose ``output=`` it is (the message then
    starts with ``tool "<name>": ``), so a definition-time failure says whose.
    """

    def __init__(self, violations: Iterable[str], *, tool: str | None = None) -> None:
        self.violations: tuple[str, ...] = tuple(violations)
        self.tool = tool
        lead = "unsupported output schema: " if tool is None else f'tool "{tool}": unsupported output schema: '
        super().__init__(_joined(self.violations, lead), "UNSUPPORTED_SCHEMA")


class ToolAbortedError(HarnessError):
    """The call's signal was aborted: before dispatch (``ABORTED_BEFORE_DISPATCH``,
    policy and body never ran) or while the body ran (``ABORTED``)."""

    def __init__(self, message: str, code: str = "ABORTED") -> None:
        super().__init__(message, code)


class ToolOutputError(HarnessError):
    """A typed tool returned a value that does not match its output schema; lists every violation.

    ``tool`` names the tool (the message then starts with ``tool "<name>": ``).
    """

    def __init__(self, violations: Iterable[str], *, tool: str | None = None) -> None:
        self.violations: tuple[str, ...] = tuple(violations)
        self.tool = tool
        lead = "invalid output: " if tool is None else f'tool "{tool}": invalid output: '
        super().__init__(_joined(self.violations, lead), "OUTPUT_INVALID")


class ApprovalPendingError(HarnessError):
    """The approver deferred the call (``APPROVAL_PENDING``); ``resume(approval_id, ...)`` finishes it.

    ``sub_call`` (``(call_id, name)``) is set when a Code Mode program parked
    because one of its calls was deferred: the ``run_code`` call is the one
    waiting, for that sub-call's approval. :attr:`meta` (the result's meta)
    is ``{"approvalId": ...}``, and ``"subCall": {"callId", "name"}`` for a
    parked program.
    """

    def __init__(self, tool_name: str, approval_id: str, *, sub_call: tuple[str, str] | None = None) -> None:
        waiting = f'tool "{tool_name}" is waiting for approval'
        meta: dict[str, object] = {"approvalId": approval_id}
        if sub_call is not None:
            waiting = f'the program is waiting for approval of its call to tool "{sub_call[1]}"'
            meta["subCall"] = {"callId": sub_call[0], "name": sub_call[1]}
        super().__init__(waiting, "APPROVAL_PENDING", meta=meta)
        self.tool_name = tool_name
        self.approval_id = approval_id
        self.sub_call = sub_call


class ApprovalUnavailableError(HarnessError):
    """A deferral that cannot wait (``APPROVAL_UNAVAILABLE``): the agent's parked calls are at their cap,
    or the parked record could not be committed; the body never runs."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "APPROVAL_UNAVAILABLE")


class ApprovalStaleError(HarnessError):
    """An approved call no longer matches what the human saw (``APPROVAL_STALE``): the tool behind the
    name changed since the call parked, or the agent may no longer call it; the body never runs."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "APPROVAL_STALE")


class ReplayDivergedError(HarnessError):
    """A resumed Code Mode program did not repeat the calls of its earlier run (``REPLAY_DIVERGED``);
    nothing already journaled was dispatched again. ``meta`` lists the calls that did run meanwhile
    (``{"effects": [...]}``), so a model does not redo an effect that happened."""

    def __init__(self, message: str, *, meta: dict[str, object] | None = None) -> None:
        super().__init__(message, "REPLAY_DIVERGED", meta=meta)


class ToolOutcomeUnknownError(HarnessError):
    """A call whose process stopped after its body may have started (``TOOL_OUTCOME_UNKNOWN``).

    Nobody can say whether its effect happened, so the call is settled as
    ``unknown`` rather than run again: a tool that may run twice says so with
    ``idempotent=True``, and is then run again with the same idempotency key.
    """

    def __init__(self, name: str) -> None:
        super().__init__(
            f'tool "{name}" may or may not have taken effect: its process stopped before the call settled',
            "TOOL_OUTCOME_UNKNOWN",
        )


class ApprovalExpiredError(HarnessError):
    """A parked call nobody decided within the approval TTL (``APPROVAL_EXPIRED``); the body never ran."""

    def __init__(self, name: str, ttl_seconds: float) -> None:
        super().__init__(f'the approval of tool "{name}" expired after {int(ttl_seconds)} s', "APPROVAL_EXPIRED")


class ToolMismatchError(HarnessError):
    """A queued call whose worker resolves a different tool than the caller approved (``TOOL_MISMATCH``)."""

    def __init__(self, name: str) -> None:
        super().__init__(f'tool "{name}" on the worker differs from the one the caller approved', "TOOL_MISMATCH")


class PayloadTooLargeError(HarnessError):
    """A queued call whose arguments or result are past the queue's byte limit (``PAYLOAD_TOO_LARGE``)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the call's arguments or result exceed the queue's {limit}-byte limit", "PAYLOAD_TOO_LARGE")


class RecordTamperedError(HarnessError):
    """A stored program or parked call whose digest does not match what was read back (``RECORD_TAMPERED``)."""

    def __init__(self) -> None:
        super().__init__("the stored record of this call does not match its digest; nothing ran", "RECORD_TAMPERED")


class QueueUnavailableError(HarnessError):
    """A queued call whose queue could not be reached (``QUEUE_UNAVAILABLE``)."""

    def __init__(self, queue: str, reason: str) -> None:
        super().__init__(f'queue "{queue}" is not reachable: {reason}', "QUEUE_UNAVAILABLE")
