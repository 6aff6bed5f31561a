"""Deferred approval that survives a restart: park a call, stop, decide from a UI, run it in a new process.

Run it with ``python -m examples.deferred_approval``. Each step below runs as
its own process (``python -m examples.deferred_approval STEP DIR``); they
share nothing but ``DIR/calls.db``, a SQLite call store (see
``docs/durability.md``):

1. ``park``: the agent's ``write_file`` call needs approval (a
   ``tools/pre-execute`` listener answers ``Ask``). The approval service
   cannot block the agent's loop until someone clicks, so it answers
   ``"deferred"``: the call is committed to the store and settles at once as
   ``APPROVAL_PENDING``, with an approval id in its ``meta``. The process ends.
2. ``ui``: a web UI (any process with the store) lists what waits, with the
   arguments, from ``pending_approvals()``, and records the user's click with
   ``store.decide(approval_id, "allowed-once")``. It runs nothing.
3. ``run``: the agent's process starts again with the same agent id, and
   ``resume_decided(agent)`` runs every decided call once, through the guards
   (as they are now), the body and ``tools/post-execute``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path

from dsh_tools import (
    APPROVAL,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    Context,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    boot,
    thaw_json,
    tool,
)

AGENT_ID = "editor-1"
"""The agent's stable identity: what lets a new process pick up its parked calls."""


def agent_context(folder: Path) -> tuple[Context, Agent]:
    """The agent's process: a registry on the shared store, the tool, the policy, the agent."""
    ctx = boot(store=f"sqlite:///{folder / 'calls.db'}")

    @tool
    async def write_file(path: str, text: str) -> str:
        """Write a text file.

        Args:
            path: Where to write, relative to the project.
            text: The whole new content.
        """
        (folder / path).write_text(text)
        return f"wrote {len(text.encode())} bytes to {path}"

    async def writes_need_approval(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("writes to the project") if exec.name == "write_file" else await next()

    ctx.tools.register(write_file)
    ctx.on("tools/pre-execute", writes_need_approval)
    ctx.provide(APPROVAL, DeferToUi())
    return ctx, Agent(ctx, name="editor", id=AGENT_ID)


class DeferToUi:
    """The approval service: never blocks the agent; every question waits in the UI."""

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        return "deferred"


def describe(execution: ToolExecution) -> str:
    """``write_file README.md (8 B)``: the approver sees what it approves, not just a name."""
    arguments = thaw_json(execution.arguments)
    if execution.name == "write_file" and isinstance(arguments, dict):
        text = arguments.get("text", "")
        size = len(text.encode()) if isinstance(text, str) else 0
        return f"write_file {arguments.get('path')} ({size} B)"
    return execution.name


async def park(folder: Path) -> list[str]:
    ctx, agent = agent_context(folder)
    call = ToolExecutionInput("call-1", "write_file", {"path": "README.md", "text": "# Hello\n"}, agent)
    parked = await ctx.tools.execute(call)
    await ctx.tools.store.aclose()
    return [f"agent got: {parked.text} ({parked.outcome})"]


async def ui(folder: Path) -> list[str]:
    ctx = boot(store=f"sqlite:///{folder / 'calls.db'}")  # no agent here: a UI process
    seen = []
    for pending in await ctx.tools.pending_approvals():
        seen.append(f"ui shows: {describe(pending.execution)} for agent {pending.agent_id}")
        await ctx.tools.store.decide(pending.approval_id, "allowed-once", decided_by="alice")
    await ctx.tools.store.aclose()
    return seen


async def run(folder: Path) -> list[str]:
    ctx, agent = agent_context(folder)
    lines = [f"after approval: {result.text}" for result in await ctx.tools.resume_decided(agent)]
    lines.append(f"on disk: {(folder / 'README.md').read_text()!r}")
    lines.append(f"still waiting: {len(await ctx.tools.pending_approvals(agent))}")
    await ctx.tools.store.aclose()
    return lines


STEPS = {"park": park, "ui": ui, "run": run}


def main() -> list[str]:
    """Run the three steps as three processes over one store; what a user would have seen, line by line."""
    with tempfile.TemporaryDirectory() as folder:
        lines: list[str] = []
        for step in STEPS:
            done = subprocess.run(
                [sys.executable, "-m", "examples.deferred_approval", step, folder],
                capture_output=True,
                text=True,
                check=True,
                cwd=Path(__file__).resolve().parents[1],
            )
            lines.extend(done.stdout.splitlines())
        return lines


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print("\n".join(asyncio.run(STEPS[sys.argv[1]](Path(sys.argv[2])))))
    else:
        print("\n".join(main()))
