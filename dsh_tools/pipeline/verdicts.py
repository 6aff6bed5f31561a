"""What an approval outcome does to a call: continue, deny with its own text, or park it.

One mapping serves both moments a verdict arrives: the approval stage, when
the service answers at once, and ``ToolRegistry.resume``, when a deferred call
is answered later. So a rejection reads the same whenever it comes.

Parking is a capability of the host (:class:`ApprovalParking`), not of every
``PipelineHost``: the registry has it; a custom host without it settles a
``"deferred"`` answer as one error result, never as a call left hanging.
"""

from __future__ import annotations

from typing import Final, Protocol, runtime_checkable

from returns.result import Failure, Result, Success

from dsh_tools.errors import ApprovalPendingError, ApprovalUnavailableError, safe_str
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.pipeline.outcomes import Settled, StageFailure, denied, exception_result, failed
from dsh_tools.pipeline.plan import CallPlan

__all__ = ["DENIALS", "ApprovalParking", "denial_text", "park", "pending_result", "settle_verdict"]

DENIALS: Final[dict[str, str]] = {
    "rejected": 'the user rejected tool "{name}"',
    "cancelled": 'approval for tool "{name}" was cancelled',
    "unavailable": 'tool "{name}" needs approval, but no one is available to answer',
}
"""The denial text of each non-allowing verdict (``{name}`` is the tool)."""


@runtime_checkable
class ApprovalParking(Protocol):
    """A host that can keep a deferred call until someone answers it."""

    async def park_approval(self, execution: ToolExecution, reason: str | None, /) -> str:
        """Keep ``execution`` (committed) and return its approval id; raise if it cannot be kept."""
        ...


def denial_text(verdict: str, name: str, message: str | None = None) -> str | None:
    """What the model reads for a denial verdict on tool ``name`` (``: <message>`` when the decider said why); ``None`` for no denial."""
    denial = DENIALS.get(verdict)
    if denial is None:
        return None
    text = denial.format(name=name)
    return f"{text}: {message}" if message else text


def settle_verdict(execution: ToolExecution, verdict: str, message: str | None = None) -> Result[ToolExecution, Settled]:
    """``"allowed-once"`` continues; a denial verdict settles with its text (and ``message``); anything else fails closed.

    ``verdict`` must already be an exact ``str`` (callers check the type first,
    so a hostile ``__eq__``/``__hash__`` never runs here).
    """
    if verdict == "allowed-once":
        return Success(execution)
    text = denial_text(verdict, execution.name, message)
    if text is None:
        return failed(execution, StageFailure(f"approval service returned {verdict!r}, not a known outcome"))
    return denied(execution, text, "approval-rejected")


async def park(host: object, execution: ToolExecution, reason: str | None) -> Failure[Settled]:
    """Settle a ``"deferred"`` answer: ``APPROVAL_PENDING`` with the approval id, or one error result.

    A call that cannot wait (no parking, the agent's cap, a store that could
    not commit) settles ``APPROVAL_UNAVAILABLE``: nobody is handed an id that
    nobody could resume. Handed a call plan, the host it was planned from parks.
    """
    if type(host) is CallPlan:
        host = host.host
    if not isinstance(host, ApprovalParking):
        return _unavailable(execution, "the approval service deferred the call, but this pipeline cannot park calls")
    try:
        approval_id = await host.park_approval(execution, reason)
    except ApprovalUnavailableError as error:
        return Failure(Settled(execution, exception_result(execution.call_id, error)))
    except Exception as error:  # noqa: BLE001 - a call that cannot wait is settled, not lost
        return _unavailable(execution, f"the approval service deferred the call, but {safe_str(error)}")
    return Failure(Settled(execution, pending_result(execution, approval_id)))


def _unavailable(execution: ToolExecution, message: str) -> Failure[Settled]:
    return Failure(Settled(execution, exception_result(execution.call_id, ApprovalUnavailableError(message))))


def pending_result(execution: ToolExecution, approval_id: str) -> ToolExecutionResult:
    """``Error: tool "<name>" is waiting for approval``, code ``APPROVAL_PENDING``, ``meta={"approvalId": id}``."""
    return exception_result(execution.call_id, ApprovalPendingError(execution.name, approval_id))
