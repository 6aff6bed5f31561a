"""Effects run as often as promised (issue 34, items 1-2): the idempotency key, and an approved call that runs once.

* Every call has an ``idempotency_key`` (128 random bits unless the caller
  gives one), the same across every attempt of that call.
* An approved call of a tool that is not idempotent starts its body at most
  once: the retry policy does not retry it (and says so), and a wrapper that
  calls ``next()`` twice gets the first result back. An idempotent tool's
  approved call is retried as before; so is a call nobody had to approve.
* Such a body that started and then timed out says it may or may not have
  taken effect.

Backoffs go through a fake sleep; the timeout test uses a 20 ms budget on a
body that waits for its signal (the outcome is asserted, never the time).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    ExecuteNext,
    PreNext,
    PreToolDecision,
    Prop,
    Retry,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    define_tool,
    thaw_json,
)
from dsh_tools.json_values import JsonValue

NOT_RETRIED = '(not retried: tool "charge" is not idempotent and this call was approved)'


class Approve:
    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        return "allowed-once"


async def _no_wait(seconds: float) -> None:
    return None


def _app(*, idempotent: bool, approved: bool, failures: int, timeout_ms: float | None = None, **boot_options: object):  # type: ignore[no-untyped-def]
    """A ``charge`` tool that fails ``failures`` times with ``ConnectionError``; its keys and runs are recorded."""
    ctx = boot(**boot_options)  # type: ignore[arg-type]
    from dsh_tools import RetryPolicy

    for wrapper in ctx.events.listeners("tools/execute"):  # the boot() retry policy, with a fake sleep
        owner = getattr(wrapper, "__self__", None)
        if isinstance(owner, RetryPolicy):
            owner.disposer()
    RetryPolicy(ctx, sleep=_no_wait)
    keys: list[str] = []
    left = [failures]

    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        keys.append(exec.idempotency_key)
        if left[0]:
            left[0] -= 1
            raise ConnectionError("reset")
        return "charged"

    ctx.tools.register(
        define_tool(
            name="charge", description="Charge a card.", parameters={"cents": Prop("integer")}, output=Prop("string"),
            execute=body, retry=Retry(3), idempotent=idempotent, timeout_ms=timeout_ms,
        )
    )
    if approved:
        async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
            return Ask("a human approves charges")

        ctx.on("tools/pre-execute", ask)
        ctx.provide(APPROVAL, Approve())
    return ctx, Agent(ctx, name="shop"), keys


# -- the key -------------------------------------------------------------------------


async def test_every_call_gets_a_fresh_random_key_kept_across_its_attempts() -> None:
    ctx, agent, keys = _app(idempotent=True, approved=False, failures=2)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert result.text == "charged" and thaw_json(result.meta) == {"attempts": 3}
    assert len(set(keys)) == 1 and re.fullmatch(r"[0-9a-f]{32}", keys[0])  # 128 random bits, one per call
    await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))  # the same call id again
    assert keys[-1] != keys[0]  # a provider's call id repeats; a key never does


async def test_a_key_the_caller_gives_is_the_calls_key() -> None:
    ctx, agent, keys = _app(idempotent=False, approved=False, failures=0)
    await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent, idempotency_key="thread-7:call_abc"))
    assert keys == ["thread-7:call_abc"]


@pytest.mark.parametrize("key", ["", "x" * 256, "\ud800", 7, b"bytes"])
async def test_a_malformed_key_is_an_invalid_call_and_runs_nothing(key: object) -> None:
    ctx, agent, keys = _app(idempotent=False, approved=False, failures=0)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent, idempotency_key=key))  # type: ignore[arg-type]
    assert result.is_error and "idempotency_key must be" in result.text and keys == []


def test_a_derived_key_is_base_and_suffix_and_stays_within_the_limit() -> None:
    from dsh_tools.execution import IDEMPOTENCY_KEY_MAX, derived_idempotency_key

    assert derived_idempotency_key("run-key", "3") == "run-key:3"
    long = derived_idempotency_key("k" * IDEMPOTENCY_KEY_MAX, "3")
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", long) and long == derived_idempotency_key("k" * IDEMPOTENCY_KEY_MAX, "3")
    assert long != derived_idempotency_key("k" * IDEMPOTENCY_KEY_MAX, "4")  # one key per call, the same on a rerun
    assert len(derived_idempotency_key("k" * 253, "1")) == IDEMPOTENCY_KEY_MAX  # at the limit: still readable


async def test_a_program_run_under_a_key_at_the_limit_makes_sub_calls_with_valid_keys() -> None:
    from dsh_tools import CodeRunRequest, CodeRunResult
    from dsh_tools.testing import Bindings, ScriptedCodeRuntime

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=(), value=[await tools["charge"]({"cents": 5}), await tools["charge"]({"cents": 6})])

    ctx, agent, keys = _app(
        idempotent=False, approved=False, failures=0, mode="code", code_runtime=ScriptedCodeRuntime({"p": program})
    )
    key = "k" * 255
    result = await ctx.tools.execute(ToolExecutionInput("r", "run_code", {"code": "p"}, agent, idempotency_key=key))
    assert not result.is_error, result.text  # the sub-calls' keys were refused at 257 characters before
    assert len(keys) == 2 and len(set(keys)) == 2 and all(k.startswith("sha256:") for k in keys)


# -- at most once --------------------------------------------------------------------


async def test_an_approved_call_of_a_tool_that_is_not_idempotent_is_not_retried() -> None:
    ctx, agent, keys = _app(idempotent=False, approved=True, failures=1)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert len(keys) == 1  # one charge attempt, although Retry(3) and the failure is a ConnectionError
    assert result.is_error and result.text.splitlines() == ["Error: reset", NOT_RETRIED]
    assert thaw_json(result.meta) == {"attempts": 1}
    (record,) = await ctx.tools.store.journal(call_id="c1")
    assert record.outcome == "error" and thaw_json(record.meta) == {"attempts": 1}


async def test_an_approved_call_of_an_idempotent_tool_is_retried_with_its_key() -> None:
    ctx, agent, keys = _app(idempotent=True, approved=True, failures=2)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert result.text == "charged" and len(keys) == 3 and len(set(keys)) == 1


async def test_a_call_nobody_approved_is_retried_as_before() -> None:
    ctx, agent, keys = _app(idempotent=False, approved=False, failures=2)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert result.text == "charged" and len(keys) == 3


async def test_a_wrapper_calling_next_twice_gets_the_first_result_and_the_body_runs_once() -> None:
    ctx, agent, keys = _app(idempotent=False, approved=True, failures=0)
    seconds: list[ToolExecutionResult] = []

    async def twice(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        first = await next()
        seconds.append(await next())
        return first

    ctx.on("tools/execute", twice)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {"cents": 5}, agent))
    assert result.text == "charged" and keys == [keys[0]]
    (second,) = seconds
    assert second.text.splitlines() == ["charged", NOT_RETRIED] and thaw_json(second.meta) == {"attempts": 1}


async def test_an_approved_body_cut_short_by_its_timeout_may_or_may_not_have_taken_effect() -> None:
    ctx = boot()
    started = asyncio.Event()

    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        started.set()
        assert exec.signal is not None
        await exec.signal.wait()
        return "late"

    ctx.tools.register(define_tool(name="charge", description="d", parameters={}, output=Prop("string"), execute=body, timeout_ms=20))

    async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("approve")

    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, Approve())
    agent = Agent(ctx, name="shop")
    result = await ctx.tools.execute(ToolExecutionInput("c1", "charge", {}, agent))
    assert started.is_set() and result.outcome == "timeout"
    assert result.text.splitlines()[-1] == "it may or may not have taken effect"


async def test_a_timed_out_call_nobody_approved_says_nothing_of_effects() -> None:
    ctx = boot()

    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> str:
        assert exec.signal is not None
        await exec.signal.wait()
        return "late"

    ctx.tools.register(define_tool(name="slow", description="d", parameters={}, output=Prop("string"), execute=body, timeout_ms=20))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "slow", {}))
    assert result.outcome == "timeout" and "taken effect" not in result.text
