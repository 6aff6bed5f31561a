"""A HarnessError raised anywhere in policy keeps its class and code on the result."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    ApprovalRequest,
    Ask,
    ContentBlock,
    HarnessError,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
)


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
        ("tools/pre-execute", "tools/pre-execute listener"),
        ("tools/post-execute", "tools/post-execute listener"),
        ("guard", "guard"),
        ("approval", "approval service"),
    ],
)
async def test_any_other_exception_is_named_with_its_source(where: str, who: str) -> None:
    result = await call(where, raise_plain)
    assert result.is_error and result.error is None
    assert result.text == f"Error: {who} raised KeyError: 'boom'"
