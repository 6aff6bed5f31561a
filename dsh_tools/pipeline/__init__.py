"""The execution pipeline as public, typed stages.

============================  ===========================================  ===========================
stage                         consumes → produces                          plugin seam
============================  ===========================================  ===========================
:func:`admit`                 ``ToolExecutionInput`` → ``ToolExecution``   (none: the trust boundary)
:func:`open_call`             gate: abort check, the gates, abort check    ``registry.add_gate()``
:func:`pre_execute`           gate: ``PreToolDecision``, approval on Ask   ``tools/pre-execute``
:func:`check_guards`          gate: first ``str`` denies                   ``registry.guard()``
:func:`dispatch`              ``ToolExecution`` → ``ToolExecutionResult``  ``tools/execute`` (around)
:func:`post_execute`          result → result (``PostToolDecision``)       ``tools/post-execute``
:func:`finalize`              ``Settled`` → ``Settled`` (final check)      (none)
:func:`notify_result`         ``Settled`` → result, observers told         ``tools/result``
============================  ===========================================  ===========================

Gates return ``Result[ToolExecution, Settled]``: ``Failure`` carries a call that
already has its final (error) result. :func:`execute_call` composes them; see
``docs/pipeline.md`` for a custom pipeline. ``ToolRegistry.execute`` and
``execute_batch`` run the registry's ``gates``: those plugins added (Code
Mode's presentation gate), then :data:`STANDARD_GATES`.

Inside the package a result is tested one way: ``type(r) is Failure``, then
``r.failure()`` or ``r.unwrap()``. The ``returns`` containers are ABCs, so
``isinstance`` and ``match`` cost several identity tests, a dozen times per
tool call. Combinators (``.map``, ``.alt``, ``.bind``, ``.lash``) chain steps
where that reads better; a custom pipeline may test results any way it likes.

A call runs in three phases (:func:`open_call`, :func:`dispatch_call`,
:func:`close_call`); :class:`CallLane` / :func:`execute_batch` schedule them
for sibling calls, overlapping only dispatch (``classify`` decides which calls
may). ``pipeline/cancellation.py`` tells the caller's cancellation from a
participant's stray ``CancelledError``. A deferred approval is finished by
:func:`resume_call` (the verdict via :func:`settle_verdict`, then the gates
after approval, dispatch, post-execute and observers); a host that can keep
parked calls implements :class:`ApprovalParking`.

A call's path is linear: admission walks the arguments once (the records
take them as they are from then on), and the call is then planned once
(:class:`CallPlan`: the tool, the listener chains, the guards, the probes,
the approval service), and the plan is handed down the stages as their host.
What the call gathers on the way (the body started, the retry's attempt,
the progress rate limit, the journal's and tracer's slots) lives on the
plan's :class:`CallState`, never in a table keyed by the call.
"""

from dsh_tools.pipeline.admit import admit
from dsh_tools.pipeline.batch import CallLane, execute_batch
from dsh_tools.pipeline.cancellation import CallerScope, cancel_requested, propagate_if_fatal
from dsh_tools.pipeline.classify import ExecutionMode, classify, classify_input
from dsh_tools.pipeline.compose import (
    STANDARD_GATES,
    Gate,
    close_call,
    continue_call,
    dispatch_call,
    execute_call,
    open_call,
    pass_gates,
    run_tool,
)
from dsh_tools.pipeline.dispatch import ExecuteStep, dispatch, invoke_tool
from dsh_tools.pipeline.guards import check_guards
from dsh_tools.seams import Guard, PipelineHost
from dsh_tools.pipeline.observe import finalize, notify_result
from dsh_tools.pipeline.plan import Attempt, CallPlan, CallState, plan_call, plan_of
from dsh_tools.pipeline.outcomes import Settled, StageFailure, aborted_result, error_result, exception_result, failed
from dsh_tools.pipeline.post_execute import apply_post_decision, post_execute, run_post_execute
from dsh_tools.pipeline.pre_execute import ask_approval, decide, pre_execute, run_pre_execute
from dsh_tools.pipeline.resume import AFTER_APPROVAL, resume_call
from dsh_tools.pipeline.values import default_render, render_value, replace_value, tool_result
from dsh_tools.pipeline.verdicts import ApprovalParking, settle_verdict

__all__ = [
    "AFTER_APPROVAL",
    "STANDARD_GATES",
    "ApprovalParking",
    "Attempt",
    "CallLane",
    "CallPlan",
    "CallState",
    "CallerScope",
    "ExecutionMode",
    "Gate",
    "Guard",
    "PipelineHost",
    "Settled",
    "StageFailure",
    "aborted_result",
    "admit",
    "apply_post_decision",
    "ask_approval",
    "cancel_requested",
    "check_guards",
    "classify",
    "classify_input",
    "close_call",
    "continue_call",
    "decide",
    "default_render",
    "dispatch",
    "dispatch_call",
    "error_result",
    "ExecuteStep",
    "exception_result",
    "execute_batch",
    "execute_call",
    "failed",
    "finalize",
    "invoke_tool",
    "notify_result",
    "open_call",
    "plan_call",
    "plan_of",
    "pass_gates",
    "post_execute",
    "pre_execute",
    "propagate_if_fatal",
    "render_value",
    "replace_value",
    "resume_call",
    "run_post_execute",
    "run_pre_execute",
    "run_tool",
    "settle_verdict",
    "tool_result",
]
