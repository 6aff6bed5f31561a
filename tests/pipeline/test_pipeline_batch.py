"""``execute_batch``: overlap for safe calls, barriers for exclusive ones, policy in input order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from dsh_tools import (
    Allow,
    ExecuteNext,
    PostNext,
    PostToolDecision,
    PreNext,
    PreToolDecision,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
)
from dsh_tools.context.context import Context
from batch_support import Gated, Log, Rendezvous, calls, other_tasks, settle, when
from pipeline_support import Results, texts


@pytest.fixture
def ctx() -> Context:
    return boot(timeouts=False)


@pytest.fixture
def log() -> Log:
    return Log()


async def test_safe_calls_overlap_and_results_keep_input_order(ctx: Context, log: Log) -> None:
    ctx.tools.register(Rendezvous("meet", 4, log))
    results = await settle(ctx.tools.execute_batch(calls("meet", 4)))
    # Each body waited for all four to start: they can only have finished by overlapping.
    assert [texts(r) for r in results] == [["c0"], ["c1"], ["c2"], ["c3"]]
    assert log.events[:4] == ["start:c0", "start:c1", "start:c2", "start:c3"]


async def test_results_are_in_input_order_when_bodies_finish_in_reverse(ctx: Context, log: Log) -> None:
    tool = Gated("g", log)
    ctx.tools.register(tool)
    seen = Results(ctx)
    batch = asyncio.ensure_future(ctx.tools.execute_batch(calls("g", 3)))
    for call_id in ("c0", "c1", "c2"):
        await when(tool.started_event(call_id))
    for call_id in ("c2", "c1", "c0"):
        tool.release(call_id)
    results = await settle(batch)
    assert [r.call_id for r in results] == ["c0", "c1", "c2"]
    assert [e.call_id for e, _ in seen.seen] == ["c0", "c1", "c2"], "observers hear them in input order too"
    assert [e for e in log.events if e.startswith("end")] == ["end:c2", "end:c1", "end:c0"]


async def test_the_pool_rolls_with_at_most_max_parallel_bodies(ctx: Context, log: Log) -> None:
    tool = Gated("g", log)
    ctx.tools.register(tool)
    batch = asyncio.ensure_future(ctx.tools.execute_batch(calls("g", 4), max_parallel=2))
    await when(tool.started_event("c0"))
    await when(tool.started_event("c1"))
    assert "start:c2" not in log.events
    tool.release("c1")  # not the oldest: a slot frees as soon as any body ends
    await when(tool.started_event("c2"))
    assert "start:c3" not in log.events
    for call_id in ("c0", "c2", "c3"):
        tool.release(call_id)
    results = await settle(batch)
    assert [r.call_id for r in results] == ["c0", "c1", "c2", "c3"]
    assert tool.max_active == 2


async def test_an_exclusive_call_is_a_barrier_that_runs_alone(ctx: Context, log: Log) -> None:
    reads = Gated("read", log, gated=False)
    write = Gated("write", log, safe=None, gated=False)
    ctx.tools.register(reads)
    ctx.tools.register(write)
    ctx.on("tools/result", lambda e, r: log(f"result:{e.call_id}"))
    batch = [
        ToolExecutionInput("r0", "read", {}),
        ToolExecutionInput("r1", "read", {}),
        ToolExecutionInput("w", "write", {}),
        ToolExecutionInput("r2", "read", {}),
        ToolExecutionInput("r3", "read", {}),
    ]
    results = await settle(ctx.tools.execute_batch(batch))
    assert [r.call_id for r in results] == ["r0", "r1", "w", "r2", "r3"]
    ev = log.index
    # Everything before the write has ended and been recorded before it starts ...
    assert ev("start:w") > max(ev("result:r0"), ev("result:r1"))
    # ... and nothing after it starts before it has been recorded.
    assert ev("result:w") < min(ev("start:r2"), ev("start:r3"))
    assert write.max_active == 1


async def test_only_dispatch_overlaps_policy_runs_one_call_at_a_time_in_input_order(ctx: Context, log: Log) -> None:
    tool = Gated("g", log)
    ctx.tools.register(tool)
    in_policy: list[str] = []
    overlaps: list[str] = []

    async def enter(stage: str, execution: ToolExecution) -> None:
        if in_policy:
            overlaps.append(f"{stage}:{execution.call_id} during {in_policy[-1]}")
        in_policy.append(f"{stage}:{execution.call_id}")
        log(f"{stage}:{execution.call_id}")
        await asyncio.sleep(0)  # a policy stage that yields must still not interleave with another
        in_policy.pop()

    async def pre(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        await enter("pre", execution)
        return await next()

    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        await enter("post", execution)
        return await next()

    async def observe(execution: ToolExecution, result: ToolExecutionResult) -> None:
        await enter("result", execution)

    def guard(execution: ToolExecution) -> None:
        log(f"guard:{execution.call_id}")

    ctx.on("tools/pre-execute", pre)
    ctx.on("tools/post-execute", post)
    ctx.on("tools/result", observe)
    ctx.tools.guard(guard)
    batch = asyncio.ensure_future(ctx.tools.execute_batch(calls("g", 3)))
    for call_id in ("c0", "c1", "c2"):
        await when(tool.started_event(call_id))
    for call_id in ("c2", "c0", "c1"):
        tool.release(call_id)
    await settle(batch)
    assert overlaps == []
    policy = [e for e in log.events if e.split(":")[0] in ("pre", "guard", "post", "result")]
    assert [e for e in policy if e.startswith(("pre", "guard"))] == [
        "pre:c0", "guard:c0", "pre:c1", "guard:c1", "pre:c2", "guard:c2",
    ]
    assert [e for e in policy if e.startswith(("post", "result"))] == [
        "post:c0", "result:c0", "post:c1", "result:c1", "post:c2", "result:c2",
    ]


async def test_classification_is_read_when_the_call_is_about_to_start(ctx: Context, log: Log) -> None:
    toggle = Gated("toggle", log, safe=None, gated=False)  # exclusive
    reader = Gated("reader", log, safe=False, gated=False)
    ctx.tools.register(toggle)
    ctx.tools.register(reader)

    def flip() -> None:
        reader.safe = True  # what the exclusive call does is visible to the next classification

    toggle.on_start = flip
    assert ctx.tools.execution_mode(ToolExecutionInput("x", "reader", {})) == "exclusive"
    log.events.clear()
    batch = [ToolExecutionInput("t", "toggle", {}), ToolExecutionInput("r1", "reader", {})]
    batch += [ToolExecutionInput("r2", "reader", {})]
    await settle(ctx.tools.execute_batch(batch))
    assert log.events.index("classify:reader") > log.events.index("end:t"), "read after the toggle ran"
    assert log.events.count("classify:reader") == 2, "read once per call"
    assert ctx.tools.execution_mode(ToolExecutionInput("x", "reader", {})) == "parallel"


async def test_max_parallel_one_is_serial(ctx: Context, log: Log) -> None:
    tool = Gated("g", log, gated=False)
    ctx.tools.register(tool)
    ctx.on("tools/result", lambda e, r: log(f"result:{e.call_id}"))
    await settle(ctx.tools.execute_batch(calls("g", 3), max_parallel=1))
    assert [e for e in log.events if not e.startswith("classify")] == [
        "start:c0", "end:c0", "result:c0",
        "start:c1", "end:c1", "result:c1",
        "start:c2", "end:c2", "result:c2",
    ]


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2", None])
async def test_max_parallel_below_one_or_not_an_int_raises(ctx: Context, bad: Any) -> None:
    with pytest.raises(ValueError, match="max_parallel"):
        await ctx.tools.execute_batch([], max_parallel=bad)


async def test_an_empty_batch_is_an_empty_list(ctx: Context) -> None:
    assert await ctx.tools.execute_batch([]) == []


async def test_bad_input_in_a_batch_gives_one_result_each_in_order(ctx: Context, log: Log) -> None:
    tool = Gated("g", log, gated=False)
    ctx.tools.register(tool)
    seen = Results(ctx)
    same = ToolExecutionInput("same", "g", {})
    batch: list[Any] = [
        ToolExecutionInput("a", "g", {}),
        ToolExecutionInput("nonjson", "g", {"x": {1, 2}}),  # type: ignore[dict-item]
        ToolExecutionInput("unknown", "nope", {}),
        ToolExecutionInput("dup", "g", {}),
        ToolExecutionInput("dup", "g", {}),
        same,
        same,
        "not an input",
    ]
    results = await settle(ctx.tools.execute_batch(batch))
    assert [r.call_id for r in results] == ["a", "nonjson", "unknown", "dup", "dup", "same", "same", ""]
    assert [r.is_error for r in results] == [False, True, True, False, False, False, False, True]
    assert results[2].error == ToolErrorInfo("ToolNotFoundError", "UNKNOWN_TOOL")
    assert "not JSON" in results[1].text
    assert len(seen.seen) == len(batch), "observers see exactly one result per call"
    tokens = [execution.token for execution, _ in seen.seen]
    assert len(set(map(id, tokens))) == len(batch), "the same input twice is two executions"
    assert log.events.count("start:dup") == 2 and log.events.count("start:same") == 2


async def test_a_wrapper_raising_in_one_of_several_overlapping_calls_fails_only_that_call(
    ctx: Context, log: Log
) -> None:
    ctx.tools.register(Rendezvous("meet", 3, log))

    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        result = await next()
        if execution.call_id == "c1":
            raise RuntimeError("metrics backend down")
        return result

    ctx.on("tools/execute", wrapper)
    results = await settle(ctx.tools.execute_batch(calls("meet", 3)))
    assert [r.is_error for r in results] == [False, True, False]
    assert texts(results[1]) == ["Error: metrics backend down"]


async def test_a_wrapper_is_reentered_for_distinct_overlapping_executions(ctx: Context, log: Log) -> None:
    ctx.tools.register(Rendezvous("meet", 3, log))
    inside: set[str] = set()
    most = 0

    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        nonlocal most
        inside.add(execution.call_id)
        most = max(most, len(inside))
        try:
            return await next()
        finally:
            inside.discard(execution.call_id)

    ctx.on("tools/execute", wrapper)
    await settle(ctx.tools.execute_batch(calls("meet", 3)))
    assert most == 3


async def test_no_task_outlives_a_batch(ctx: Context, log: Log) -> None:
    ctx.tools.register(Rendezvous("meet", 5, log))
    before = other_tasks()
    await settle(ctx.tools.execute_batch(calls("meet", 5)))
    assert other_tasks() - before == set()


async def test_the_registry_default_max_parallel_is_ten(ctx: Context, log: Log) -> None:
    tool = Gated("g", log)
    ctx.tools.register(tool)
    batch = asyncio.ensure_future(ctx.tools.execute_batch(calls("g", 11)))
    for i in range(10):
        await when(tool.started_event(f"c{i}"))
    assert "start:c10" not in log.events
    for i in range(11):
        tool.release(f"c{i}")
    await settle(batch)
    assert tool.max_active == 10


async def test_a_denied_call_in_a_batch_keeps_its_place(ctx: Context, log: Log) -> None:
    ctx.tools.register(Gated("g", log, gated=False))
    ctx.tools.guard(lambda e: "no" if e.call_id == "c1" else None)
    ctx.on("tools/pre-execute", lambda e, next: Allow())
    results = await settle(ctx.tools.execute_batch(calls("g", 3)))
    assert [texts(r) for r in results] == [["g:c0"], ["Error: no"], ["g:c2"]]
