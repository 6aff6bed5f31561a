"""Deferred approval for a web UI: park a call, restart the UI, resume the call.

Run it with ``python -m examples.deferred_approval``. The flow (see
``docs/policies.md``, "Deferred approval"):

1. The agent's ``write_file`` call needs approval (a ``tools/pre-execute``
   listener answers ``Ask``). The approval service cannot block the agent's
   loop until someone clicks, so it answers ``"deferred"``: the call settles
   at once as ``APPROVAL_PENDING`` with an approval id in its ``meta``.
2. The UI shows what is waiting. It keeps no state of its own: every card is
   read from ``ctx.tools.pending_approvals(agent)``, arguments included, so a
   UI that restarts (a page reload, a new worker process in front of the same
   backend) loses nothing.
3. The user clicks; the UI calls ``await ctx.tools.resume(approval_id,
   "allowed-once")``, which runs the call through the guards (as they are
   now), the body and ``tools/post-execute``, tells ``tools/result``
   observers, and returns the final result for the UI to hand to the agent.
"""

from __future__ import annotations

import asyncio

from dsh_tools import (
    APPROVAL,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    ApprovalVerdict,
    Ask,
    Context,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    thaw_json,
    tool,
)


class Disk:
    """Stands in for the file system, so the example writes nothing real."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}


def install_tools(ctx: Context, disk: Disk) -> None:
    """The agent's one tool, and the policy that makes writing ask first."""

    @tool
    async def write_file(path: str, text: str) -> str:
        """Write a text file.

        Args:
            path: Where to write, relative to the project.
            text: The whole new content.
        """
        disk.files[path] = text
        return f"wrote {len(text.encode())} bytes to {path}"

    async def writes_need_approval(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("writes to the project") if exec.name == "write_file" else await next()

    ctx.tools.register(write_file)
    ctx.on("tools/pre-execute", writes_need_approval)


class DeferToUi:
    """The approval service: never blocks the agent; every question waits in the UI."""

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        return "deferred"


class ApprovalInbox:
    """The web UI's approval page. Stateless: everything comes from the registry."""

    def __init__(self, ctx: Context, agent: Agent) -> None:
        self._ctx = ctx
        self._agent = agent

    def cards(self) -> list[tuple[str, str]]:
        """``(approval id, what the user is asked)`` for each waiting call, oldest first."""
        return [(pending.approval_id, describe(pending.execution)) for pending in self._ctx.tools.pending_approvals(self._agent)]

    async def answer(self, approval_id: str, verdict: ApprovalVerdict) -> ToolExecutionResult:
        """The user's click: finish the call and return its result (for the agent's transcript)."""
        return await self._ctx.tools.resume(approval_id, verdict)


def describe(execution: ToolExecution) -> str:
    """``write_file README.md (12 B)``: the approver sees what it approves, not just a name."""
    arguments = thaw_json(execution.arguments)
    if execution.name == "write_file" and isinstance(arguments, dict):
        text = arguments.get("text", "")
        size = len(text.encode()) if isinstance(text, str) else 0
        return f"write_file {arguments.get('path')} ({size} B)"
    return execution.name


async def main() -> list[str]:
    """Run the whole flow; returns what a user would have seen, line by line."""
    ctx = boot()
    disk = Disk()
    install_tools(ctx, disk)
    ctx.provide(APPROVAL, DeferToUi())
    agent = Agent(ctx, name="editor")
    transcript: list[str] = []

    parked = await ctx.tools.execute(ToolExecutionInput("call-1", "write_file", {"path": "README.md", "text": "# Hello\n"}, agent))
    transcript.append(f"agent got: {parked.text}")

    ui = ApprovalInbox(ctx, agent)
    transcript.extend(f"ui shows: {card}" for _, card in ui.cards())

    del ui  # the UI restarts: a page reload, a new process in front of the same backend
    ui = ApprovalInbox(ctx, agent)
    ((approval_id, _),) = ui.cards()  # the fresh UI finds the same call waiting
    result = await ui.answer(approval_id, "allowed-once")
    transcript.append(f"after approval: {result.text}")
    transcript.append(f"on disk: {disk.files}")
    transcript.append(f"still waiting: {len(ui.cards())}")
    return transcript


if __name__ == "__main__":
    print("\n".join(asyncio.run(main())))
