"""The caller's side: ``configure`` the queues, then enqueue each routed dispatch and await its result.

A caller only enqueues and awaits, as a ``DBOSClient`` does: it serves no
queue, so a process whose every call is routed needs no DBOS of its own. For
one call, :meth:`DbosQueues.dispatch`

1. answers ``TOOL_NOT_FOUND`` for a tool this process cannot resolve (as a
   local dispatch does), builds the request (:mod:`.codec`) and refuses it as
   ``PAYLOAD_TOO_LARGE`` past the queue's ``max_payload_bytes``, all before
   anything is enqueued;
2. enqueues ``dsh.dispatch`` under the workflow id
   ``dsh:<agent_id>:<idempotency_key>:<n>`` (``n``: the call's ``n``-th
   dispatch, so a Code Mode rerun is new work while a recovery of the same
   dispatch finds the workflow DBOS already has, and its result), with the
   agent and the call as attributes (what :meth:`~DbosQueues.queued_calls_of`
   reads) and, with ``partition_by_agent``, the agent as partition key;
3. awaits the result at the queue's polling interval, under the caller's call
   id whatever id the worker's result names. Cancelling the call cancels the
   workflow, and whether the worker had recorded ``dsh.started`` is noted on
   the plan: an aborted signal settles ``ABORTED`` or
   ``ABORTED_BEFORE_DISPATCH`` here, a cancelled task is settled so by the
   pipeline.

What DBOS raises is a result too: ``QUEUE_UNAVAILABLE`` with DBOS's reason
(or when someone else cancelled the workflow), ``TOOL_OUTCOME_UNKNOWN`` when
DBOS gave up recovering the dispatch. A database error while awaiting is the
exception: it is waited out, with backoff (the database may be away; the
worker goes on, so the result will be there), until the call is cancelled.

:meth:`~DbosQueues.queued_calls_of` and :meth:`~DbosQueues.result_of` are
recovery's side: the dispatches DBOS holds for an agent, and the result of
one, awaited as above.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Final, cast

from dbos import DBOS, DBOSClient, EnqueueOptions
from dbos._error import DBOSAwaitedWorkflowCancelledError, DBOSAwaitedWorkflowMaxRecoveryAttemptsExceeded
from sqlalchemy.exc import DBAPIError

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.dbos.codec import (
    Request,
    Restrictions,
    catalog_digest,
    decode_result,
    encode_request,
    workflow_id,
)
from dsh_tools.content import past_utf8_bytes
from dsh_tools.dbos.names import (
    AGENT_ATTRIBUTE,
    CALL_ATTRIBUTE,
    NO_AGENT,
    STARTED_STEP,
    WORKFLOW_NAME,
    WORKFLOW_PREFIX,
    agent_key,
    app_name,
)
from dsh_tools.dbos.options import check_queues, queue_arguments, system_database
from dsh_tools.dbos.seam import QueuedCall, QueueOptions, set_configured_dispatcher
from dsh_tools.dbos.tracing import trace_carrier
from dsh_tools.errors import (
    PayloadTooLargeError,
    QueueUnavailableError,
    ToolNotFoundError,
    ToolOutcomeUnknownError,
    safe_str,
)
from dsh_tools.execution import ToolExecution, ToolExecutionResult
from dsh_tools.json_values import JsonValue
from dsh_tools.pipeline.outcomes import aborted_result, exception_result
from dsh_tools.pipeline.plan import plan_call
from dsh_tools.registry.approvals import fingerprint

if TYPE_CHECKING:
    from dbos import WorkflowHandleAsync

    from dsh_tools.pipeline.plan import CallPlan
    from dsh_tools.seams import PipelineHost

    Handle = WorkflowHandleAsync[Any]

__all__ = ["DbosQueues", "configure"]

_CANCEL_SECONDS: Final = 5.0
"""How long a cancelled call waits for DBOS to record the cancellation (the database may be away)."""
_BACKOFF_MAX: Final = 2.0


def configure(store_url: str, *, queues: Mapping[str, QueueOptions]) -> DbosQueues:
    """Set up ``queues`` on the store's DBOS system database and make them this process's dispatcher.

    The system database is created or upgraded here (DBOS's migrations), and
    each queue's options are written to it (workers read them from there). A
    process whose DBOS another library already configured reuses it: its
    system database, and its connections once it is launched. ``ValueError``
    for a bogus queue name or option, or a store DBOS cannot share; DBOS's own
    error when the database cannot be reached.
    """
    options = check_queues(queues)
    url, schema, engine = system_database(store_url)
    if engine is None:
        DBOS.migrate(url, schema=schema)
    client = DBOSClient(
        system_database_url=url if engine is None else None,
        system_database_engine=engine,
        dbos_system_schema=schema,
        retry_connection_errors=False,
    )
    try:
        for name, option in options.items():
            _off_loop(lambda: client.register_queue(name, **queue_arguments(option), application_name=app_name(name)))
    except BaseException:
        client.destroy()
        raise
    dispatcher = DbosQueues(client, options)
    set_configured_dispatcher(dispatcher)
    return dispatcher


class DbosQueues:
    """The DBOS dispatcher (:class:`~dsh_tools.dbos.seam.QueueDispatcher`): see the module docstring."""

    def __init__(self, client: DBOSClient, options: Mapping[str, QueueOptions]) -> None:
        self._client = client
        self.options: Mapping[str, QueueOptions] = dict(options)

    def knows(self, queue: str) -> bool:
        return queue in self.options

    def close(self) -> None:
        """Release the connections; this process routes to no queue afterwards."""
        set_configured_dispatcher(None)
        self._client.destroy()

    async def dispatch(self, host: PipelineHost, queue: str, execution: ToolExecution) -> ToolExecutionResult:
        plan = plan_call(host, execution)  # the call's own plan, as the pipeline hands it (else planned now)
        options = self.options[queue]
        tool = plan.tool
        if tool is None:  # the same answer a local dispatch gives, without a round trip
            return exception_result(execution.call_id, ToolNotFoundError(execution.name))
        request = build_request(plan, execution, fingerprint(tool), options)
        payload = encode_request(request)
        if past_utf8_bytes(payload, options.max_payload_bytes):
            return exception_result(execution.call_id, PayloadTooLargeError(options.max_payload_bytes))
        wid = workflow_id(request.agent_id, request.idempotency_key, request.dispatch)
        enqueue: EnqueueOptions = {
            "workflow_name": WORKFLOW_NAME,
            "queue_name": queue,
            "workflow_id": wid,
            "application_name": app_name(queue),
            "attributes": {
                AGENT_ATTRIBUTE: agent_key(request.agent_id),
                CALL_ATTRIBUTE: [request.call_id, request.name, request.idempotency_key, request.dispatch, queue],
            },
        }
        if options.partition_by_agent:
            enqueue["queue_partition_key"] = agent_key(request.agent_id)
        try:
            handle: Handle = await self._client.enqueue_async(enqueue, payload)
        except Exception as error:  # noqa: BLE001 - any failure to enqueue is the queue's answer
            return exception_result(execution.call_id, QueueUnavailableError(queue, _reason(error)))
        awaiting = self._await(queue, wid, execution, options.polling_interval_s, handle)
        return await self._await_or_abort(plan, wid, execution, awaiting)

    async def _await_or_abort(
        self, plan: CallPlan, wid: str, execution: ToolExecution, awaiting: Coroutine[Any, Any, ToolExecutionResult]
    ) -> ToolExecutionResult:
        """Await the result unless the call is cancelled first (its task, or its signal): then the workflow is cancelled.

        A cancelled task raises on; an aborted signal is this call's result
        (``ABORTED`` once the body had started, else ``ABORTED_BEFORE_DISPATCH``).
        """
        signal = execution.signal
        try:
            if signal is None:
                return await awaiting
            result_task = asyncio.ensure_future(awaiting)
            abort_task = asyncio.ensure_future(signal.wait())
            try:
                done, _ = await asyncio.wait({result_task, abort_task}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                abort_task.cancel()
                if not result_task.done():
                    result_task.cancel()
            if result_task in done:
                return result_task.result()
        except asyncio.CancelledError:
            await self._cancel(plan, wid)
            raise
        started = await self._cancel(plan, wid)
        return aborted_result(execution, "ABORTED" if started else "ABORTED_BEFORE_DISPATCH", signal.reason)

    async def _await(
        self, queue: str, wid: str, call: ToolExecution | QueuedCall, polling: float, handle: Handle | None = None
    ) -> ToolExecutionResult:
        """The dispatch's result as the worker settled it (a database error is waited out, with backoff)."""
        call_id = call.call_id
        wait = polling
        while True:
            try:
                if handle is None:
                    handle = await self._client.retrieve_workflow_async(wid)
                result = decode_result(await handle.get_result(polling_interval_sec=polling))
                # the worker's word for the call id is not trusted (it names "?" for a request it could not read)
                return result if result.call_id == call_id else result.set(call_id=call_id)
            except DBAPIError:
                await asyncio.sleep(wait)  # the database is away: the worker goes on, so the result will be there
                wait = min(_BACKOFF_MAX, wait * 2)
            except DBOSAwaitedWorkflowCancelledError:
                return exception_result(call_id, QueueUnavailableError(queue, f"its workflow {wid} was cancelled"))
            except DBOSAwaitedWorkflowMaxRecoveryAttemptsExceeded:
                name = call.name if isinstance(call, ToolExecution) else call.tool_name
                return exception_result(call_id, ToolOutcomeUnknownError(name))
            except Exception as error:  # noqa: BLE001 - a worker's failure is this call's result, never a raise
                return exception_result(call_id, QueueUnavailableError(queue, _reason(error)))

    async def _cancel(self, plan: CallPlan, wid: str) -> bool:
        """Cancel the workflow; whether its body had started (``True`` when DBOS cannot say: it may have), noted on the plan."""
        try:
            async with asyncio.timeout(_CANCEL_SECONDS):
                await self._client.cancel_workflow_async(wid)
                steps = await self._client.list_workflow_steps_async(wid)
            started = any(step["function_name"] == STARTED_STEP for step in steps)
        except Exception:  # noqa: BLE001 - the database is away: nobody can say, so it may have started
            started = True
        plan.state.body_started = started
        return started

    async def queued_calls_of(self, agent_id: str) -> list[QueuedCall]:
        # By id prefix, not DBOS's attribute filter (SQLite has none); the attribute then tells "a" from "a:b".
        found = await self._client.list_workflows_async(
            workflow_id_prefix=f"{WORKFLOW_PREFIX}{agent_id}:", load_input=False, load_output=False
        )
        calls = []
        for status in found:
            attributes = status.attributes or {}
            detail = attributes.get(CALL_ATTRIBUTE)
            if attributes.get(AGENT_ATTRIBUTE) != agent_id or not isinstance(detail, list) or len(detail) != 5:
                continue  # another agent's whose id extends this one, or not one of ours
            call_id, tool_name, key, dispatch, queue = detail  # the queue too: DBOS clears it when it cancels
            calls.append(QueuedCall(
                status.workflow_id, queue, None if agent_id == NO_AGENT else agent_id, call_id, tool_name, key,
                dispatch, str(status.status), status.executor_id,
            ))
        return calls

    async def result_of(self, call: QueuedCall) -> ToolExecutionResult:
        # a queue this process did not configure (another's dispatch) is awaited at the default polling interval
        polling = self.options.get(call.queue, QueueOptions()).polling_interval_s
        return await self._await(call.queue, call.workflow_id, call, polling)


def build_request(plan: CallPlan, execution: ToolExecution, print_: str, options: QueueOptions) -> Request:
    """What the worker needs to run ``execution``'s dispatch as this process planned it."""
    from dsh_tools.code_mode.replay import Replay
    from dsh_tools.registry.registry import ToolRegistry

    agent = execution.agent
    registry = plan.host if isinstance(plan.host, ToolRegistry) else None
    mode = registry.mode_for(agent) if registry is not None else "native"
    restrictions: Restrictions = ()
    catalog = None
    if registry is not None and agent is not None:
        restrictions = tuple(
            (None if allow is None else tuple(sorted(allow)), tuple(sorted(deny)))
            for allow, deny in registry.restrictions_of(agent)
        )
    if registry is not None and execution.name == RUN_CODE_NAME:
        catalog = catalog_digest(registry.end_capabilities(agent))
    replay = plan.state.replay
    wired: JsonValue | None = None
    dispatch = 1
    if isinstance(replay, Replay):
        wired = cast(
            "JsonValue",
            {"program": replay.program.wire(), "approved": replay.approved.wire(), "outcome": replay.approved_outcome},
        )
        dispatch = replay.program.resumes + 2  # the first run was dispatch 1; each rerun is new work
    return Request(
        execution.call_id, execution.name, execution.arguments, execution.idempotency_key, dispatch, print_,
        time.time(), options.max_payload_bytes,
        agent_id=None if agent is None else agent.id,
        agent_name=None if agent is None else agent.name,
        mode=mode,
        restrictions=restrictions,
        catalog=catalog,
        approved=plan.state.approved,
        approval_id=plan.state.approval_id,
        replay=wired,
        trace=trace_carrier(),
    )


def _off_loop(action: Callable[[], object]) -> None:
    """Run a blocking DBOS call on a thread of its own when an event loop runs here (DBOS warns otherwise)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        action()
        return
    with ThreadPoolExecutor(1) as pool:
        pool.submit(action).result()


def _reason(error: BaseException) -> str:
    """DBOS's reason, on one line, without a connection string's password (psycopg quotes the DSN's host only)."""
    text = safe_str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:300]
