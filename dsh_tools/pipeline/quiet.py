"""Fast path: a *quiet* call, one that nothing listens to between admission and its observers.

Most calls of a plain registry meet no policy at all: no ``tools/pre-execute``
or ``tools/post-execute`` listener, no guard, no approval, no spilling limit,
no probe that hears a decision. For such a call the standard gates and the
closing stages hand the call on unchanged: the pre-execute waterfall answers
``Allow()``, the guards find nothing to say, post-execute answers
``Accept()`` and spilling has no limit; none of them awaits anything, so not
even a cancellation can arrive in between. For a call :func:`is_quiet`
admits, ``pipeline/compose.py`` marks the call's state ``quiet`` and skips
them (``open_call`` runs only the gates added before the standard ones, such
as Code Mode's presentation gate; ``close_call`` hands the result on), and
``execute()`` with no gate left goes straight from the probes' opening and
the abort check to dispatch. That is about a sixth of a plain call's cost
(``make bench``, "call cost").

Only gates that end with the standard ones qualify (``execute``'s and a
lane's): a pipeline of other gates runs every one of them and every stage
(tests compare the two paths that way, call by call).
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
