"""Listener signatures of every event, so plugins type-check under ``--strict``.

Each listener may be sync or async (returning a value or an awaitable of it).
The ``next`` a waterfall listener receives delegates to the rest of the chain
(ultimately the default: ``Allow()``, core dispatch, ``Accept()``, the
canonical assembly).
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias, TypeVar

from dsh_tools.approval import ApprovalDecision, PendingApproval
from dsh_tools.decisions import PostToolDecision, PreToolDecision
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.signals import AbortSignal

if TYPE_CHECKING:
    from dsh_tools.execution import ToolProgress
    from dsh_tools.system_prompt.records import AssembleContext, PromptAssembly

__all__ = [
    "KEEP",
    "AssembleListener",
    "AssembleNext",
    "ChangeListener",
    "DecidedListener",
    "ExecuteListener",
    "ExecuteNext",
    "Keep",
    "ParkedListener",
    "MaybeAwaitable",
    "PostExecuteListener",
    "PostNext",
    "PreExecuteListener",
    "PreNext",
    "ProgressListener",
    "ResultListener",
]

T = TypeVar("T")
MaybeAwaitable: TypeAlias = T | Awaitable[T]


class Keep(enum.Enum):
    """Sentinel type of :data:`KEEP` ("leave the signal as it is")."""

    KEEP = "keep"


KEEP: Literal[Keep.KEEP] = Keep.KEEP

PreNext: TypeAlias = Callable[[], Awaitable[PreToolDecision]]
PostNext: TypeAlias = Callable[[], Awaitable[PostToolDecision]]


class ExecuteNext(Protocol):
    """``next`` of a ``tools/execute`` wrapper: the rest of dispatch.

    ``next()`` keeps the current signal, ``next(signal=s)`` replaces it for the
    inner chain and the tool body, ``next(signal=None)`` removes it.
    """

    def __call__(self, *, signal: AbortSignal | None | Literal[Keep.KEEP] = KEEP) -> Awaitable[ToolExecutionResult]: ...


PreExecuteListener: TypeAlias = Callable[[ToolExecution, PreNext], MaybeAwaitable[PreToolDecision]]
ExecuteListener: TypeAlias = Callable[[ToolExecution, ExecuteNext], MaybeAwaitable[ToolExecutionResult]]
PostExecuteListener: TypeAlias = Callable[
    [ToolExecution, ToolExecutionResult, PostNext], MaybeAwaitable[PostToolDecision]
]
ResultListener: TypeAlias = Callable[[ToolExecution, ToolExecutionResult], MaybeAwaitable[None]]
ProgressListener: TypeAlias = "Callable[[ToolExecution, ToolProgress], MaybeAwaitable[None]]"
ChangeListener: TypeAlias = Callable[[], None]
ParkedListener: TypeAlias = Callable[[PendingApproval], MaybeAwaitable[None]]
"""``tools/parked``: a call was just committed as parked (after the store's commit, in the process that parked it)."""
DecidedListener: TypeAlias = Callable[[ApprovalDecision], MaybeAwaitable[None]]
"""``tools/decided``: a decision was just committed through this process's registry (``resume`` with an outcome)."""
AssembleNext: TypeAlias = "Callable[[], Awaitable[PromptAssembly]]"
AssembleListener: TypeAlias = "Callable[[AssembleContext, PromptAssembly, AssembleNext], MaybeAwaitable[PromptAssembly]]"
