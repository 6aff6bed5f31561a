"""The demo's host: a booted registry, one agent, the policies, and a call helper.

:class:`DemoSession` plays the agent loop's part without a model: it sends
each scripted call through ``ctx.tools.execute`` as the loop would, for the
agent (so approval and the session log apply), and turns each result into a
:class:`~dsh_tools.demo.transcript.CallRecord`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dsh_tools.approval import ApprovalOutcome
from dsh_tools.boot import boot
from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.code_mode.runtime import CodeRuntime
from dsh_tools.demo.policies import ScriptedApprover, install_policies
from dsh_tools.demo.transcript import CallRecord
from dsh_tools.execution import PluginSource, ToolExecutionInput, ToolExecutionResult, content_text
from dsh_tools.context.context import Agent, Context
from dsh_tools.context.services import APPROVAL
from dsh_tools.json_values import JsonValue, thaw_json
from dsh_tools.registry.registry import ToolMode
from dsh_tools.tool_types import ToolDefinition
from dsh_tools.system_prompt.records import PromptSection

__all__ = ["AGENT_NAME", "DemoSession", "ToolsFactory"]

ToolsFactory = Callable[[Path], Sequence[ToolDefinition]]
"""Makes the demo's tools, confined to the workspace it is given."""

AGENT_NAME = "demo-agent"
APPROVAL_SCRIPT: tuple[ApprovalOutcome, ...] = ("allowed-once", "rejected", "allowed-once", "deferred")
"""The scripted human: allow, reject, allow (the parallel write), then "later" (the paused program's write)."""


class DemoSession:
    """One booted context with the demo's tools and policies, and a scripted agent."""

    def __init__(
        self, mode: ToolMode, workspace: Path, make_tools: ToolsFactory, runtime: CodeRuntime | None
    ) -> None:
        self.workspace = workspace
        self.ctx: Context = boot(mode=mode, code_runtime=runtime)
        self.approver = ScriptedApprover(APPROVAL_SCRIPT)
        self.ctx.provide(APPROVAL, self.approver)
        self.ctx.system_prompt.section(
            PromptSection(
                "demo:role",
                100,
                "You are a coding agent working in a small project workspace. "
                "Use the tools to inspect it; paths are relative to the workspace root.",
            )
        )
        for tool in make_tools(workspace):
            self.ctx.tools.register(tool)
        install_policies(self.ctx, workspace)
        self.agent = Agent(self.ctx, name=AGENT_NAME)
        # A code-mode agent may call only run_code directly; the scripted direct
        # calls go through a twin that sees the same tools presented as "both".
        self.direct = self.agent
        if mode == "code":
            self.direct = Agent(self.ctx, name=f"{AGENT_NAME}-direct")
            self.direct.ctx.tools.present_as("both")
        self._calls = 0

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallRecord:
        """Execute one call for the agent, as the loop would; never raises.

        ``run_code`` is the agent's own call; any other tool is called for
        :attr:`direct` (the agent itself unless it presents as ``code``).
        """
        call = self.next_call(tool, arguments)
        return self._record(call, arguments, await self.ctx.tools.execute(call))

    async def call_batch(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> tuple[CallRecord, ...]:
        """Execute the calls of one assistant message as a batch (``execute_batch``), results in order."""
        inputs = [self.next_call(tool, arguments) for tool, arguments in calls]
        results = await self.ctx.tools.execute_batch(inputs)
        return tuple(self._record(call, arguments, result) for call, (_, arguments), result in zip(inputs, calls, results))

    def next_call(self, tool: str, arguments: dict[str, Any]) -> ToolExecutionInput:
        """The agent's next call (ids ``call-1``, ``call-2``, … in the order the script makes them)."""
        self._calls += 1
        args: JsonValue = arguments
        caller = self.agent if tool == RUN_CODE_NAME else self.direct
        return ToolExecutionInput(f"call-{self._calls}", tool, args, caller)

    def _record(self, call: ToolExecutionInput, arguments: dict[str, Any], result: ToolExecutionResult) -> CallRecord:
        call_id, tool = call.call_id, call.name
        context = result.additional_context
        source = None
        if context is not None:
            source = context.source.plugin if isinstance(context.source, PluginSource) else "user"
        return CallRecord(
            call_id=call_id,
            tool=tool,
            arguments=arguments,
            is_error=result.is_error,
            text=result.text,
            error_code=None if result.error is None else result.error.code,
            error_name=None if result.error is None else result.error.name,
            additional_context=None if context is None else content_text(context.content),
            context_source=source,
            approval=self.approver.answers.get(call_id),
        )

    def dispatch_log(self) -> list[Any]:
        """The agent's ``tool/code-dispatch`` session events, as plain JSON."""
        return [thaw_json(data) for kind, data in self.agent.session.events() if kind == "tool/code-dispatch"]
