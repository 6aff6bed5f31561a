"""Issue 16 item 7: a participant's BaseException is contained; KeyboardInterrupt/SystemExit propagate once recorded."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    ApprovalRequest,
    Ask,
    ContentBlock,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
)
from dsh_tools.context.context import Context
from pipeline_support import Results


class Custom(BaseException):
    """A BaseException that is neither cancellation nor an interrupt."""

    def __str__(self) -> str:
        return "custom base exception"


RAISED: dict[str, Callable[[], BaseException]] = {
    "CancelledError": asyncio.CancelledError,
    "GeneratorExit": GeneratorExit,
    "Custom": Custom,
}
PLACES = ["body", "tools/pre-execute", "tools/execute", "tools/post-execute", "guard", "approval", "tools/result"]


class Tool:
    name = "t"
    description = "t"
    parameters: dict[str, Any] = {"type": "object"}

    def __init__(self, raiser: Callable[[], BaseException] | None) -> None:
        self.raiser = raiser

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        if self.raiser is not None:
            raise self.raiser()
        return []


def install(ctx: Context, where: str, raiser: Callable[[], BaseException]) -> None:
    async def listener(*args: Any) -> Any:
        raise raiser()

    if where == "guard":

        def guard(execution: ToolExecution) -> None:
            raise raiser()

        ctx.tools.guard(guard)
    elif where == "approval":

        class Approver:
            async def request(self, request: ApprovalRequest) -> Any:
                raise raiser()

        ctx.provide(APPROVAL, Approver())
        ctx.on("tools/pre-execute", lambda execution, next: Ask("sure?"))
    elif where != "body":
        ctx.on_event(where, listener)


@pytest.mark.parametrize("kind", list(RAISED))
@pytest.mark.parametrize("where", PLACES)
async def test_a_participant_raising_a_base_exception_gives_one_error_result(
    where: str, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    ctx = boot()
    raiser = RAISED[kind]
    ctx.tools.register(Tool(raiser if where == "body" else None))
    install(ctx, where, raiser)
    seen = Results(ctx)
    agent = Agent(ctx, name="a")
    with caplog.at_level(logging.WARNING, logger="dsh_tools"):
        result = await asyncio.wait_for(ctx.tools.execute(ToolExecutionInput("c", "t", {}, agent=agent)), 10)
    assert [r for _, r in seen.seen] == [result], "exactly one observed result"
    if where == "tools/result":
        assert not result.is_error, "an observer cannot change the result"
        assert "tools/result observer" in caplog.text
    else:
        assert result.is_error
        message = str(raiser()) or kind
        assert result.text == f"Error: {message}"


async def test_base_exceptions_inside_a_batch_fail_only_their_call() -> None:
    ctx = boot()
    ctx.tools.register(Tool(None))

    class Stray:
        name = "stray"
        description = "raises CancelledError on its own"
        parameters: dict[str, Any] = {"type": "object"}

        def is_concurrency_safe(self, args: object) -> bool:
            return True

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            raise asyncio.CancelledError

    ctx.tools.register(Stray())
    batch = [ToolExecutionInput("a", "stray", {}), ToolExecutionInput("b", "t", {}), ToolExecutionInput("c", "stray", {})]
    results = await asyncio.wait_for(ctx.tools.execute_batch(batch), 10)
    assert [r.is_error for r in results] == [True, False, True]


@pytest.mark.parametrize("fatal", [KeyboardInterrupt, SystemExit])
@pytest.mark.parametrize("where", ["body", "tools/pre-execute", "tools/execute", "tools/post-execute", "guard"])
async def test_keyboard_interrupt_and_system_exit_propagate_after_the_call_is_recorded(
    where: str, fatal: type[BaseException]
) -> None:
    ctx = boot(timeouts=False)
    ctx.tools.register(Tool(fatal if where == "body" else None))
    install(ctx, where, fatal)
    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda e, r: seen.append(r))
    with pytest.raises(fatal):
        await ctx.tools.execute(ToolExecutionInput("c", "t", {}))
    assert len(seen) == 1 and seen[0].is_error and fatal.__name__ in seen[0].text


async def test_an_observer_raising_keyboard_interrupt_lets_the_rest_hear_first() -> None:
    ctx = boot(timeouts=False)
    ctx.tools.register(Tool(None))
    heard: list[str] = []

    def interrupt(execution: ToolExecution, result: ToolExecutionResult) -> None:
        heard.append("first")
        raise KeyboardInterrupt

    ctx.on("tools/result", interrupt)
    ctx.on("tools/result", lambda e, r: heard.append("second"))
    with pytest.raises(KeyboardInterrupt):
        await ctx.tools.execute(ToolExecutionInput("c", "t", {}))
    assert heard == ["first", "second"]
