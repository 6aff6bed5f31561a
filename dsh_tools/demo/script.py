"""The scripted session: ten steps, each showing one behaviour of the pipeline.

No model is called; the "agent" is this script, sending the calls a model
plausibly would (including its mistakes) through the real registry, policies
and, in code/both modes, the real Deno runtime. Each step function returns a
:class:`~dsh_tools.demo.transcript.Step`; :func:`play_demo` runs them in order
over a fresh temporary workspace.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.code_mode.install import SDK_SECTION
from dsh_tools.code_mode.runtime import CodeRuntime
from dsh_tools.demo.python_programs import CODE_PROGRAM_PYTHON, PAUSED_PROGRAM_PYTHON, program_for
from dsh_tools.demo.session import DemoSession, ToolsFactory
from dsh_tools.demo.transcript import Step, Transcript
from dsh_tools.demo.workspace import fill_workspace
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.hooks import ExecuteNext
from dsh_tools.registry.registry import ToolMode
from dsh_tools.system_prompt.records import AssembleContext
from dsh_tools.system_prompt.render import render_prompt

__all__ = ["CODE_PROGRAM", "STEPS", "play_demo"]

CODE_PROGRAM: Final = """\
const entries = await tools.list_dir({ path: "." });
const names = entries.map((entry) => (entry.kind === "dir" ? entry.name + "/" : entry.name));
console.log("workspace:", names.join(", "));
const todos = await tools.search_text({ query: "TODO" });
const todoFiles = [...new Set(todos.map((hit) => hit.path))];
console.log(`found ${todos.length} TODO lines in ${todoFiles.join(", ")}`);
const counts = await tools.count_words({ path: "README.md" });
console.log(`README.md: ${counts.words} words, ${(counts.words / counts.lines).toFixed(1)} a line`);
let secrets = "read";
try {
  await tools.read_file({ path: "secrets.txt" });
} catch (error) {
  secrets = "denied: " + (error instanceof Error ? error.message : String(error));
}
console.log("secrets.txt", secrets);
return { dirs: entries.filter((entry) => entry.kind === "dir").length, todos: todos.length, words: counts.words };
"""
"""The demo's program computes over the typed tools' values (entries, hits, counts), not their text."""

MODE_EXPLANATIONS: Final[dict[str, str]] = {
    "native": "In native mode every visible tool goes on the wire as a function definition, "
    "and the prompt carries no SDK.",
    "code": f"In code mode the wire carries only {RUN_CODE_NAME}; the tools appear in the prompt as a "
    f"TypeScript SDK (the {SDK_SECTION} section) that the model writes programs against.",
    "both": f"In both mode the wire carries every tool plus {RUN_CODE_NAME}, and the prompt carries the "
    "SDK: the model can call a tool directly or chain several in one program.",
}

CODE_MODE_NOTE: Final = (
    f"a code-mode model reaches the tools only through {RUN_CODE_NAME} (its direct calls settle UNKNOWN_TOOL); "
    "steps 2-7 send their calls for a second agent that presents the same tools as 'both' "
    "(agent.ctx.tools.present_as), through the same pipeline every binding call of a program runs through"
)

StepPlay = Callable[[DemoSession, int], Awaitable[Step]]


async def prompt_step(session: DemoSession, number: int) -> Step:
    assembly = await session.ctx.system_prompt.assemble(AssembleContext(scope=session.agent))
    sdk = next((section.text for section in assembly.sections if section.name == SDK_SECTION), None)
    return Step(
        number,
        "prompt",
        "What the model is given",
        "The registry feeds the prompt assembly. " + _explained(session),
        details={
            "wireTools": [schema.name for schema in assembly.tools],
            "sections": [section.name for section in assembly.sections],
            "sdk": sdk,
            "prompt": render_prompt(assembly),
        },
        note=CODE_MODE_NOTE if session.ctx.tools.mode == "code" else None,
    )


def _explained(session: DemoSession) -> str:
    text = MODE_EXPLANATIONS[session.ctx.tools.mode]
    return text.replace("TypeScript SDK", "Python SDK") if session.ctx.tools.code_language == "python" else text


def calls_step(key: str, title: str, explanation: str, *calls: tuple[str, dict[str, object]]) -> StepPlay:
    """A step that only sends ``calls`` in order and shows their results."""

    async def play(session: DemoSession, number: int) -> Step:
        results = tuple([await session.call(name, arguments) for name, arguments in calls])
        return Step(number, key, title, explanation, results)

    return play


success_step = calls_step(
    "success", "Successful calls",
    "Each call runs pre-execute, guards, execute and post-execute; a plain success reaches the model as text.",
    ("read_file", {"path": "README.md"}),
    ("search_text", {"query": "TODO"}),
)

invalid_args_step = calls_step(
    "invalid-args", "A validation error the model corrects",
    "define_tool validates the model's arguments before the body runs. The mistake comes back as an "
    "INVALID_ARGS error listing each violation, and the model retries with the right argument name.",
    ("count_words", {"file": "README.md"}),
    ("count_words", {"path": "README.md"}),
)

denial_step = calls_step(
    "denial", "Policy denials (tools/pre-execute)",
    "A pre-execute listener refuses secrets.txt and any path outside the workspace. "
    "The tool body never runs; the model reads the reason.",
    ("read_file", {"path": "secrets.txt"}),
    ("list_dir", {"path": ".."}),
)

redaction_step = calls_step(
    "post-execute", "Output replaced after execution (tools/post-execute)",
    "The file holds an API token. A post-execute listener replaces it in the result and attaches a "
    "HookContext note, which the loop would append as a context message after the tool results.",
    ("read_file", {"path": "config.env"}),
)


async def approval_step(session: DemoSession, number: int) -> Step:
    calls = (
        await session.call("write_file", {"path": "notes/summary.md", "content": "# Summary\n\nAll good.\n"}),
        await session.call("write_file", {"path": "README.md", "content": "overwritten\n"}),
    )
    requests = [
        {"tool": r.tool_name, "callId": r.call_id, "reason": r.reason, "answer": session.approver.answers[r.call_id]}
        for r in session.approver.requests
    ]
    return Step(
        number, "approval", "Approval (ask → APPROVAL service)",
        "The policy answers Ask for write_file. The mounted ApprovalService (a scripted approver standing "
        "in for a human) allows the first write once and rejects the second.",
        calls,
        details={"requests": requests},
    )


async def timeout_step(session: DemoSession, number: int) -> Step:
    budget = session.ctx.tools.get("build_status")
    calls = (await session.call("build_status", {"branch": "main"}),)
    return Step(
        number, "timeout", "A timeout (tools/execute wrapper)",
        "build_status declares a timeout_ms budget; the server takes 1 s. TimeoutPolicy aborts the call's "
        "signal at the deadline and reports TOOL_TIMEOUT.",
        calls,
        details={"timeoutMs": None if budget is None else budget.timeout_ms},
    )


SIMULATED_LATENCY_MS: Final = 100
"""Storage latency the parallel step adds to every call, so overlap shows in the timings."""

PARALLEL_CALLS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    ("read_file", {"path": "README.md"}),
    ("list_dir", {"path": "src"}),
    ("count_words", {"path": "README.md"}),
    ("write_file", {"path": "notes/parallel.md", "content": "written between two waves of reads\n"}),
    ("search_text", {"query": "TODO"}),
    ("read_file", {"path": "src/app.py", "limit": 3}),
)


async def parallel_step(session: DemoSession, number: int) -> Step:
    """One assistant message asking for several reads and a write: the reads overlap, the write is a barrier."""
    fork = session.ctx.fork()  # the timing wrapper lives for this step only
    started = time.perf_counter()
    spans: dict[str, tuple[float, float]] = {}

    def at() -> float:
        return round((time.perf_counter() - started) * 1000, 1)

    async def timed(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:  # noqa: A002
        begin = at()
        await asyncio.sleep(SIMULATED_LATENCY_MS / 1000)  # simulated storage latency
        result = await next()
        spans[execution.call_id] = (begin, at())
        return result

    fork.on("tools/execute", timed)
    modes = [session.ctx.tools.execution_mode(ToolExecutionInput("?", tool, arguments, session.direct))
             for tool, arguments in PARALLEL_CALLS]
    try:
        calls = await session.call_batch(PARALLEL_CALLS)
    finally:
        await fork.dispose()
    wall = at()
    timeline = [
        {"callId": call.call_id, "tool": call.tool, "mode": mode,
         "startMs": spans.get(call.call_id, (None, None))[0], "endMs": spans.get(call.call_id, (None, None))[1]}
        for call, mode in zip(calls, modes)
    ]
    return Step(
        number, "parallel", "Parallel calls in one message (execute_batch)",
        "The model asks for five reads and one write in a single message. The reads declare "
        "is_concurrency_safe, so they dispatch side by side; write_file does not, so it waits for the reads "
        "before it, runs alone (after its approval), and the reads after it wait for it. Policy and results "
        f"still go one call at a time, in the model's order. Each call gets {SIMULATED_LATENCY_MS} ms of "
        "simulated storage latency here, so the overlap shows in the timings.",
        calls,
        details={"timeline": timeline, "wallMs": wall, "latencyMs": SIMULATED_LATENCY_MS,
                 "serialMs": SIMULATED_LATENCY_MS * len(PARALLEL_CALLS)},
    )


async def code_mode_step(session: DemoSession, number: int) -> Step:
    python = session.ctx.tools.code_language == "python"
    title = "A Code Mode program (Python in Monty)" if python else "A Code Mode program (TypeScript in Deno)"
    if session.ctx.tools.mode == "native":
        return Step(number, "code-mode", title, "Skipped in native mode: there is no run_code transport.",
                    note="run with --mode code or --mode both to see a program", skipped=True)
    started = time.perf_counter()
    program = program_for(session.ctx.tools.code_language, CODE_PROGRAM, CODE_PROGRAM_PYTHON)
    calls = (await session.call(RUN_CODE_NAME, {"code": program}),)
    return Step(
        number, "code-mode", title,
        "One run_code call: the program chains list_dir, search_text and count_words and computes over the "
        "values they return (entries, hits, counts: typed tools resolve to data, not text), and catches the "
        "denial of secrets.txt. Every binding call is a full pipeline call, so the same policy applies; only "
        "what the program logs or returns comes back.",
        calls,
        details={"program": program, "language": session.ctx.tools.code_language,
                 "runMs": round((time.perf_counter() - started) * 1000)},
    )


async def dispatch_log_step(session: DemoSession, number: int) -> Step:
    title = "The tool/code-dispatch session log"
    if session.ctx.tools.mode == "native":
        return Step(number, "dispatch-log", title, "Skipped in native mode: no program ran.", skipped=True)
    return Step(
        number, "dispatch-log", title,
        "Each sub-call of the program is appended to the agent's session log with id <call>:code:<n>, "
        "so a replay sees exactly what the program did, the denied call included.",
        details={"events": session.dispatch_log()},
    )


PAUSED_PROGRAM: Final = """\
const counts = await tools.count_words({ path: "README.md" });
console.log(`README.md has ${counts.words} words; writing that down`);
await tools.write_file({ path: "notes/words.md", content: `README.md: ${counts.words} words\\n` });
return await tools.read_file({ path: "notes/words.md" });
"""
"""A program whose write needs a human: it parks, and resumes by replay once someone approves."""


async def paused_program_step(session: DemoSession, number: int) -> Step:
    title = "A program that waits for a human"
    if session.ctx.tools.mode == "native":
        return Step(number, "paused-program", title, "Skipped in native mode: there is no run_code transport.",
                    skipped=True)
    program = program_for(session.ctx.tools.code_language, PAUSED_PROGRAM, PAUSED_PROGRAM_PYTHON)
    parked = await session.call(RUN_CODE_NAME, {"code": program})
    tools = session.ctx.tools
    (pending,) = await tools.pending_approvals(session.agent)
    await tools.store.decide(pending.approval_id, "allowed-once", decided_by="a human, a minute later")
    (resumed,) = await tools.resume_decided(session.agent)
    return Step(
        number, "paused-program", title,
        "The program's write_file needs approval, and the approver answers \"deferred\" (a human will decide "
        "later). The whole program parks: its sandbox ends and run_code settles APPROVAL_PENDING. Someone records "
        "a decision in the store (from any process: a page, the CLI); resume_decided then runs the write and "
        "the program again from the start, answering count_words from the journal instead of calling it again.",
        (parked,),
        details={
            "program": program,
            "language": session.ctx.tools.code_language,
            "approvalId": pending.approval_id,
            "subCall": {"callId": pending.execution.call_id, "tool": pending.execution.name},
            "resumed": {"callId": resumed.call_id, "outcome": resumed.outcome, "text": resumed.text},
            "journal": [
                {"callId": r.call_id, "tool": r.tool_name, "outcome": r.outcome}
                for r in await tools.store.journal(agent_id=session.agent.id)
                if r.call_id == parked.call_id or r.parent_call_id == parked.call_id
            ],
        },
    )


STEPS: Final[tuple[StepPlay, ...]] = (
    prompt_step, success_step, invalid_args_step, denial_step, approval_step,
    timeout_step, redaction_step, parallel_step, code_mode_step, dispatch_log_step, paused_program_step,
)


async def play_demo(mode: ToolMode, make_tools: ToolsFactory, runtime: CodeRuntime | None) -> Transcript:
    """Play every step over a fresh temporary workspace (removed afterwards)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dsh-tools-demo-") as directory:
        workspace = Path(directory).resolve()
        files = fill_workspace(workspace)
        session = DemoSession(mode, workspace, make_tools, runtime)
        steps = [await play(session, number) for number, play in enumerate(STEPS, start=1)]
        tools = tuple(tool.name for tool in session.ctx.tools.visible())
        await session.ctx.dispose()
    wall_ms = round((time.perf_counter() - started) * 1000)
    return Transcript(mode, str(workspace), tuple(files), tools, tuple(steps), wall_ms)
