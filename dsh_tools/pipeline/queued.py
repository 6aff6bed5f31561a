"""A queued dispatch: the call's ``tools/execute`` chain and body run on a worker, not here.

When a call's plan names a queue (the registry's routing, read at admission),
:func:`~dsh_tools.pipeline.compose.dispatch_call` hands the dispatch to the
plan's dispatcher instead of :func:`~dsh_tools.pipeline.dispatch.dispatch`:
this process's ``tools/execute`` wrappers do not run (the worker's do), and
everything around dispatch (policy before, post-execute, the journal and the
observers after) stays here. A route to a queue that no dispatcher knows is a
result, ``QUEUE_UNAVAILABLE``, never an exception.
"""

from __future__ import annotations

from typing import Final

from dsh_tools.errors import QueueUnavailableError
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.pipeline.outcomes import exception_result
from dsh_tools.pipeline.plan import CallPlan

__all__ = ["NOT_CONFIGURED", "dispatch_queued"]

NOT_CONFIGURED: Final = "no dispatcher is configured for it (dsh_tools.dbos.configure(store_url, queues=...))"


async def dispatch_queued(plan: CallPlan, queue: str, execution: ToolExecution) -> ToolExecutionResult:
    """The worker's result for ``execution``'s dispatch on ``queue``, or ``QUEUE_UNAVAILABLE``."""
    dispatcher = plan.dispatcher
    if dispatcher is None or not dispatcher.knows(queue):
        return exception_result(execution.call_id, QueueUnavailableError(queue, NOT_CONFIGURED))
    return await dispatcher.dispatch(plan, queue, execution)
