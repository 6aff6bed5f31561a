"""The execution pipeline as public, typed stages.

========================  ==========================================  =========================
stage                     consumes → produces                         plugin seam
========================  ==========================================  =========================
:func:`admit`             ``ToolExecutionInput`` → ``ToolExecution``  (none: the trust boundary)
:func:`pre_execute`       gate: ``PreToolDecision``, approval on Ask  ``tools/pre-execute``
:func:`check_guards`      gate: first ``str`` denies                  ``registry.guard()``
:func:`dispatch`          ``ToolExecution`` → ``ToolExecutionResult``  ``tools/execute`` (around)
:func:`post_execute`      result → result (``PostToolDecision``)      ``tools/post-execute``
:func:`finalize`          ``Settled`` → ``Settled`` (final check)     (none)
:func:`notify_result`     ``Settled`` → result, observers told        ``tools/result``
========================  ==========================================  =========================

Gates return ``Result[ToolExecution, Settled]``: ``Failure`` carries a call that
already has its final (error) result. :func:`execute_call` composes them; see
``docs/pipeline.md`` for a custom pipeline.
"""

from dsh_tools.pipeline.admit import admit
from dsh_tools.pipeline.compose import STANDARD_GATES, Gate, execute_call, pass_gates, run_tool
from dsh_tools.pipeline.dispatch import dispatch, invoke_tool
from dsh_tools.pipeline.guards import check_guards
from dsh_tools.pipeline.host import Guard, PipelineHost
from dsh_tools.pipeline.observe import finalize, notify_result
from dsh_tools.pipeline.outcomes import Settled, StageFailure, error_result, exception_result, failed
from dsh_tools.pipeline.post_execute import apply_post_decision, post_execute, run_post_execute
from dsh_tools.pipeline.pre_execute import ask_approval, decide, pre_execute, run_pre_execute

__all__ = [
    "STANDARD_GATES",
    "Gate",
    "Guard",
    "PipelineHost",
    "Settled",
    "StageFailure",
    "admit",
    "apply_post_decision",
    "ask_approval",
    "check_guards",
    "decide",
    "dispatch",
    "error_result",
    "exception_result",
    "execute_call",
    "failed",
    "finalize",
    "invoke_tool",
    "notify_result",
    "pass_gates",
    "post_execute",
    "pre_execute",
    "run_post_execute",
    "run_pre_execute",
    "run_tool",
]
