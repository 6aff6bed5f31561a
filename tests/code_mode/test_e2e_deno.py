"""End to end: real TypeScript in real Deno, through the registry, in code and both modes.

Every sub-call a program makes goes through the full pipeline; these tests
check that policy (denials, approval asks, guards, timeouts) and cancellation
reach programs as they would reach a native call.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from dsh_tools import (
    APPROVAL,
    AbortController,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    AssembleContext,
    ContentBlock,
    Context,
    Deny,
    PreNext,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    text_block,
    thaw_json,
)
from dsh_tools.code_mode.deno import DenoCodeRuntime


class Echo:
    name = "echo"
    description = "Echo the text back."
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block(f"echo:{args['text']}")]


class Secret:
    name = "secret"
    description = "Reads the secret."
    parameters = {"type": "object"}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("the secret")]


class Sleepy:
    """Sleeps until its signal aborts (or 30 s), recording what it saw."""

    name = "sleepy"
    description = "Waits."
    parameters = {"type": "object"}
    timeout_ms: float | None = None

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.signals: list[Any] = []

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.signals.append(exec.signal)
        self.started.set()
        assert exec.signal is not None
        await asyncio.wait_for(exec.signal.wait(), 30)
        return [text_block("woke")]


class Approver:
    def __init__(self, answer: ApprovalOutcome) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        self.requests.append(request)
        return self.answer


@pytest.fixture
async def runtime() -> AsyncIterator[DenoCodeRuntime]:
    rt = DenoCodeRuntime(compute_ms=2_000, max_wall_ms=20_000)
    yield rt
    await rt.dispose()
    assert not rt.live_pids


def make(runtime: DenoCodeRuntime, mode: str = "code") -> tuple[Context, Agent]:
    ctx = boot(mode=mode, code_runtime=runtime)  # type: ignore[arg-type]
    ctx.tools.register(Echo())
    ctx.tools.register(Secret())
    return ctx, Agent(ctx, name="coder")


async def run_code(ctx: Context, agent: Agent, program: str, **extra: Any) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput("run-1", "run_code", {"code": program}, agent=agent, **extra))


def dispatches(agent: Agent) -> list[dict[str, Any]]:
    return [thaw_json(d) for kind, d in agent.session.events() if kind == "tool/code-dispatch"]  # type: ignore[misc]


async def test_a_program_chains_tools_and_a_denial_is_catchable(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)

    def no_secrets(execution: ToolExecution, next: PreNext) -> Any:
        return Deny("secrets stay secret") if execution.name == "secret" else next()

    ctx.on("tools/pre-execute", no_secrets)
    program = """
        const first: string = await tools.echo({ text: "a" });
        let denied = "";
        try { await tools.secret({}); } catch (e) { denied = (e as Error).message; }
        console.log("denied:", denied);
        return [first, await tools.echo({ text: "b" })];
    """
    result = await run_code(ctx, agent, program)
    assert not result.is_error, result.text
    assert result.text == 'denied: secrets stay secret\n["echo:a","echo:b"]'
    log = dispatches(agent)
    assert [(d["subCallId"], d["name"], d["isError"]) for d in log] == [
        ("run-1:code:1", "echo", False),
        ("run-1:code:2", "secret", True),
        ("run-1:code:3", "echo", False),
    ]
    assert log[1]["resultSummary"] == "Error: secrets stay secret"
    assert thaw_json(result.meta)["dispatches"] == 3  # type: ignore[index]


async def test_both_mode_offers_native_calls_and_code_side_by_side(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime, mode="both")
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    assert [t.name for t in assembly.tools] == ["echo", "run_code", "secret"]  # code-point order of names
    assert "echo(args:" in assembly.sections[0].text
    native = await ctx.tools.execute(ToolExecutionInput("n", "echo", {"text": "x"}, agent=agent))
    coded = await run_code(ctx, agent, 'return await tools.echo({ text: "y" })')
    assert (native.text, coded.text) == ("echo:x", "echo:y")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("allowed-once", "the secret"), ("rejected", 'the user rejected tool "secret"')],
)
async def test_an_approval_ask_inside_a_program(runtime: DenoCodeRuntime, answer: ApprovalOutcome, expected: str) -> None:
    ctx, agent = make(runtime)
    approver = Approver(answer)
    ctx.provide(APPROVAL, approver)

    def ask(execution: ToolExecution, next: PreNext) -> Any:
        return Ask("reads the secret") if execution.name == "secret" else next()

    ctx.on("tools/pre-execute", ask)
    program = "try { return await tools.secret({}); } catch (e) { return (e as Error).message; }"
    result = await run_code(ctx, agent, program)
    assert result.text == expected
    (request,) = approver.requests
    assert (request.agent, request.tool_name, request.call_id, request.reason) == (
        agent,
        "secret",
        "run-1:code:1",
        "reads the secret",
    )


async def test_a_guard_applies_inside_programs(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)
    agent.ctx.tools.guard(lambda execution: "echo is off for this agent" if execution.name == "echo" else None)
    result = await run_code(ctx, agent, 'try { await tools.echo({text: "x"}) } catch (e) { return String(e) }')
    # String(e) is exactly the text the model reads for a failed call: one "Error:" prefix.
    assert result.text == "Error: echo is off for this agent"


async def test_a_sub_call_timeout_rejects_inside_the_program(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)
    sleepy = Sleepy()
    sleepy.timeout_ms = 50
    ctx.tools.register(sleepy)
    result = await run_code(ctx, agent, "try { await tools.sleepy({}) } catch (e) { return (e as Error).message }")
    assert result.text == "tool call timed out after 50ms"
    assert dispatches(agent)[0]["isError"] is True


async def test_a_compute_budget_overrun_is_a_code_run_failure(runtime: DenoCodeRuntime) -> None:
    tight = DenoCodeRuntime(compute_ms=300, max_wall_ms=10_000)
    try:
        ctx, agent = make(tight)
        result = await run_code(ctx, agent, 'console.log("spinning"); while (true) {}')
        assert result.is_error and result.error is not None and result.error.code == "CODE_RUN_FAILED"
        assert "timeout" in result.text and "spinning" in result.text
    finally:
        await tight.dispose()
    assert not tight.live_pids


async def test_a_caller_abort_ends_the_run_and_the_in_flight_sub_call(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)
    sleepy = Sleepy()
    ctx.tools.register(sleepy)
    caller = AbortController()
    pending = asyncio.ensure_future(run_code(ctx, agent, "await tools.sleepy({}); return 'unreachable'", signal=caller.signal))
    await sleepy.started.wait()
    caller.abort("user pressed stop")
    result = await pending
    assert result.is_error and "abort" in result.text
    assert sleepy.signals[0].aborted, "the in-flight sub-call saw the run-scoped abort"
    assert [d["subCallId"] for d in dispatches(agent)] == ["run-1:code:1"], "logged before run_code returned"


async def test_non_json_arguments_reject_in_the_program_and_dispatch_nothing(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)
    program = "try { await tools.echo({ text: 1n as unknown as string }) } catch (e) { return `${(e as Error).name}: ${(e as Error).message}` }"
    result = await run_code(ctx, agent, program)
    assert result.text.startswith("TypeError:") and "JSON" in result.text
    assert dispatches(agent) == []
    assert thaw_json(result.meta)["dispatches"] == 0  # type: ignore[index]


async def test_the_program_cannot_read_files_or_environment(runtime: DenoCodeRuntime) -> None:
    os.environ.setdefault("DSH_TOOLS_TEST_SECRET", "hunter2")
    ctx, agent = make(runtime)
    program = """
        const out: string[] = [];
        for (const attempt of [
            () => Deno.readTextFile("/etc/hostname"),
            () => import("file:///etc/hostname", { with: { type: "text" } }),
            async () => Deno.env.get("DSH_TOOLS_TEST_SECRET"),
        ]) {
            try { out.push(String(await attempt())); } catch (e) { out.push("denied"); }
        }
        return out;
    """
    result = await run_code(ctx, agent, program)
    assert result.text == '["denied","denied","denied"]'


@pytest.mark.parametrize(
    "expr",
    ["(() => { const a: any = {}; a.a = a; return a })()", "undefined", "{ f: () => 1 }", "10n", "{ s: 'x\\ud800' }"],
    ids=["cyclic", "undefined", "function", "BigInt", "lone surrogate"],
)
async def test_non_json_arguments_never_reach_the_pipeline(runtime: DenoCodeRuntime, expr: str) -> None:
    ctx, agent = make(runtime)
    seen: list[str] = []
    ctx.on("tools/result", lambda execution, result: seen.append(execution.name))
    program = f"try {{ await tools.echo({expr} as any) }} catch (e) {{ return `${{(e as Error).name}}: ${{(e as Error).message}}` }}"
    result = await run_code(ctx, agent, program)
    assert result.text.startswith("TypeError:") and "JSON" in result.text, result.text
    assert seen == ["run_code"] and dispatches(agent) == []


async def test_a_syntax_error_reports_the_programs_own_line_and_column(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)
    result = await run_code(ctx, agent, "const a = (1 +;\nreturn a;")
    assert result.is_error
    assert "SyntaxError" in result.text and "TypeError" not in result.text
    assert "program.ts:1:15" in result.text, result.text
    assert "1 | const a = (1 +;" in result.text and "export default" not in result.text
    second = await run_code(ctx, agent, "const a = 1;\nconst b = (2 +;")
    assert "program.ts:2:15" in second.text and "2 | const b = (2 +;" in second.text, second.text


async def test_a_runtime_error_reports_the_programs_own_line_and_column(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)
    result = await run_code(ctx, agent, "throw new RangeError('out of range')")
    assert "RangeError: out of range" in result.text and "program.ts:1:7" in result.text, result.text


async def test_an_uncaught_failed_call_reads_error_once(runtime: DenoCodeRuntime) -> None:
    ctx, agent = make(runtime)
    ctx.on("tools/pre-execute", lambda execution, next: Deny("secrets stay secret") if execution.name == "secret" else next())
    result = await run_code(ctx, agent, "await tools.secret({})")
    assert result.is_error
    assert result.text.startswith("Error: code run failed (exception): secrets stay secret"), result.text
    assert result.text.count("Error:") == 1, result.text
