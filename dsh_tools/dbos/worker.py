"""The serving side's work: check a queued call against this worker's tools, then run its dispatch here.

The DBOS workflow (:mod:`.workflows`) calls :meth:`WorkerRuntime.check`
first: a call whose tool this worker resolves differently than the caller
did (another fingerprint, a tool it lacks, or for ``run_code`` another
catalog) settles ``TOOL_MISMATCH`` and nothing runs. Then, after the
workflow recorded ``dsh.started``, :meth:`WorkerRuntime.run_body` runs the
dispatch: this worker's ``tools/execute`` chain (its retry and timeout
policies, per attempt) around the body, exactly as a local call's dispatch,
with the call's idempotency key, approval and (for a Code Mode rerun) replay.
A run that finds ``dsh.started`` already recorded is a recovery: an
idempotent tool runs again with the same key, any other call settles
``TOOL_OUTCOME_UNKNOWN`` without running.

Everything around dispatch (post-execute, the journal of the call, its
observers) is the caller's. A Code Mode program's sub-calls are this
worker's: they go through its whole pipeline as the stand-in of the calling
agent (:mod:`.standins`), journaled here with ``parent_call_id``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Final, cast

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.context.context import Agent, Context
from dsh_tools.content import past_utf8_bytes
from dsh_tools.dbos.codec import Request, catalog_digest, decode_request, encode_result
from dsh_tools.dbos.standins import StandIns
from dsh_tools.dbos.tracing import worker_span
from dsh_tools.errors import PayloadTooLargeError, QueueUnavailableError, ToolMismatchError, ToolOutcomeUnknownError
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.json_values import FrozenJson
from dsh_tools.pipeline.compose import dispatch_call
from dsh_tools.pipeline.outcomes import exception_result
from dsh_tools.pipeline.plan import close_plan, plan_call
from dsh_tools.registry.approvals import fingerprint
from dsh_tools.context.ports import ToolsPort
from dsh_tools.tool_types import RegisteredTool

__all__ = ["WorkerRuntime"]

_LOGGER: Final = logging.getLogger("dsh_tools.dbos")


class WorkerRuntime:
    """One worker's queue, registry and stand-ins, for the workflow to call into."""

    def __init__(self, ctx: Context, queue: str) -> None:
        self.queue = queue
        self.registry: ToolsPort = ctx.tools
        self.standins = StandIns(ctx)

    async def check(self, text: str) -> str | None:
        """An encoded ``TOOL_MISMATCH`` (or unreadable-request) result, or ``None``: the call may run here."""
        try:
            request = decode_request(text)
        except ValueError as error:
            return self._unreadable(text, error)
        async with self.standins.acting(request) as agent:
            if self._resolved(request, agent) is None:
                return encode_result(exception_result(request.call_id, ToolMismatchError(request.name)))
        return None

    def _resolved(self, request: Request, agent: Agent | None) -> RegisteredTool | None:
        """The tool ``agent`` runs for ``request`` if it is the one the caller resolved, else ``None``."""
        tool = self.registry.resolve(request.name, agent)
        if tool is None or fingerprint(tool) != request.fingerprint:
            return None
        if request.name == RUN_CODE_NAME and request.catalog != catalog_digest(self.registry.end_capabilities(agent)):
            return None  # the program was written against tools this stand-in does not have
        return tool

    async def run_body(self, text: str, rerun: bool) -> str:
        """Run the dispatch (see the module docstring); the encoded result, bounded by the call's payload limit."""
        try:
            request = decode_request(text)
        except ValueError as error:
            return self._unreadable(text, error)
        async with self.standins.acting(request) as agent:
            result = await self._dispatch(request, agent, rerun)
        encoded = encode_result(result)
        if past_utf8_bytes(encoded, request.max_payload_bytes):
            encoded = encode_result(exception_result(request.call_id, PayloadTooLargeError(request.max_payload_bytes)))
        return encoded

    async def _dispatch(self, request: Request, agent: Agent | None, rerun: bool) -> ToolExecutionResult:
        tool = self._resolved(request, agent)
        if tool is None:  # the tool changed since the check (a registration in between)
            return exception_result(request.call_id, ToolMismatchError(request.name))
        if rerun and not tool.idempotent:
            return exception_result(request.call_id, ToolOutcomeUnknownError(request.name))
        registry = self.registry
        execution = ToolExecution(
            registry.mint_token(), request.call_id, request.name, cast("FrozenJson", request.arguments), agent,
            idempotency_key=request.idempotency_key,
        )
        plan = plan_call(registry, execution)
        state = plan.state
        state.approved = request.approved
        state.approval_id = request.approval_id
        if request.replay is not None:
            state.replay = _replay(request)
        try:
            with worker_span(request.name, request.call_id, self.queue, request.trace, request.enqueued_at):
                return await dispatch_call(plan, execution)
        finally:
            close_plan(plan, execution)

    def _unreadable(self, text: object, error: ValueError) -> str:
        _LOGGER.warning("queue %s: refused a request that does not read as a call: %s", self.queue, error)
        reason = f"the worker could not read the call: {error}"
        return encode_result(exception_result("?", QueueUnavailableError(self.queue, reason)))


def _replay(request: Request) -> object:
    """The Code Mode rerun's matching state, rebuilt from the caller's (``None`` if it does not read as one)."""
    from dsh_tools.code_mode.replay import ParkedProgram, RecordedCall, Replay

    data = request.replay
    if not isinstance(data, Mapping):
        return None
    try:
        program = ParkedProgram.read(data["program"])
        approved = RecordedCall.read(data["approved"])
        outcome = data["outcome"]
    except (KeyError, TypeError, ValueError):
        return None
    if program is None or type(outcome) is not str:
        return None
    return Replay(program, approved, outcome)
