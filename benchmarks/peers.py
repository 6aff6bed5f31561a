"""``make bench-peers``: one typed tool call through dsh-tools and through its Python peers.

Users compare what one tool call costs in each library, so this bench times
the same call everywhere: the plain function below, ``greet(name: str,
greeting: str = "Hello") -> str``, given to each library its own way and
called with the model's arguments ``{"name": "Ada"}``. No model and no
network: only each library's tool-call layer, from the model's call (name,
arguments, call id) to the text the model reads back. Every timed call
builds the call's input object, as a harness does for each call it gets.

The paths, and why each is the comparable one:

* ``dsh-tools, boot() defaults``: ``@tool`` on the function, registered in a
  ``boot()`` context (memory journal, timeout and retry policies), then
  ``ctx.tools.execute(ToolExecutionInput(...))``: the whole pipeline a harness
  runs per call, as shipped. Every ratio is to this row.
* ``pydantic-ai ToolManager, bare``: ``ToolManager(FunctionToolset([greet]))``
  prepared once for a run step (``for_run_step`` with a minimal
  ``RunContext``), then ``handle_call(ToolCallPart(...))``: validation and
  execution with no capabilities around them, pydantic-ai's floor.
* ``pydantic-ai ToolManager, agent step``: the ToolManager an ``Agent(tools=
  [greet])`` run builds for its step (its toolsets and root capability as the
  agent wraps them; the run is driven to its ``CallToolsNode`` by the offline
  ``TestModel``, which is not timed), then the same ``handle_call``: what a
  tool call costs inside a real agent run.
* ``openai-agents invoke_function_tool``: ``@function_tool``'s ``FunctionTool``
  called through the runner's own helper ``invoke_function_tool`` with a
  fresh ``ToolContext`` (the runner's per-call path less its tracing span and
  approval check). Its arguments are a JSON string: that is this SDK's only
  input, as the model sends it.
* ``openai-agents on_invoke_tool, bare``: the same tool's ``on_invoke_tool``
  called directly: parsing, validation and the body, the SDK's floor.
* ``langchain-core ainvoke(ToolCall)``: ``@tool`` from ``langchain_core.tools``,
  called with a ``ToolCall`` dict as an agent loop does; the result is a
  ``ToolMessage``, LangChain's tool-result record.

Each path runs in a fresh interpreter of this venv (no path warms another's
caches or imports), in several rounds whose order rotates, so a drift of the
shared machine lands on every path alike. A round warms its path up, sizes a
batch to about 0.15 s, and reports the median µs per call of five batches;
the table gives the median of the rounds with their min–max. A peer that
fails to import, or whose API differs from the one used here, is reported
on a line of its own and the rest still run.

Run from the repository root with the peers installed: ``python -m benchmarks.peers [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

Call = Callable[[], Awaitable[str]]
"""One tool call, returning the text the model reads back."""

Setup = Callable[[AsyncExitStack], Awaitable[Call]]
"""Builds a path's tool and returns its call; contexts it must stay inside go on the stack."""

EXPECTED = "Hello, Ada!"
ARGUMENTS = {"name": "Ada"}
BATCHES = 5
BATCH_SECONDS = 0.15
MARK = "@@peers@@"
ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dsh-tools", "pydantic-ai-slim", "openai-agents", "langchain-core")


async def greet(name: str, greeting: str = "Hello") -> str:
    """Greet someone.

    Args:
        name: Who to greet.
        greeting: The word to greet them with.
    """
    return f"{greeting}, {name}!"


async def _dsh_tools(stack: AsyncExitStack) -> Call:
    from dsh_tools import ToolExecutionInput, boot, tool

    ctx = boot()
    ctx.tools.register(tool(greet))
    stack.push_async_callback(ctx.dispose)

    async def call() -> str:
        return (await ctx.tools.execute(ToolExecutionInput("c1", "greet", ARGUMENTS))).text

    return call


async def _pydantic_ai_bare(stack: AsyncExitStack) -> Call:
    from pydantic_ai import RunContext
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.tool_manager import ToolManager
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    run_context = RunContext[None](deps=None, model=TestModel(), usage=RunUsage())
    manager = await ToolManager[None](FunctionToolset([greet])).for_run_step(run_context)

    async def call() -> str:
        return str(await manager.handle_call(ToolCallPart("greet", ARGUMENTS, tool_call_id="c1")))

    return call


async def _pydantic_ai_agent_step(stack: AsyncExitStack) -> Call:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ToolCallPart
    from pydantic_ai.models.test import TestModel

    agent = Agent(TestModel(call_tools=[]), tools=[greet])  # the model answers in text: no tool call of its own
    run = await stack.enter_async_context(agent.iter("Greet Ada."))
    node = run.next_node
    while not Agent.is_call_tools_node(node):  # the step's ToolManager is prepared before its tools are called
        if Agent.is_end_node(node):
            raise RuntimeError("the agent run ended before a CallToolsNode")
        node = await run.next(node)
    manager = run.ctx.deps.tool_manager

    async def call() -> str:
        return str(await manager.handle_call(ToolCallPart("greet", ARGUMENTS, tool_call_id="c1")))

    return call


async def _openai_agents_runner(stack: AsyncExitStack) -> Call:
    from agents import function_tool
    from agents.tool import invoke_function_tool
    from agents.tool_context import ToolContext

    function = function_tool(greet)
    arguments = json.dumps(ARGUMENTS)

    async def call() -> str:
        context = ToolContext(None, tool_name="greet", tool_call_id="c1", tool_arguments=arguments)
        return str(await invoke_function_tool(function_tool=function, context=context, arguments=arguments))

    return call


async def _openai_agents_bare(stack: AsyncExitStack) -> Call:
    from agents import function_tool
    from agents.tool_context import ToolContext

    function = function_tool(greet)
    arguments = json.dumps(ARGUMENTS)

    async def call() -> str:
        context = ToolContext(None, tool_name="greet", tool_call_id="c1", tool_arguments=arguments)
        return str(await function.on_invoke_tool(context, arguments))

    return call


async def _langchain(stack: AsyncExitStack) -> Call:
    from langchain_core.messages import ToolCall, ToolMessage
    from langchain_core.tools import tool

    greet_tool = tool(greet)

    async def call() -> str:
        message = await greet_tool.ainvoke(ToolCall(name="greet", args=ARGUMENTS, id="c1", type="tool_call"))
        assert isinstance(message, ToolMessage), message
        return str(message.content)

    return call


PATHS: dict[str, Setup] = {
    "dsh-tools, boot() defaults": _dsh_tools,
    "pydantic-ai ToolManager, bare": _pydantic_ai_bare,
    "pydantic-ai ToolManager, agent step": _pydantic_ai_agent_step,
    "openai-agents invoke_function_tool": _openai_agents_runner,
    "openai-agents on_invoke_tool, bare": _openai_agents_bare,
    "langchain-core ainvoke(ToolCall)": _langchain,
}
BASELINE = "dsh-tools, boot() defaults"


async def _batch(call: Call, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        await call()
    return time.perf_counter() - started


async def _measure(path: str) -> float:
    """The child's work: median µs per call of this path over :data:`BATCHES` timed batches."""
    async with AsyncExitStack() as stack:
        call = await PATHS[path](stack)
        text = await call()
        if text != EXPECTED:
            raise RuntimeError(f"the call returned {text!r}, not {EXPECTED!r}")
        calls, elapsed = 100, await _batch(call, 100)  # warm-up, and a first estimate of the rate
        calls = max(100, int(calls * BATCH_SECONDS / elapsed))
        return statistics.median([await _batch(call, calls) / calls * 1e6 for _ in range(BATCHES)])


def _child(path: str) -> None:
    try:
        print(MARK + json.dumps({"us": asyncio.run(_measure(path))}))
    except Exception as error:  # noqa: BLE001 -- an import that fails or an API that differs: say which, let the rest run
        print(MARK + json.dumps({"error": f"{type(error).__name__}: {error}"}))


def _run_child(path: str) -> float | str:
    """One fresh interpreter measuring one path: µs per call, or why it could not."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.peers", "--child", path],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            answer: dict[str, Any] = json.loads(line[len(MARK) :])
            return float(answer["us"]) if "us" in answer else str(answer["error"])
    return f"the child exited {done.returncode} without a figure: {done.stderr.strip()[-500:]}"


def _versions() -> str:
    def one(package: str) -> str:
        try:
            return f"{package} {version(package)}"
        except PackageNotFoundError:
            return f"{package} (not installed)"

    return f"Python {sys.version.split()[0]}; " + ", ".join(one(package) for package in PACKAGES)


def main(rounds: int) -> int:
    print(_versions(), flush=True)
    paths = list(PATHS)
    samples: dict[str, list[float]] = {path: [] for path in paths}
    failures: dict[str, str] = {}
    for number in range(rounds):
        order = paths[number % len(paths) :] + paths[: number % len(paths)]  # each round starts one path later
        print(f"round {number + 1}/{rounds} ...", file=sys.stderr, flush=True)
        for path in order:
            if path in failures:
                continue
            figure = _run_child(path)
            if isinstance(figure, str):
                failures[path] = figure
                print(f"{path}: skipped, {figure}", flush=True)
            else:
                samples[path].append(figure)
    base = statistics.median(samples[BASELINE]) if samples[BASELINE] else None
    width = max(len(path) for path in paths)
    print(f"\n{'path':{width}}  {'µs/call':>9}  {'min–max over rounds':>20}  {'× dsh-tools':>11}")
    print("-" * (width + 48))
    for path in paths:
        if path in failures:
            print(f"{path:{width}}  {'—':>9}  {'(failed: see above)':>20}  {'—':>11}")
            continue
        median = statistics.median(samples[path])
        spread = f"{min(samples[path]):.1f}–{max(samples[path]):.1f}"
        ratio = f"{median / base:.2f}" if base else "—"
        print(f"{path:{width}}  {median:>9.1f}  {spread:>20}  {ratio:>11}")
    print(f"\nmedians of {rounds} rounds, a fresh interpreter per path and round; × dsh-tools: over {BASELINE}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        _child(options.child)
    else:
        raise SystemExit(main(options.rounds))
