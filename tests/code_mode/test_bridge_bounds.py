"""The bridge's edges: arguments that are not JSON, what a dispatch event keeps, one "Error:".

Driven by ``ScriptedCodeRuntime`` (Python programs call the bindings directly),
so a binding sees exactly what a hostile or careless runtime could hand it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dsh_tools.code_mode.run_report import ARGUMENTS_LIMIT, PREVIEW_LIMIT
from dsh_tools.code_mode.runtime import CodeRunFailure, CodeRunRequest, CodeRunResult
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.context.context import Agent, Context
from dsh_tools.boot import boot
from dsh_tools.json_values import JsonValue, is_json, thaw_json
from dsh_tools.testing import Bindings, ScriptedCodeRuntime, ScriptedProgram


class Echo:
    name = "echo"
    description = "Echo the arguments back."
    parameters = {"type": "object"}

    def __init__(self) -> None:
        self.calls = 0

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.calls += 1
        return [text_block("echoed")]


def setup(programs: dict[str, ScriptedProgram]) -> tuple[Context, Agent, Echo, list[str]]:
    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime(programs))
    echo = Echo()
    ctx.tools.register(echo)
    results: list[str] = []
    ctx.on("tools/result", lambda execution, result: results.append(execution.name))
    return ctx, Agent(ctx, name="coder"), echo, results


async def run_code(ctx: Context, agent: Agent) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput("outer", "run_code", {"code": "p"}, agent=agent))


def dispatch_events(agent: Agent) -> list[dict[str, Any]]:
    return [thaw_json(data) for kind, data in agent.session.events() if kind == "tool/code-dispatch"]  # type: ignore[misc]


def _cyclic() -> object:
    value: dict[str, object] = {}
    value["self"] = value
    return value


def _nested(depth: int) -> JsonValue:
    value: JsonValue = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "make_args",
    [
        _cyclic,
        lambda: 2**70,
        lambda: {"f": lambda: 1},
        lambda: {"x": float("nan")},
        lambda: {1: "int key"},
        pytest.param(
            lambda: {"s": "x\ud800"},
            marks=pytest.mark.skipif(is_json("x\ud800"), reason="freeze_json refuses lone surrogates once helper order's rule lands"),
        ),
    ],
    ids=["cyclic", "big integer", "function", "NaN", "non-string key", "lone surrogate"],
)
async def test_non_json_arguments_reject_with_a_type_error_before_the_pipeline(make_args: Callable[[], object]) -> None:
    caught: list[BaseException] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        try:
            await tools["echo"](make_args())  # type: ignore[arg-type]
        except BaseException as error:  # noqa: BLE001 - the program's catch: whatever it is, record it
            caught.append(error)
        return CodeRunResult(logs=())

    ctx, agent, echo, results = setup({"p": program})
    result = await run_code(ctx, agent)
    (error,) = caught
    assert type(error) is TypeError and "JSON" in str(error), repr(error)
    assert str(error).startswith("tools.echo(): arguments are not JSON")
    assert echo.calls == 0
    assert results == ["run_code"], "no tools/result for a call that never entered the pipeline"
    assert dispatch_events(agent) == []
    assert thaw_json(result.meta)["dispatches"] == 0  # type: ignore[index]


async def test_large_arguments_leave_a_preview_and_their_size_in_the_dispatch_event() -> None:
    big = {"text": "x" * (1 << 20)}

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        for _ in range(3):
            await tools["echo"](big)
        await tools["echo"]({"small": 1})
        return CodeRunResult(logs=())

    ctx, agent, echo, _ = setup({"p": program})
    await run_code(ctx, agent)
    assert echo.calls == 4
    *large, small = dispatch_events(agent)
    for event in large:
        assert "arguments" not in event
        assert event["argumentsBytes"] == len('{"text":""}') + (1 << 20)
        assert event["argumentsPreview"].startswith('{"text":"xxx') and event["argumentsPreview"].endswith("…")
        assert len(event["argumentsPreview"]) <= PREVIEW_LIMIT + 1
    assert small["arguments"] == {"small": 1} and "argumentsPreview" not in small
    assert ARGUMENTS_LIMIT < (1 << 20)


async def test_arguments_as_deep_as_admission_allows_are_recorded() -> None:
    # A call the pipeline admits must be recordable: the event wraps the value one
    # level deeper, so a value at the very limit is kept as a preview instead.
    deep = {"v": _nested(127)}

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["echo"](deep)
        return CodeRunResult(logs=())

    ctx, agent, echo, _ = setup({"p": program})
    result = await run_code(ctx, agent)
    assert not result.is_error, result.text
    assert echo.calls == 1
    (event,) = dispatch_events(agent)
    assert event["subCallId"] == "outer:code:1" and event["isError"] is False
    assert event["argumentsPreview"].startswith('{"v":[[[[')


async def test_a_failed_run_reads_error_once() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        # What DenoCodeRuntime reports for an uncaught rejection of a failed call.
        return CodeRunResult(logs=(), error=CodeRunFailure("exception", "Error: invalid arguments: text: expected string"))

    ctx, agent, _, _ = setup({"p": program})
    result = await run_code(ctx, agent)
    assert result.text == "Error: code run failed (exception): invalid arguments: text: expected string"
