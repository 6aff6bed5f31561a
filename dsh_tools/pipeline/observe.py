"""Stage 6, the authoritative result: final check, then ``tools/result`` observers.

Observers see the immutable result after every transform and error boundary,
exactly once per call. They cannot change it, and a failing observer is logged
(once, at WARNING, with a message whose formatting cannot itself raise) and
otherwise ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Final

from dsh_tools.awaitables import is_awaitable
from dsh_tools.execution import ToolExecutionResult
from dsh_tools.pipeline.cancellation import FATAL, cancel_requested
from dsh_tools.listener_chain import Refused
from dsh_tools.pipeline.checks import checked_result
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.outcomes import Settled, error_result, report_failure
from dsh_tools.pipeline.plan import CallPlan, CallState, close_plan

__all__ = ["finalize", "notify_result"]

EVENT: Final = "tools/result"


def finalize(settled: Settled) -> Settled:
    """Re-check the complete post-policy result; a malformed one becomes an error."""
    checked = checked_result(settled.result, settled.execution.call_id)
    if type(checked) is Refused:
        return settled.set(result=error_result(settled.execution.call_id, f"invalid final result: {checked.problem}"))
    return settled


async def notify_result(
    host: PipelineHost,
    settled: Settled,
    *,
    deferred_commits: list[Awaitable[None]] | None = None,
    state: CallState | None = None,
) -> ToolExecutionResult:
    """Tell every observer of the call's scope; return the (unchanged) result.

    Every observer hears the call, whatever an earlier one did: a failing
    observer is logged and skipped; when the caller's task is cancelled (or
    interrupted) during an observer, the rest are still told, and the
    cancellation is left to the caller (``KeyboardInterrupt``/``SystemExit``
    are re-raised here, once everyone has heard).

    A probe's commit (the call journal's) is awaited before the result is
    returned, or, given ``deferred_commits``, added to it for the caller to
    await before it hands any result back (a batch commits its calls together).
    ``state`` is the facts of a call that settled before it was planned (its
    thread slot); a plan brings its own.
    """
    execution, result = settled.execution, settled.result
    fatal: BaseException | None = None
    commits: list[Awaitable[None]] | None = None
    if type(host) is CallPlan:
        observers, probes, state = host.observers, host.probes["settled"], host.state
        close_plan(host, execution)
    else:  # settled before it was planned (at admission), or a stage called on its own
        events = host.events
        observers, probes = events.listeners(EVENT, execution.agent), events.hearing["settled"]
        state = state if state is not None else CallState()
    for probe in probes:
        commit = probe.settled(state, execution, result)
        if commit is not None:
            commits = [commit] if commits is None else [*commits, commit]
    for observer in observers:
        try:
            pending = observer(execution, result)
            if pending is not None and is_awaitable(pending):
                await pending
        except FATAL as error:
            fatal = fatal or error
        except BaseException as error:  # noqa: BLE001 - observe-only: contain and report
            if isinstance(error, asyncio.CancelledError) and cancel_requested():
                continue  # the caller's cancellation: CallerScope re-raises it after the call is recorded
            report_failure(host.logger, f"{EVENT} observer", observer, error)
    if commits is not None and deferred_commits is not None:
        deferred_commits.extend(commits)
    elif commits is not None:
        for commit in commits:
            try:
                await commit
            except asyncio.CancelledError:
                if not cancel_requested():
                    raise
    if fatal is not None:
        raise fatal
    return result
