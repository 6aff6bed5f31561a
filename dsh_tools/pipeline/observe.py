"""Stage 6, the authoritative result: final check, then ``tools/result`` observers.

Observers see the immutable result after every transform and error boundary,
exactly once per call. They cannot change it, and a failing observer is logged
(once, at WARNING, with a message whose formatting cannot itself raise) and
otherwise ignored.
"""

from __future__ import annotations

import inspect
from typing import Final

from returns.result import Failure

from dsh_tools.errors import safe_str
from dsh_tools.execution import ToolExecutionResult
from dsh_tools.pipeline.checks import check_result
from dsh_tools.pipeline.host import PipelineHost
from dsh_tools.pipeline.outcomes import Settled, error_result

__all__ = ["finalize", "notify_result"]

EVENT: Final = "tools/result"


def finalize(settled: Settled) -> Settled:
    """Re-check the complete post-policy result; a malformed one becomes an error."""
    checked = check_result(settled.result, settled.execution.call_id)
    if isinstance(checked, Failure):
        return settled.set(result=error_result(settled.execution.call_id, f"invalid final result: {checked.failure()}"))
    return settled


async def notify_result(host: PipelineHost, settled: Settled) -> ToolExecutionResult:
    """Tell every observer of the call's scope; return the (unchanged) result."""
    execution, result = settled.execution, settled.result
    for observer in host.events.listeners(EVENT, execution.agent):
        try:
            pending = observer(execution, result)
            if inspect.isawaitable(pending):
                await pending
        except Exception as error:  # noqa: BLE001 - observe-only: contain and report
            host.logger.warning(
                "%s observer %s failed: %s: %s",
                EVENT,
                _describe(observer),
                type(error).__name__,
                safe_str(error),
            )
    return result


def _describe(observer: object) -> str:
    """The observer's ``__qualname__`` for the log line; never raises (``__getattr__`` may)."""
    try:
        name: object = getattr(observer, "__qualname__", None)
    except Exception:  # noqa: BLE001 - a hostile __getattr__ is data here
        name = None
    return name if type(name) is str else type(observer).__qualname__
