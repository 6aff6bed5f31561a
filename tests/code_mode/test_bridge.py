"""The run_code bridge, driven by ``ScriptedCodeRuntime`` (Python "programs").

The fake keeps these tests about the bridge (queueing, ids, logging, abort,
drain, result shaping), independent of Deno; the end-to-end tests run the same
paths through the real runtime.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from dsh_tools.code_mode.runtime import CodeLogEntry, CodeRunFailure, CodeRunRequest, CodeRunResult
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.decisions import Deny, PreToolDecision
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.context.context import Agent, Context
from dsh_tools.context.services import CODE_RUNTIME
from dsh_tools.boot import boot
from dsh_tools.hooks import PreNext
from dsh_tools.json_values import JsonValue, thaw_json
from dsh_tools.registry.registry import ToolMode
from dsh_tools.signals import AbortController
from dsh_tools.testing import Bindings, ScriptedCodeRuntime, ScriptedProgram

class Echo:
    name = "echo"
    description = "Echo the text back."
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    def __init__(self) -> None:
        self.seen: list[ToolExecution] = []
        self.active = 0
        self.max_active = 0

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.seen.append(exec)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        await asyncio.sleep(0)
        self.active -= 1
        return [text_block(f"echo:{args['text']}")]


def setup(programs: dict[str, ScriptedProgram], *, mode: ToolMode = "code") -> tuple[Context, Agent, Echo, ScriptedCodeRuntime]:
    runtime = ScriptedCodeRuntime(programs)
    ctx = boot(mode=mode, code_runtime=runtime)
    echo = Echo()
    ctx.tools.register(echo)
    return ctx, Agent(ctx, name="coder"), echo, runtime


def dispatch_log(agent: Agent) -> list[dict[str, Any]]:
    """The agent's ``tool/code-dispatch`` events as plain dicts."""
    return [thaw_json(data) for kind, data in agent.session.events() if kind == "tool/code-dispatch"]  # type: ignore[misc]


async def run_code(ctx: Context, agent: Agent | None, program: str, *, call_id: str = "outer") -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput(call_id, "run_code", {"code": program}, agent=agent))


async def test_sub_calls_run_through_the_pipeline_in_order_with_ids_parent_and_log() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        results = await asyncio.gather(*(tools["echo"]({"text": str(i)}) for i in range(3)))
        return CodeRunResult(logs=[CodeLogEntry("console", "done", "log")], value=list(results))

    ctx, agent, echo, _ = setup({"p": program})
    result = await run_code(ctx, agent, "p")

    assert not result.is_error
    assert [e.call_id for e in echo.seen] == ["outer:code:1", "outer:code:2", "outer:code:3"]
    assert echo.max_active == 1, "a tool that does not declare itself concurrency-safe runs one call at a time"
    assert len({e.parent for e in echo.seen}) == 1 and echo.seen[0].parent is not None
    assert result.text == 'done\n["echo:0","echo:1","echo:2"]'
    assert thaw_json(result.meta) == {"logs": [{"source": "console", "text": "done", "level": "log"}], "dispatches": 3}
    events = agent.session.events()
    assert [t for t, _ in events] == ["tool/code-dispatch"] * 3
    assert thaw_json(events[0][1]) == {
        "parentCallId": "outer",
        "subCallId": "outer:code:1",
        "name": "echo",
        "arguments": {"text": "0"},
        "isError": False,
        "resultSummary": "echo:0",
    }


async def test_a_denied_sub_call_rejects_inside_the_program_and_counts_as_a_dispatch() -> None:
    caught: list[str] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        try:
            await tools["echo"]({"text": "secret"})
        except Exception as error:  # noqa: BLE001 - the program's catch
            caught.append(str(error))
        return CodeRunResult(logs=[])

    ctx, agent, echo, _ = setup({"p": program})

    def deny(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return Deny("no secrets") if execution.name == "echo" else Allow()

    from dsh_tools.decisions import Allow

    ctx.on("tools/pre-execute", deny)
    result = await run_code(ctx, agent, "p")
    assert caught == ["Error: no secrets"]
    assert echo.seen == []
    assert thaw_json(result.meta) == {"logs": [], "dispatches": 1}
    assert result.text == "(run_code completed with no output)"
    assert dispatch_log(agent)[0]["isError"] is True


async def test_a_failed_run_is_a_code_run_failed_result_with_kind_message_and_logs() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(
            logs=[CodeLogEntry("console", "about to fail", "log")],
            error=CodeRunFailure("exception", "ReferenceError: x is not defined"),
        )

    ctx, agent, _, _ = setup({"p": program})
    result = await run_code(ctx, agent, "p")
    assert result.is_error
    assert result.error is not None and result.error.code == "CODE_RUN_FAILED"
    text = result.text
    assert "exception" in text and "ReferenceError: x is not defined" in text and "about to fail" in text


async def test_the_run_scoped_signal_follows_the_caller_and_aborts_when_the_run_settles() -> None:
    signals: list[Any] = []

    class Watch:
        name = "watch"
        description = "Records the signal it ran with."
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            signals.append(exec.signal)
            return []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["watch"]({})
        assert not signals[0].aborted
        return CodeRunResult(logs=[])

    ctx, agent, _, _ = setup({"p": program})
    ctx.tools.register(Watch())
    caller = AbortController()
    await ctx.tools.execute(ToolExecutionInput("o", "run_code", {"code": "p"}, agent=agent, signal=caller.signal))
    assert signals[0] is not caller.signal and signals[0].aborted, "aborted once the run settled"

    async def waits(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["watch"]({})
        caller2.abort("user pressed stop")
        assert signals[1].aborted and signals[1].reason == "user pressed stop"
        return CodeRunResult(logs=[], error=CodeRunFailure("abort", "aborted"))

    ctx.tools.context.get(CODE_RUNTIME).programs["w"] = waits  # type: ignore[union-attr]
    caller2 = AbortController()
    await ctx.tools.execute(ToolExecutionInput("o2", "run_code", {"code": "w"}, agent=agent, signal=caller2.signal))


async def test_calls_still_queued_when_the_run_ends_are_not_run_and_in_flight_ones_drain() -> None:
    started = asyncio.Event()
    release = asyncio.Event()
    finished: list[str] = []
    pending: list[asyncio.Future[Any]] = []

    class Slow:
        name = "slow"
        description = "Waits for the test."
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            started.set()
            await release.wait()
            finished.append(exec.call_id)
            return []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        pending.extend(asyncio.ensure_future(tools["slow"]({})) for _ in range(2))
        await started.wait()
        asyncio.get_running_loop().call_soon(release.set)
        return CodeRunResult(logs=[], error=CodeRunFailure("timeout", "compute budget exhausted"))

    ctx, agent, _, _ = setup({"p": program})
    ctx.tools.register(Slow())
    result = await run_code(ctx, agent, "p")
    assert finished == ["outer:code:1"], "the in-flight call drained before run_code returned"
    assert result.is_error and "compute budget exhausted" in result.text
    # Both are recorded: the in-flight one was cut short by the run's end (its success becomes ABORTED),
    # the queued one met the aborted run signal before its turn and never ran.
    log = dispatch_log(agent)
    assert [(data["subCallId"], data["isError"]) for data in log] == [("outer:code:1", True), ("outer:code:2", True)]
    assert "aborted while" in str(log[0]["resultSummary"]) and "aborted before" in str(log[1]["resultSummary"])
    outcomes = await asyncio.gather(*pending, return_exceptions=True)
    assert all(isinstance(outcome, Exception) for outcome in outcomes)


async def test_bindings_are_the_agents_visible_end_capabilities() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=[], value=sorted(tools))

    ctx, agent, _, _ = setup({"p": program})

    class Hidden:
        name = "hidden"
        description = "Restricted away."
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            return []

    ctx.tools.register(Hidden())
    agent.ctx.tools.restrict(deny=["hidden"])
    result = await run_code(ctx, agent, "p")
    assert result.text == '["echo"]'


async def test_run_code_without_a_runtime_or_with_bad_args_is_an_error_result() -> None:
    ctx = boot(mode="code")
    result = await ctx.tools.execute(ToolExecutionInput("c", "run_code", {"code": "1"}))
    assert result.is_error and result.error is not None and result.error.code == "CODE_RUN_FAILED"
    ctx2, agent, _, _ = setup({})
    bad = await ctx2.tools.execute(ToolExecutionInput("c", "run_code", {"code": 5}, agent=agent))
    assert bad.is_error and bad.error is not None and bad.error.code == "INVALID_ARGS"


def test_run_code_presentation() -> None:
    from dsh_tools.code_mode.transport import present_run_code_call, present_run_code_result
    from dsh_tools.presentation import GenericCallView, GenericResultView, ToolResult

    assert present_run_code_call({"code": "return 1"}) == GenericCallView(
        title="return 1", kind="execute", raw_input="return 1"
    )
    assert present_run_code_call({"code": 1}) is None
    logs: dict[str, JsonValue] = {"logs": [{"source": "console", "text": "a"}, {"source": "stdout", "text": "b"}], "dispatches": 0}
    view = present_run_code_result({}, ToolResult(content=[], is_error=False, meta=logs))
    assert view == GenericResultView(content=[text_block("a\nb")])
    assert present_run_code_result({}, ToolResult(content=[], is_error=False, meta={"logs": []})) == GenericResultView()
    assert present_run_code_result({}, ToolResult(content=[], is_error=False, meta={"x": 1})) is None
    assert present_run_code_result({}, ToolResult(content=[], is_error=False)) is None


@pytest.mark.parametrize("mode", ["code", "both"])
async def test_modes_contribute_the_transport_and_protected_sdk(mode: ToolMode) -> None:
    from dsh_tools.system_prompt.records import AssembleContext, PromptAssembly

    ctx, agent, _, _ = setup({}, mode=mode)

    async def strip(context: AssembleContext, assembly: PromptAssembly, next: Any) -> PromptAssembly:
        await next()
        return PromptAssembly(sections=(), tools=())

    ctx.on("system-prompt/assemble", strip)
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    names = [t.name for t in assembly.tools]
    assert names == ["run_code"], "native tools are filterable, the transport is not"
    (sdk,) = assembly.sections
    assert sdk.name == "tools:sdk" and sdk.order == 150 and "echo(args:" in sdk.text
