"""A HarnessError raised anywhere in policy keeps its class and code on the result."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    Allow,
    ApprovalRequest,
    Ask,
    ContentBlock,
    HarnessError,
    PreNext,
    PreToolDecision,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
)
from dsh_tools.pipeline.containment import ListenerFailure


class Echo:
    name = "echo"
    description = "Echo."
    parameters = {"type": "object"}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []


class PolicyError(HarnessError):
    def __init__(self) -> None:
        super().__init__("policy says no", "POLICY")


def raise_policy(*args: object) -> Any:
    raise PolicyError()


def raise_plain(*args: object) -> Any:
    raise KeyError("boom")


async def call(where: str, raiser: Any) -> ToolExecutionResult:
    ctx = boot()
    ctx.tools.register(Echo())
    agent = Agent(ctx, name="a")
    if where == "guard":
        ctx.tools.guard(raiser)
    elif where == "approval":

        class Approver:
            async def request(self, request: ApprovalRequest) -> Any:
                return raiser()

        ctx.provide(APPROVAL, Approver())
        ctx.on("tools/pre-execute", lambda execution, next: Ask("sure?"))
    else:
        ctx.on_event(where, raiser)
    return await ctx.tools.execute(ToolExecutionInput("c", "echo", {}, agent=agent))


@pytest.mark.parametrize("where", ["tools/pre-execute", "tools/post-execute", "guard", "approval"])
async def test_a_harness_error_keeps_its_text_and_class(where: str) -> None:
    result = await call(where, raise_policy)
    assert result.is_error
    assert result.text == "Error: policy says no"
    assert result.error == ToolErrorInfo("PolicyError", "POLICY")


@pytest.mark.parametrize(
    ("where", "who"),
    [
        ("tools/pre-execute", "tools/pre-execute listener raise_plain"),
        ("tools/execute", "tools/execute listener raise_plain"),
        ("tools/post-execute", "tools/post-execute listener raise_plain"),
        ("guard", "guard raise_plain"),
        ("approval", "approval service call.<locals>.Approver"),
    ],
)
async def test_any_other_exception_reads_as_a_raising_body_and_the_operator_gets_who_and_the_traceback(
    where: str, who: str, caplog: pytest.LogCaptureFixture
) -> None:
    """API "Contract points": ``Error: <str(exception)>`` for the model, participant + traceback at WARNING."""
    with caplog.at_level(logging.WARNING, logger="dsh_tools"):
        result = await call(where, raise_plain)
    assert result.is_error and result.error is None
    assert result.text == "Error: 'boom'"  # str(KeyError("boom")), exactly what a raising body gives
    (record,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert record.getMessage().startswith(f"{who} raised KeyError")
    assert record.exc_info is not None and record.exc_info[1] is not None
    assert "raise_plain" in caplog.text and "Traceback" in caplog.text


def raise_listener_failure(*args: object) -> Any:
    raise ListenerFailure("a listener's own")  # the pipeline's internal exception, raised by a participant


@pytest.mark.parametrize("where", ["tools/pre-execute", "tools/execute", "tools/post-execute"])
async def test_a_listener_raising_the_pipelines_own_listener_failure_is_contained_like_any_error(where: str) -> None:
    result = await call(where, raise_listener_failure)  # must not raise out of execute()
    assert result.is_error and result.text == "Error: a listener's own"


async def test_an_outer_listener_that_catches_an_inner_failure_cannot_talk_the_chain_out_of_it() -> None:
    ctx = boot()
    ctx.tools.register(Echo())
    agent = Agent(ctx, name="a")

    async def forgiving(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        try:
            return await next()
        except ListenerFailure:
            return Allow()

    ctx.on("tools/pre-execute", forgiving)
    ctx.on("tools/pre-execute", raise_plain)
    result = await ctx.tools.execute(ToolExecutionInput("c", "echo", {}, agent=agent))
    assert result.is_error and result.text == "Error: 'boom'"  # the inner failure stands (fail closed)
