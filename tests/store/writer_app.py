"""The writer app the store tests park calls with: one ``write_file`` tool, a policy that asks before it, approval deferred.

``setup(store=...)`` boots it on any store; ``call`` and ``approval_of``
make a call and read the approval id a parked one settles with; ``runs``
holds ``(path, text)`` for every body that ran, so a test can say nothing did.
"""

from __future__ import annotations

from dsh_tools import (
    APPROVAL,
    Agent,
    Ask,
    Context,
    DeferringApprovalService,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    thaw_json,
    tool,
)


async def ask_for_writes(exec: ToolExecution, next: PreNext) -> PreToolDecision:
    return Ask("writes") if exec.name == "write_file" else await next()


def writer(ctx: Context, runs: list[object], *, description: str = "Write a file.") -> object:
    @tool(name="write_file", description=description)
    async def write_file(path: str, text: str = "") -> str:
        runs.append((path, text))
        return f"wrote {path}"

    return ctx.tools.register(write_file)


def setup(**boot_options: object) -> tuple[Context, Agent, list[object]]:
    ctx = boot(**boot_options)  # type: ignore[arg-type]
    runs: list[object] = []
    writer(ctx, runs)
    ctx.on("tools/pre-execute", ask_for_writes)
    ctx.provide(APPROVAL, DeferringApprovalService())
    return ctx, Agent(ctx, name="writer"), runs


def call(agent: Agent, call_id: str = "c1", **arguments: str) -> ToolExecutionInput:
    return ToolExecutionInput(call_id, "write_file", {"path": "a.txt", **arguments}, agent)


def approval_of(result: ToolExecutionResult) -> str:
    assert result.outcome == "approval-pending", result.text
    return str(thaw_json(result.meta)["approvalId"])  # type: ignore[index]
