"""The bridge schedules binding calls like a batch: safe ones overlap, exclusive ones run alone, in submission order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from dsh_tools import Agent, ToolExecutionInput, ToolExecutionResult, ToolRegistry, SystemPrompt, boot
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
from dsh_tools.context.context import Context
from dsh_tools.json_values import thaw_json
from dsh_tools.testing import Bindings, ScriptedCodeRuntime, ScriptedProgram
from batch_support import Gated, Log, Rendezvous, settle, when


def setup(programs: dict[str, ScriptedProgram], **boot_args: Any) -> tuple[Context, Agent]:
    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime(programs), **boot_args)
    return ctx, Agent(ctx, name="coder")


async def run_code(ctx: Context, agent: Agent, program: str) -> ToolExecutionResult:
    result: ToolExecutionResult = await settle(
        ctx.tools.execute(ToolExecutionInput("outer", "run_code", {"code": program}, agent=agent))
    )
    return result


def sub_ids(agent: Agent) -> list[str]:
    return [str(thaw_json(data)["subCallId"]) for kind, data in agent.session.events() if kind == "tool/code-dispatch"]  # type: ignore[index]


async def test_promise_all_over_safe_bindings_overlaps_numbered_and_logged_by_submission() -> None:
    log = Log()

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        values = await asyncio.gather(*(tools["meet"]({}) for _ in range(4)))
        return CodeRunResult(logs=[], value=list(values))

    ctx, agent = setup({"p": program})
    ctx.tools.register(Rendezvous("meet", 4, log))  # each body waits for all four: only overlap finishes them
    result = await run_code(ctx, agent, "p")
    assert not result.is_error, result.text
    assert result.text == '["outer:code:1","outer:code:2","outer:code:3","outer:code:4"]'
    assert sub_ids(agent) == ["outer:code:1", "outer:code:2", "outer:code:3", "outer:code:4"]
    assert thaw_json(result.meta)["dispatches"] == 4  # type: ignore[index]


async def test_an_exclusive_binding_call_runs_alone_between_the_safe_ones() -> None:
    log = Log()

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await asyncio.gather(tools["read"]({}), tools["read"]({}), tools["write"]({}), tools["read"]({}))
        return CodeRunResult(logs=[])

    ctx, agent = setup({"p": program})
    reads, write = Gated("read", log, gated=False), Gated("write", log, safe=None, gated=False)
    ctx.tools.register(reads)
    ctx.tools.register(write)
    ctx.on("tools/result", lambda e, r: log(f"result:{e.call_id}"))
    result = await run_code(ctx, agent, "p")
    assert not result.is_error, result.text
    ev = log.index
    assert ev("start:outer:code:3") > max(ev("result:outer:code:1"), ev("result:outer:code:2"))
    assert ev("result:outer:code:3") < ev("start:outer:code:4")


async def test_max_parallel_sub_calls_bounds_the_pool() -> None:
    log = Log()
    tool = Gated("g", log)

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        pending = [asyncio.ensure_future(tools["g"]({})) for _ in range(3)]
        await when(tool.started_event("outer:code:1"))
        await when(tool.started_event("outer:code:2"))
        assert "start:outer:code:3" not in log.events
        for n in (1, 2, 3):
            tool.release(f"outer:code:{n}")
        await asyncio.gather(*pending)
        return CodeRunResult(logs=[])

    ctx, agent = setup({"p": program}, max_parallel_sub_calls=2)
    ctx.tools.register(tool)
    assert ctx.tools.max_parallel_sub_calls == 2
    result = await run_code(ctx, agent, "p")
    assert not result.is_error, result.text
    assert tool.max_active == 2


@pytest.mark.parametrize("bad", [0, -3, True, 2.0])
def test_max_parallel_sub_calls_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_parallel_sub_calls"):
        boot(max_parallel_sub_calls=bad)
    from dsh_tools import Context as Ctx

    ctx = Ctx()
    SystemPrompt(ctx)
    with pytest.raises(ValueError, match="max_parallel_sub_calls"):
        ToolRegistry(ctx, max_parallel_sub_calls=bad)


def test_the_default_is_ten() -> None:
    assert boot().tools.max_parallel_sub_calls == 10


@pytest.mark.parametrize("raised", [asyncio.CancelledError, GeneratorExit, KeyError])
async def test_a_sub_call_whose_body_raises_a_base_exception_rejects_in_the_program_and_is_logged(
    raised: type[BaseException],
) -> None:
    """Issue 16 item 7: the program gets a rejection (it does not hang), and the dispatch is logged."""
    rejections: list[str] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        try:
            await tools["boom"]({})
        except Exception as error:  # noqa: BLE001 - the program's catch
            rejections.append(type(error).__name__)
        return CodeRunResult(logs=[])

    class Boom:
        name = "boom"
        description = "raises"
        parameters: dict[str, Any] = {"type": "object"}

        async def execute(self, args: Any, exec: Any) -> list[Any]:
            raise raised()

    ctx, agent = setup({"p": program})
    ctx.tools.register(Boom())
    result = await run_code(ctx, agent, "p")
    assert not result.is_error and rejections == ["CodeDispatchError"]
    assert sub_ids(agent) == ["outer:code:1"]
