"""``Retry`` and ``RetryPolicy``: a failing body runs again as its definition says, and only then.

Backoff waits go through an injected fake ``sleep`` that records them, so no
test waits for a backoff; the per-attempt timeout tests use 20 ms budgets on
bodies that wait for their signal (the outcome, never the time, is asserted).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from dsh_tools import (
    AbortController,
    Context,
    Deny,
    HarnessError,
    PreNext,
    PreToolDecision,
    Prop,
    Retry,
    RetryPolicy,
    SystemPrompt,
    TimeoutPolicy,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolOutput,
    ToolRegistry,
    boot,
    define_tool,
    text_block,
    tool,
)
from dsh_tools.json_values import JsonValue, thaw_json


class Sleeps:
    """A fake ``asyncio.sleep``: records each wait (seconds) and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


TIMEOUTS: dict[int, TimeoutPolicy] = {}
"""id(ctx) → the context's timeout policy (for the test that waits out an orphan)."""


def retrying(sleep: Sleeps, *, grace_ms: float = 1_000) -> tuple[Context, list[ToolExecutionResult]]:
    """What ``boot()`` wires, with the fake sleep; plus the results observers heard."""
    ctx = Context()
    SystemPrompt(ctx)
    ToolRegistry(ctx)
    TIMEOUTS[id(ctx)] = TimeoutPolicy(ctx, grace_ms=grace_ms)
    RetryPolicy(ctx, sleep=sleep)  # prepend: outermost although installed last
    heard: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda execution, result: heard.append(result))
    return ctx, heard


def flaky(failures: list[BaseException], *, retry: Retry, timeout_ms: float | None = None):  # type: ignore[no-untyped-def]
    """A tool that raises each of ``failures`` in turn, then answers "ok"; ``runs`` counts its bodies."""
    runs: list[int] = []

    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        runs.append(1)
        if failures:
            raise failures.pop(0)
        return "ok"

    definition = define_tool(
        name="fetch", description="Fetch a page.", parameters={}, output=Prop("string"), execute=body,
        retry=retry, timeout_ms=timeout_ms,
    )
    return definition, runs


async def run(ctx: Context, name: str = "fetch", arguments: JsonValue = None, **extra: object) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput("c1", name, {} if arguments is None else arguments, **extra))  # type: ignore[arg-type]


async def test_a_connection_error_is_retried_with_doubling_backoff_and_observers_hear_once() -> None:
    sleep = Sleeps()
    ctx, heard = retrying(sleep)
    definition, runs = flaky([ConnectionResetError("reset"), ConnectionError("refused")], retry=Retry(3))
    ctx.tools.register(definition)
    result = await run(ctx)
    assert not result.is_error and result.text == "ok"
    assert len(runs) == 3 and sleep.waits == [0.2, 0.4]
    assert thaw_json(result.meta) == {"attempts": 3}
    assert heard == [result]


async def test_the_last_failure_stands_when_attempts_run_out() -> None:
    sleep = Sleeps()
    ctx, heard = retrying(sleep)
    definition, runs = flaky([TimeoutError("slow")] * 5, retry=Retry(2, backoff_ms=50))
    ctx.tools.register(definition)
    result = await run(ctx)
    assert result.is_error and result.text == "Error: slow"
    assert len(runs) == 2 and sleep.waits == [0.05]
    assert thaw_json(result.meta) == {"attempts": 2}
    assert len(heard) == 1


async def test_backoff_is_capped_at_max_backoff_ms() -> None:
    assert [Retry(6, backoff_ms=100, max_backoff_ms=250).delay_ms(n) for n in range(1, 6)] == [100, 200, 250, 250, 250]


async def test_a_failure_on_does_not_name_is_not_retried() -> None:
    sleep = Sleeps()
    ctx, _ = retrying(sleep)
    definition, runs = flaky([ValueError("bad input")], retry=Retry(3))
    ctx.tools.register(definition)
    result = await run(ctx)
    assert result.text == "Error: bad input" and result.meta is None
    assert len(runs) == 1 and sleep.waits == []


async def test_on_matches_error_codes_and_exception_types() -> None:
    sleep = Sleeps()
    ctx, _ = retrying(sleep)
    by_code, code_runs = flaky([HarnessError("rate limited", "RATE_LIMITED")], retry=Retry(2, on=("RATE_LIMITED",)))
    ctx.tools.register(by_code)
    assert (await run(ctx)).text == "ok" and len(code_runs) == 2
    ctx2, _ = retrying(sleep)
    by_type, type_runs = flaky([KeyError("k")], retry=Retry(2, on=(LookupError,)))
    ctx2.tools.register(by_type)
    assert (await run(ctx2)).text == "ok" and len(type_runs) == 2


async def test_each_attempt_gets_its_own_timeout() -> None:
    sleep = Sleeps()
    ctx, heard = retrying(sleep)
    runs: list[int] = []

    @tool(timeout_ms=20, retry=Retry(2))
    async def slow_then_fast(exec: ToolExecution) -> str:
        """Hangs the first time (until its deadline aborts it), answers the second."""
        runs.append(1)
        if len(runs) == 1:
            assert exec.signal is not None
            await exec.signal.wait()
            exec.signal.throw_if_aborted()
        return "second time lucky"

    ctx.tools.register(slow_then_fast)
    result = await run(ctx, "slow_then_fast")
    assert result.text == "second time lucky" and thaw_json(result.meta) == {"attempts": 2}
    assert len(runs) == 2 and len(heard) == 1


async def test_a_body_that_ignores_its_timeout_is_never_overlapped_by_a_retry() -> None:
    sleep = Sleeps()
    ctx, heard = retrying(sleep, grace_ms=0)  # orphan the body at once
    release = asyncio.Event()
    runs: list[int] = []

    @tool(timeout_ms=20, retry=Retry(3))
    async def stubborn(exec: ToolExecution) -> str:
        """Ignores cancellation until released."""
        runs.append(1)
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                pass
        return "late"

    ctx.tools.register(stubborn)
    timeouts = TIMEOUTS.pop(id(ctx))
    try:
        result = await run(ctx, "stubborn")
        assert result.error is not None and result.error.code == "TOOL_TIMEOUT"
        assert len(runs) == 1 and sleep.waits == [] and len(heard) == 1  # no second attempt beside the orphan
    finally:
        release.set()
        # The orphaned bodies end once released (as cancelled: the registry's own grace re-raises the cancellation).
        await asyncio.gather(*timeouts.orphans, return_exceptions=True)


async def test_invalid_arguments_are_never_retried_whatever_on_says() -> None:
    sleep = Sleeps()
    ctx, _ = retrying(sleep)
    runs: list[int] = []

    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        runs.append(1)
        return "ok"

    ctx.tools.register(
        define_tool(
            name="strict", description="Needs a name.", parameters={"name": Prop("string", required=True)},
            output=Prop("string"), execute=body, retry=Retry(5, on=(Exception, "INVALID_ARGS")),
        )
    )
    result = await run(ctx, "strict", {"name": 1})
    assert result.error is not None and result.error.code == "INVALID_ARGS"
    assert runs == [] and sleep.waits == [] and result.meta is None


async def test_a_denial_is_never_retried() -> None:
    sleep = Sleeps()
    ctx, heard = retrying(sleep)
    definition, runs = flaky([], retry=Retry(5, on=(Exception,)))
    ctx.tools.register(definition)

    async def deny(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return Deny("not today")

    ctx.on("tools/pre-execute", deny)
    result = await run(ctx)
    assert result.text == "Error: not today" and runs == [] and len(heard) == 1


async def test_the_callers_abort_ends_the_retries() -> None:
    controller = AbortController()

    class AbortingSleep(Sleeps):
        async def __call__(self, seconds: float) -> None:
            self.waits.append(seconds)
            controller.abort("the user pressed stop")
            await asyncio.Event().wait()  # a backoff the abort must cut short

    sleep = AbortingSleep()
    ctx, heard = retrying(sleep)
    definition, runs = flaky([ConnectionError("down")] * 3, retry=Retry(3))
    ctx.tools.register(definition)
    result = await run(ctx, signal=controller.signal)
    assert result.text == "Error: down" and len(runs) == 1 and len(sleep.waits) == 1
    assert len(heard) == 1


async def test_attempts_are_added_only_to_an_object_or_absent_meta() -> None:
    sleep = Sleeps()
    ctx, _ = retrying(sleep)
    failures: list[BaseException] = [ConnectionError("once"), ConnectionError("twice")]

    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> ToolOutput:
        if failures:
            raise failures.pop(0)
        meta: JsonValue = {"page": 2} if exec.call_id == "obj" else ["a list"]
        return ToolOutput([text_block("fine")], meta=meta)

    ctx.tools.register(define_tool(name="paged", description="Pages.", parameters={}, execute=body, retry=Retry(3)))
    with_object = await ctx.tools.execute(ToolExecutionInput("obj", "paged", {}))
    assert thaw_json(with_object.meta) == {"page": 2, "attempts": 3}
    failures.append(ConnectionError("again"))
    with_list = await ctx.tools.execute(ToolExecutionInput("list", "paged", {}))
    assert thaw_json(with_list.meta) == ["a list"]  # the count is on the tracing span only


async def test_boot_installs_the_retry_policy_outermost() -> None:
    ctx = boot()
    definition, runs = flaky([ConnectionError("blip")], retry=Retry(2, backoff_ms=0))
    ctx.tools.register(definition)
    result = await run(ctx)
    assert result.text == "ok" and len(runs) == 2


def test_retry_values_are_checked_at_construction() -> None:
    assert Retry(2, on=ConnectionError).on == (ConnectionError,)  # type: ignore[arg-type]  # one entry alone
    assert Retry(2, on=["CODE", OSError]).on == ("CODE", OSError)  # type: ignore[arg-type]  # a list
    assert Retry(3).to_json() == {
        "attempts": 3, "backoffMs": 200, "maxBackoffMs": 5000, "on": ["TOOL_TIMEOUT", "ConnectionError", "TimeoutError"]
    }
    bad: list[dict[str, Any]] = [
        {"attempts": 0}, {"attempts": True}, {"attempts": 2, "backoff_ms": -1},
        {"attempts": 2, "max_backoff_ms": float("inf")}, {"attempts": 2, "on": ()}, {"attempts": 2, "on": ("",)},
    ]
    for fields in bad:
        with pytest.raises(ValueError, match="Retry"):
            Retry(**fields)
    with pytest.raises(TypeError, match="Retry on: expected exception types or error codes, got the class int"):
        Retry(2, on=(int,))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got a float"):
        Retry(2, on=(1.5,))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match='tool "fetch": retry must be a Retry, got int'):
        flaky([], retry=3)  # type: ignore[arg-type]
