"""``serve_mcp``: the tools an agent sees, served to any MCP client through the full pipeline.

``tools/list`` answers with the tools the prompt assembly gives the agent (so
Code Mode serves ``run_code``, whose description carries the SDK, and the
server's instructions carry it too). Every ``tools/call`` is one
``ctx.tools.execute`` call: policy, guards, approval, timeouts, observers.

Two things cross the protocol boundary:

* **Ask → elicitation.** A ``tools/pre-execute`` listener (outermost, on
  ``ctx``) sees the final decision of a call made over MCP; an ``Ask`` goes to
  the client as a form elicitation when the client declared that capability
  (accept → allowed, decline → rejected, cancel → cancelled, with the
  registry's usual denial texts). Otherwise the ``Ask`` is left alone, so the
  registry denies it with the no-service text when no approval service is
  mounted. A client may never answer: the question is withdrawn (the SDK
  cancels the elicitation request) as soon as the call's signal is aborted,
  which is what the client's cancel of the ``tools/call`` does, and the call
  settles as a cancelled approval, recorded like any other.
* **Progress.** A call whose request carries a ``progressToken`` gets the
  body's ``exec.report_progress`` reports as ``notifications/progress``
  (each with a larger ``progress`` than the last, as MCP requires; a report
  that goes backwards, such as a retry starting over, is not sent).
* **Cancellation.** When the client cancels a request the SDK cancels its
  handler; the handler aborts the call's signal and waits for the pipeline to
  settle, so the body stops cooperatively and ``tools/result`` observers still
  see exactly one result for the call.
"""

from __future__ import annotations

import asyncio
import itertools
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

import anyio
import mcp_types as mt
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.session import ServerSession
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.code_mode.install import SDK_SECTION, sdk_section_text
from dsh_tools.decisions import Allow, Ask, Deny, PreToolDecision
from dsh_tools.errors import safe_str
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.hooks import PreNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.json_values import dumps, thaw_json
from dsh_tools.mcp.content import to_mcp_content
from dsh_tools.pipeline.plan import mark_approved, plan_of
from dsh_tools.pipeline.remembered import remembered
from dsh_tools.execution import ToolProgress
from dsh_tools.signals import AbortController, AbortSignal
from dsh_tools.system_prompt.records import AssembleContext

__all__ = ["serve_mcp"]

_NO_FORM: Final[dict[str, Any]] = {"type": "object", "properties": {}}
_DENIED: Final = {"decline": 'the user rejected tool "{name}"', "cancel": 'approval for tool "{name}" was cancelled'}


@dataclass
class _Call:
    """The MCP request a pipeline call is running for (a context variable, inherited by sub-calls)."""

    served: _Served
    session: ServerSession
    request_id: mt.RequestId | None
    call_id: str = ""
    progress_token: mt.ProgressToken | None = None
    progressed: float | None = None  # the last progress sent


_CURRENT: ContextVar[_Call | None] = ContextVar("dsh_tools_mcp_call", default=None)


class _Served:
    """The handlers of one served registry view."""

    def __init__(self, ctx: Context, agent: Agent | None) -> None:
        self.ctx = ctx
        self.agent = agent
        self.server: Server[Any] | None = None
        self._ids = itertools.count(1)

    def instructions(self) -> str | None:
        sdk = sdk_section_text(self.ctx.tools, self.agent)  # empty when the agent's mode is native
        if not sdk:
            return None
        return f"Call `{RUN_CODE_NAME}` with a TypeScript program; it can call these tools:\n\n{sdk}"

    async def list_tools(
        self, _: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None
    ) -> mt.ListToolsResult:
        assembly = await self.ctx.system_prompt.assemble(AssembleContext(scope=self.agent))
        sdk = next((section.text for section in assembly.sections if section.name == SDK_SECTION), None)
        if self.server is not None and sdk is not None:
            self.server.instructions = self.instructions()
        tools = []
        for schema in assembly.tools:
            description = schema.description
            if schema.name == RUN_CODE_NAME and sdk is not None:
                description = f"{description}\n\n{sdk}"
            parameters = thaw_json(schema.parameters)
            assert isinstance(parameters, dict)
            tools.append(
                mt.Tool(name=schema.name, description=description, input_schema=parameters, output_schema=self._output_schema(schema.name))
            )
        return mt.ListToolsResult(tools=tools)

    def _output_schema(self, name: str) -> dict[str, Any] | None:
        """A typed tool's output schema when MCP can carry it (an object at the root)."""
        definition = self.ctx.tools.get(name, self.agent)
        schema = thaw_json(definition.output_schema) if definition is not None else None
        return schema if isinstance(schema, dict) and schema.get("type") == "object" else None

    async def call_tool(self, request: ServerRequestContext[Any], params: mt.CallToolRequestParams) -> mt.CallToolResult:
        controller = AbortController()
        call = ToolExecutionInput(
            call_id=f"mcp-{next(self._ids)}",
            name=params.name,
            arguments=params.arguments or {},
            agent=self.agent,
            signal=controller.signal,
        )
        served_call = _Call(self, request.session, request.request_id, call.call_id, progress_token_from_params(request.params))
        token = _CURRENT.set(served_call)
        try:
            running = asyncio.ensure_future(self.ctx.tools.execute(call))  # inherits _CURRENT
        finally:
            _CURRENT.reset(token)
        try:
            result = await asyncio.shield(running)
        except asyncio.CancelledError:
            controller.abort("the MCP client cancelled the call")
            # The SDK's cancel scope re-cancels at every await; shielded, the pipeline
            # settles (the body sees the abort) and records the call before we leave.
            with anyio.CancelScope(shield=True):
                await asyncio.wait({running})
            raise
        return self._to_mcp(result)

    def _to_mcp(self, result: ToolExecutionResult) -> mt.CallToolResult:
        structured = thaw_json(result.value)
        return mt.CallToolResult(
            content=to_mcp_content(result.content),
            structured_content=structured if isinstance(structured, dict) else None,
            is_error=result.is_error,
        )

    async def approve(self, execution: ToolExecution, next: PreNext) -> PreToolDecision:  # noqa: A002
        decision = await next()
        call = _CURRENT.get()
        if type(decision) is not Ask or call is None or call.served is not self or not _can_elicit(call.session):
            return decision
        if await remembered(plan_of(execution) or self.ctx.tools, execution) is not None:
            return decision  # a remembered decision answers it at approval: the client is not asked
        name = execution.name
        reason = f" ({decision.reason})" if decision.reason else ""
        message = f'Allow tool "{name}"{reason}?\nArguments: {dumps(execution.arguments).decode()}'
        asking = asyncio.ensure_future(call.session.elicit_form(message, _NO_FORM, related_request_id=call.request_id))
        try:
            answer = await _unless_aborted(asking, execution.signal)
        except Exception as error:  # noqa: BLE001 - a client that fails to answer denies
            return Deny(f'tool "{name}" needs approval, but the MCP client could not be asked: {safe_str(error)}')
        if answer is None or answer.action == "cancel":
            return Deny(_DENIED["cancel"].format(name=name))
        if answer.action == "accept":  # allowed once, as an approval service's answer is: at most one body start
            plan = plan_of(execution)
            if plan is not None:
                mark_approved(plan)
            return Allow()
        return Deny(_DENIED[answer.action].format(name=name))

    async def forward_progress(self, execution: ToolExecution, progress: ToolProgress) -> None:
        """A ``tools/progress`` listener: the served call's progress to its client, when it asked."""
        call = _CURRENT.get()
        if call is None or call.served is not self or call.progress_token is None or execution.call_id != call.call_id:
            return  # not a served call, a client that did not ask, or a Code Mode sub-call of one
        if call.progressed is not None and progress.progress <= call.progressed:
            return
        call.progressed = progress.progress
        related = None if call.request_id is None else str(call.request_id)
        await call.session.send_progress_notification(
            call.progress_token, progress.progress, progress.total, progress.message, related_request_id=related
        )


async def _unless_aborted(asking: asyncio.Future[mt.ElicitResult], signal: AbortSignal | None) -> mt.ElicitResult | None:
    """The client's answer, or ``None`` once ``signal`` is aborted (the question then withdrawn).

    A client that never answers must not keep the call from settling: the
    call's signal is the only thing that still moves (the client's cancel
    aborts it), so it ends the wait, and cancelling the request makes the
    SDK tell the client with ``notifications/cancelled``.
    """
    if signal is None:
        return await asking
    aborted: asyncio.Future[Any] = asyncio.ensure_future(signal.wait())
    either: set[asyncio.Future[Any]] = {asking, aborted}
    try:
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
        if not asking.done():
            asking.cancel()
            await asyncio.gather(asking, return_exceptions=True)  # the SDK sends the cancellation
    return asking.result() if not asking.cancelled() else None


def _can_elicit(session: ServerSession) -> bool:
    capabilities = session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


def serve_mcp(ctx: Context, *, agent: Agent | None = None, name: str = "dsh-tools") -> Server[Any]:
    """An MCP ``Server`` serving the tools ``agent`` sees (agent-less calls when ``None``).

    Run it on any SDK transport, e.g. ``server.run(read, write,
    server.create_initialization_options())`` inside ``stdio_server()``, or
    ``server.streamable_http_app()``. The elicitation listener is registered
    through ``ctx`` and lives as long as it.
    """
    served = _Served(ctx, agent)
    server: Server[Any] = Server(
        name,
        instructions=served.instructions(),
        on_list_tools=served.list_tools,
        on_call_tool=served.call_tool,
    )
    served.server = server
    ctx.on("tools/pre-execute", served.approve, prepend=True)
    ctx.on("tools/progress", served.forward_progress)
    return server
