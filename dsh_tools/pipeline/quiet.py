"""Fast path: a *quiet* call, one that nothing listens to between admission and its observers.

Most calls of a plain registry meet no policy at all: no ``tools/pre-execute``
or ``tools/post-execute`` listener, no guard, no approval, no spilling limit,
no probe that hears a decision. For such a call every stage but dispatch
hands the call on unchanged: the pre-execute waterfall answers ``Allow()``,
the guards find nothing to say, post-execute answers ``Accept()`` and
spilling has no limit; none of them awaits anything, so not even a
cancellation can arrive in between. For a call :func:`is_quiet` admits,
``continue_call`` (``pipeline/compose.py``) runs just what is left (the
probes' opening, the abort check, dispatch) and skips building and
unpacking the stages' decisions and railway values, about a fifth of a
plain call's cost (``make bench``, "call cost").

Only the standard gates qualify (``execute_call``'s default): a custom
pipeline's gates always run, and handing ``execute_call`` a copy of
:data:`~dsh_tools.pipeline.compose.STANDARD_GATES` runs the plain path
(tests compare the two that way, call by call).
"""

from __future__ import annotations

from dsh_tools.execution import ToolExecution
from dsh_tools.pipeline.plan import CallPlan
from dsh_tools.pipeline.spill import spill_limit

__all__ = ["is_quiet"]


def is_quiet(plan: CallPlan, execution: ToolExecution) -> bool:
    """Whether every stage of the call but dispatch would hand it on unchanged (see the module docstring)."""
    tool = plan.tool
    if plan.pre or plan.post or plan.guards or (tool is not None and tool.needs_approval is not False):
        return False
    probes = plan.probes
    if probes["pre_decided"] or probes["post_decided"]:
        return False
    return spill_limit(plan, execution) is None
