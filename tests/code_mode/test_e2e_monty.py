"""End to end: real Python in the real Monty sandbox, through the registry (``code_language="python"``).

The Python twin of ``test_e2e_deno.py`` and ``test_program_parking_deno.py``:
every sub-call re-enters the full pipeline, denials raise ``ToolError``
inside the program, ``asyncio.gather`` overlaps safe calls, and a program
that waits for a human parks and resumes by replay, with ``random`` and the
clock repeating their first-run values.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    AssembleContext,
    Context,
    DeferringApprovalService,
    DenoCodeRuntime,
    Deny,
    MontyCodeRuntime,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    thaw_json,
    tool,
)
from dsh_tools.code_mode.transport import RUN_CODE_DESCRIPTION_PYTHON
from dsh_tools_codegen import SDK_USAGE_PYTHON


@pytest.fixture
async def runtime() -> AsyncIterator[MontyCodeRuntime]:
    made = MontyCodeRuntime(compute_ms=2_000, max_wall_ms=20_000)
    yield made
    await made.dispose()
    assert not made.live_pids


def make(runtime: MontyCodeRuntime, calls: list[str] | None = None) -> tuple[Context, Agent]:
    ctx = boot(mode="code", code_runtime=runtime)
    seen = calls if calls is not None else []

    @tool
    async def echo(text: str) -> str:
        """Echo the text back."""
        seen.append(text)
        return f"echo:{text}"

    @tool(output={"type": "object", "properties": {"words": {"type": "integer"}}, "required": ["words"]})
    async def count_words(text: str) -> dict[str, Any]:
        """Count the words of a text."""
        return {"words": len(text.split())}

    @tool
    async def secret() -> str:
        """Reads the secret."""
        return "the secret"

    @tool(is_concurrency_safe=True)
    async def slow(label: str) -> str:
        """Waits until three slow calls have started at once, or 5 s."""
        seen.append(f"start {label}")
        starts = sum(1 for entry in seen if entry.startswith("start"))
        if starts >= 3:
            gate.set()
        try:
            await asyncio.wait_for(gate.wait(), 5)
        except TimeoutError:
            return f"{label} alone"
        return f"{label} together"

    gate = asyncio.Event()
    for made in (echo, count_words, secret, slow):
        ctx.tools.register(made)
    return ctx, Agent(ctx, name="coder")


async def run_code(ctx: Context, agent: Agent, program: str) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput("run-1", "run_code", {"code": program}, agent=agent))


async def test_the_prompt_and_run_code_speak_python(runtime: MontyCodeRuntime) -> None:
    ctx, agent = make(runtime)
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    (run_code_tool,) = assembly.tools
    assert run_code_tool.description == RUN_CODE_DESCRIPTION_PYTHON
    sdk = assembly.sections[0].text
    assert sdk.startswith(SDK_USAGE_PYTHON) and "```python" in sdk
    assert "async def count_words(self, *, text: str) -> Count" in sdk


async def test_a_program_chains_tools_gets_typed_values_and_catches_a_denial(runtime: MontyCodeRuntime) -> None:
    ctx, agent = make(runtime)

    def no_secrets(execution: ToolExecution, next: PreNext) -> Any:
        return Deny("secrets stay secret") if execution.name == "secret" else next()

    ctx.on("tools/pre-execute", no_secrets)
    program = """
first = await tools.echo(text="a")
counted = await tools.count_words(text="one two three")
try:
    await tools.secret()
    denied = "no"
except ToolError as error:
    denied = str(error)
print("denied:", denied)
return [first, counted["words"] * 2, await tools["echo"]({"text": "b"})]
"""
    result = await run_code(ctx, agent, program)
    assert not result.is_error, result.text
    assert result.text == 'denied: Error: secrets stay secret\n["echo:a",6,"echo:b"]'
    events = [thaw_json(d) for kind, d in agent.session.events() if kind == "tool/code-dispatch"]
    assert [(e["subCallId"], e["name"], e["isError"]) for e in events] == [  # type: ignore[index]
        ("run-1:code:1", "echo", False),
        ("run-1:code:2", "count_words", False),
        ("run-1:code:3", "secret", True),
        ("run-1:code:4", "echo", False),
    ]


async def test_gather_overlaps_safe_calls(runtime: MontyCodeRuntime) -> None:
    ctx, agent = make(runtime)
    program = 'import asyncio\nreturn await asyncio.gather(tools.slow(label="a"), tools.slow(label="b"), tools.slow(label="c"))'
    result = await run_code(ctx, agent, program)
    assert result.text == '["a together","b together","c together"]', result.text


async def test_an_uncaught_failure_is_a_code_run_failure_with_the_line(runtime: MontyCodeRuntime) -> None:
    ctx, agent = make(runtime)
    result = await run_code(ctx, agent, 'print("before")\nx = 1\nraise ValueError("boom")')
    assert result.is_error and result.error is not None and result.error.code == "CODE_RUN_FAILED"
    assert "ValueError: boom" in result.text and "line 3" in result.text and "before" in result.text


async def test_an_approval_ask_inside_a_program(runtime: MontyCodeRuntime) -> None:
    ctx, agent = make(runtime)

    class Reject:
        async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
            return "rejected"

    ctx.provide(APPROVAL, Reject())
    ctx.on("tools/pre-execute", lambda e, n: Ask("reads the secret") if e.name == "secret" else n())
    result = await run_code(ctx, agent, "try:\n    return await tools.secret()\nexcept ToolError as e:\n    return str(e)")
    assert result.text == 'Error: the user rejected tool "secret"', result.text


def test_boot_checks_the_language_against_the_runtime() -> None:
    python = MontyCodeRuntime()
    assert boot(mode="code", code_runtime=python).tools.code_language == "python"
    assert boot(mode="code", code_runtime=python, code_language="python").tools.code_language == "python"
    with pytest.raises(ValueError, match="code_language is 'typescript' but the code runtime runs 'python'"):
        boot(mode="code", code_runtime=python, code_language="typescript")
    with pytest.raises(ValueError, match="code_runtime runs 'typescript'|runtime runs 'typescript'"):
        boot(mode="code", code_runtime=DenoCodeRuntime(), code_language="python")
    with pytest.raises(ValueError, match="code_language must be"):
        boot(mode="code", code_language="ruby")  # type: ignore[arg-type]


async def test_a_python_registry_refuses_a_typescript_runtime() -> None:
    ctx = boot(mode="code", code_language="python")
    deno = DenoCodeRuntime(pool_size=0)
    from dsh_tools.context.services import CODE_RUNTIME

    ctx.provide(CODE_RUNTIME, deno)
    with pytest.raises(RuntimeError, match="needs a Python code runtime"):
        await ctx.system_prompt.assemble(AssembleContext())
    await deno.dispose()


PARKING = """
import random, time
from datetime import datetime
stamp = [time.time(), time.monotonic(), datetime.now().timestamp(), random.random()]
who = await tools.lookup(name="ada")
print("looked up", who)
try:
    paid = await tools.charge_card(amount=int(stamp[3] * 1000))
except ToolError as error:
    paid = "not charged: " + str(error)
after = await tools.lookup(name="bob")
return [who, paid, after, stamp]
"""


async def test_a_python_program_parks_and_resumes_by_replay_with_its_first_clock_and_random(
    runtime: MontyCodeRuntime,
) -> None:
    lookups: list[str] = []
    charges: list[int] = []
    ctx = boot(mode="code", code_runtime=runtime)

    @tool
    async def lookup(name: str) -> str:
        """Find a customer."""
        lookups.append(name)
        return f"customer {name}"

    @tool
    async def charge_card(amount: int) -> str:
        """Charge the card."""
        charges.append(amount)
        return f"charged {amount}"

    async def charges_ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("moves money") if exec.name == "charge_card" else await next()

    ctx.tools.register(lookup)
    ctx.tools.register(charge_card)
    ctx.on("tools/pre-execute", charges_ask)
    ctx.provide(APPROVAL, DeferringApprovalService())
    agent = Agent(ctx, name="coder")
    parked = await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": PARKING}, agent))
    assert parked.outcome == "approval-pending", parked.text
    (pending,) = await ctx.tools.pending_approvals(agent)
    first_amount = thaw_json(pending.execution.arguments)["amount"]  # type: ignore[index]
    stored = await ctx.tools.store.get_parked(pending.approval_id)
    assert stored is not None
    first_clock = thaw_json(stored.program)["clock"]  # type: ignore[index]
    assert lookups == ["ada"] and charges == []
    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    assert result.outcome == "ok", result.text
    lines = result.text.splitlines()
    assert lines[:2] == ["(resumed after the approval of charge_card)", "looked up customer ada"]
    who, paid, after, stamp = orjson.loads(lines[2])
    assert (who, paid, after) == ("customer ada", f"charged {first_amount}", "customer bob")
    assert charges == [first_amount] == [int(stamp[3] * 1000)]
    assert stamp[:2] == first_clock[:2]  # the first run's reads, repeated
    assert abs(stamp[2] - first_clock[2]) < 1e-6  # a datetime keeps microseconds
    assert lookups == ["ada", "bob"]


def test_a_python_program_parked_in_one_process_resumes_in_another(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'calls.db'}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "DSH_PROGRAM_LANGUAGE": "python"}
    script = Path(__file__).resolve().parent / "program_process.py"

    def step(*argv: str) -> object:
        done = subprocess.run([sys.executable, str(script), url, *argv], env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        return orjson.loads(done.stdout.splitlines()[-1])

    parked = step("park")
    assert isinstance(parked, dict) and parked["outcome"] == "approval-pending" and parked["lookups"] == ["ada"]
    resumed = step("resume", str(parked["approvalId"]))
    assert resumed == {
        "outcome": "ok",
        "text": "(resumed after the approval of charge_card)\nlooked up customer ada\ncustomer ada; charged 5; customer bob",
        "lookups": ["bob"],
        "charges": [5],
    }
