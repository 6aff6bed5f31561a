"""``Outcome``: what became of a call, in one word a loop or a UI can branch on.

The model reads ``Error: <text>`` whatever went wrong; a harness loop needs to
tell a denial from a crash without parsing that text. Every settled result
carries an ``outcome`` and every journal record the same one, from one table
(:data:`OUTCOME_BY_CODE`) plus the stage that settled the call: a denial has
no error code of its own (its ``error`` stays ``None``, as the model-facing
contract says), so the stage that denies names the outcome itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, TypeAlias, get_args

__all__ = ["OUTCOMES", "OUTCOME_BY_CODE", "Outcome", "RecordOutcome", "outcome_for"]

Outcome: TypeAlias = Literal[
    "ok",
    "error",
    "invalid-args",
    "unknown-tool",
    "denied",
    "guard-denied",
    "approval-rejected",
    "approval-pending",
    "approval-stale",
    "blocked",
    "timeout",
    "aborted",
    "unknown",
    "approval-expired",
]
"""How a settled call ended (``ToolExecutionResult.outcome`` and ``CallRecord.outcome``).

A ``match`` over it that is exhaustive (mypy's ``assert_never``) needs every
case: ``"unknown"`` (a call whose process stopped mid-body) and
``"approval-expired"`` came in the fourth round.
"""

RecordOutcome: TypeAlias = Outcome | Literal["running"]
"""A journal record's outcome: an :data:`Outcome`, or ``"running"`` until the call settles."""

OUTCOMES: Final[frozenset[str]] = frozenset(get_args(Outcome))

OUTCOME_BY_CODE: Final[Mapping[str, Outcome]] = MappingProxyType(
    {
        "INVALID_ARGS": "invalid-args",
        "UNKNOWN_TOOL": "unknown-tool",
        "APPROVAL_PENDING": "approval-pending",
        "APPROVAL_STALE": "approval-stale",
        "APPROVAL_UNAVAILABLE": "approval-rejected",
        "TOOL_TIMEOUT": "timeout",
        "ABORTED": "aborted",
        "ABORTED_BEFORE_DISPATCH": "aborted",
        "TOOL_OUTCOME_UNKNOWN": "unknown",
        "APPROVAL_EXPIRED": "approval-expired",
    }
)
"""The one table of error codes to outcomes; every other code of an error result is ``"error"``."""


def outcome_for(is_error: object, code: object, claimed: object = None) -> Outcome:
    """The outcome of a result with these fields; ``claimed`` is the settling stage's word, if any.

    A success is always ``"ok"``; an error's code, when the table knows it,
    outranks a claim (a denial text never hides a timeout); a claim names the
    denials that carry no code; anything else is ``"error"``.
    """
    if is_error is not True:
        return "ok"
    if type(code) is str:
        known = OUTCOME_BY_CODE.get(code)
        if known is not None:
            return known
    if type(claimed) is str and claimed in OUTCOMES and claimed != "ok":
        return claimed  # type: ignore[return-value]  # checked against OUTCOMES just above
    return "error"
