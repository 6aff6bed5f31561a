"""The DBOS workflow every queued call runs as, and its two steps.

``dsh.dispatch(request)``:

1. checks the call against this worker's tools (not a step: a recovery
   checks again, against the tools the recovering worker has);
2. records ``dsh.started`` (a step) *before* the body can start. A step's
   output is recorded once: a recovery gets the earlier execution's nonce
   back instead of its own, which is how it knows the body may already have
   run;
3. runs ``dsh.body`` (a preemptible step): the dispatch, or, on a recovery of
   a call whose tool is not idempotent, ``TOOL_OUTCOME_UNKNOWN``. Its result
   is recorded, so a worker that dies after the body but before the workflow
   ends hands the next one the result, not a second run. Preemptible: when
   the caller cancels the workflow, DBOS cancels the running body.

The functions are registered with DBOS when this module is imported (a
worker imports it before ``DBOS.launch``); callers never import it. They
reach the serving process's :class:`~dsh_tools.dbos.worker.WorkerRuntime`
through :func:`serving`, set once per process as DBOS itself is.
"""

from __future__ import annotations

import secrets

from dbos import DBOS

from dsh_tools.dbos.names import BODY_STEP, STARTED_STEP, WORKFLOW_NAME
from dsh_tools.dbos.worker import WorkerRuntime

__all__ = ["dispatch_workflow", "serving"]

_RUNTIME: list[WorkerRuntime] = []


def serving(runtime: WorkerRuntime | None) -> None:
    """Make ``runtime`` the one the workflows of this process run on (``None``: none)."""
    _RUNTIME[:] = [] if runtime is None else [runtime]


def _runtime() -> WorkerRuntime:
    if not _RUNTIME:
        raise RuntimeError("this process serves no queue: dsh-tools worker sets one up before DBOS launches")
    return _RUNTIME[0]


@DBOS.step(name=STARTED_STEP)
async def _started(nonce: str) -> str:
    return nonce


@DBOS.step(name=BODY_STEP, preemptible=True)
async def _body(request: str, rerun: bool) -> str:
    return await _runtime().run_body(request, rerun)


@DBOS.workflow(name=WORKFLOW_NAME)
async def dispatch_workflow(request: str) -> str:
    """One queued call's dispatch on this worker; its encoded result."""
    refused = await _runtime().check(request)
    if refused is not None:
        return refused
    nonce = secrets.token_hex(16)
    rerun = await _started(nonce) != nonce
    return await _body(request, rerun)
