"""A custom pipeline built from the public stages (see docs/pipeline.md).

It keeps the standard stages but (1) drops approval: an ``Ask`` is denied
outright, for a batch job with nobody to ask, and (2) adds a per-agent call
budget as an extra gate after the guards. Everything here type-checks under
``mypy --strict``. ``python -m examples.custom_pipeline`` runs a small batch
job through it and prints each call's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from weakref import WeakKeyDictionary

from returns.result import Failure, Result, Success

from dsh_tools import (
    Agent,
    Ask,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    tool,
)
from dsh_tools.pipeline import (
    Gate,
    PipelineHost,
    Settled,
    check_guards,
    decide,
    error_result,
    execute_call,
    failed,
    run_pre_execute,
)


async def pre_execute_without_approval(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
    """The pre-execute gate, but an ``Ask`` is a denial: nobody is there to answer."""
    decision = await run_pre_execute(host, execution)
    if isinstance(decision, Failure):
        return failed(execution, decision.failure())
    match decision.unwrap():
        case Ask(reason=reason):
            return Failure(Settled(execution, error_result(execution.call_id, reason or "approval needed")))
        case other:
            return await decide(host, execution, other)


def call_budget(limit: int) -> Gate:
    """A gate that settles a call once its agent has made ``limit`` calls.

    Counts are held per agent *weakly*, so a finished agent is not kept alive
    by its count; calls made without an agent share one count.
    """
    spent: WeakKeyDictionary[Agent, int] = WeakKeyDictionary()
    unscoped = 0

    async def gate(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
        nonlocal unscoped
        agent = execution.agent
        if agent is None:
            unscoped += 1
            count = unscoped
        else:
            count = spent[agent] = spent.get(agent, 0) + 1
        if count > limit:
            return Failure(Settled(execution, error_result(execution.call_id, f"call budget of {limit} spent")))
        return Success(execution)

    return gate


def unattended_gates(limit: int) -> Sequence[Gate]:
    """The gates of the unattended pipeline (a batch job with nobody to ask), in order."""
    return (pre_execute_without_approval, check_guards, call_budget(limit))


async def execute_unattended(host: PipelineHost, call: ToolExecutionInput, gates: Sequence[Gate]) -> ToolExecutionResult:
    """``ctx.tools.execute`` with the unattended gates; dispatch, post-execute and observers unchanged.

    Typed by what the pipeline reads (``PipelineHost``): ``ctx.tools`` is one, and so is a test double.
    """
    return await execute_call(host, call, gates=gates)


async def demo() -> list[str]:
    """A batch job: a read, an ``Ask`` nobody answers (denied), a read, and a read past the budget of two."""

    @tool
    async def read_file(path: str) -> str:
        """Read a file (a stand-in that only says so)."""
        return f"read {path}"

    @tool
    async def delete_file(path: str) -> str:
        """Delete a file (a stand-in that only says so)."""
        return f"deleted {path}"

    async def ask_before_deleting(execution: ToolExecution, next: PreNext) -> PreToolDecision:  # noqa: A002
        return Ask("deletes a file") if execution.name == "delete_file" else await next()

    ctx = boot()
    ctx.tools.register(read_file)
    ctx.tools.register(delete_file)
    ctx.on("tools/pre-execute", ask_before_deleting)
    agent = Agent(ctx, name="nightly-job")
    gates = unattended_gates(limit=2)
    plan = [("read_file", "a.txt"), ("delete_file", "b.txt"), ("read_file", "c.txt"), ("read_file", "d.txt")]
    lines = []
    for number, (name, path) in enumerate(plan, start=1):
        result = await execute_unattended(ctx.tools, ToolExecutionInput(f"c{number}", name, {"path": path}, agent), gates)
        lines.append(f"c{number} {name}: {result.text}")
    return lines


if __name__ == "__main__":
    import asyncio

    print("\n".join(asyncio.run(demo())))
