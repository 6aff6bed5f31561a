"""``dsh-tools run-code FILE --tools MODULE...``: run a TypeScript program as a model would.

The program goes through the production path: a ``code``-mode registry with
``DenoCodeRuntime``, the reserved ``run_code`` transport, one binding per tool,
every binding call a full pipeline call. Prints the result text (what the
model would read); exit status 1 when the call ends as an error, so scripts can
test programs. ``--dispatches`` also prints each sub-call from the session log.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from dsh_tools.boot import boot
from dsh_tools.cli.loading import CliError, LoadedTools, load_tools
from dsh_tools.cli.output import emit
from dsh_tools.cli.runtime import deno_runtime
from dsh_tools.cli.sdk import MODULES_HELP
from dsh_tools.execution import ToolExecutionInput, ToolExecutionResult
from dsh_tools.host.context import Agent
from dsh_tools.json_values import thaw_json
from dsh_tools.registry.registry import RUN_CODE_NAME

__all__ = ["add_parser", "run", "run_program_file"]


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("run-code", help="run a TypeScript program against some modules' tools")
    parser.add_argument("file", metavar="FILE", help="the program: the body of an async function (TypeScript)")
    parser.add_argument(
        "--tools", action="append", default=[], metavar="MODULE[:ATTR]", help=f"tools to bind ({MODULES_HELP})"
    )
    parser.add_argument("--dispatches", action="store_true", help="also print each tool sub-call (to stderr)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise CliError(f"file not found: {path}")
    try:
        program = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CliError(f"cannot read {path}: {error}") from None
    loaded = load_tools(args.tools, require=False)
    result, dispatches = asyncio.run(run_program_file(program, loaded))
    emit(result.text)
    if args.dispatches:
        for line in dispatches:
            print(line, file=sys.stderr)
    return 1 if result.is_error else 0


async def run_program_file(program: str, loaded: LoadedTools) -> tuple[ToolExecutionResult, list[str]]:
    """Run ``program`` through ``run_code`` in a code-mode context; the result and dispatch lines."""
    runtime = deno_runtime()
    try:
        ctx = boot(mode="code", code_runtime=runtime)
        agent = Agent(ctx, name="dsh-tools-run-code")
        loaded.install(ctx)
        result = await ctx.tools.execute(
            ToolExecutionInput(call_id="run-code", name=RUN_CODE_NAME, arguments={"code": program}, agent=agent)
        )
    finally:
        await runtime.dispose()
    lines = []
    for kind, data in agent.session.events():
        if kind == "tool/code-dispatch":
            event = thaw_json(data)
            assert isinstance(event, dict)
            status = "error" if event.get("isError") else "ok"
            summary = " ".join(str(event.get("resultSummary")).split())  # one line per sub-call
            lines.append(f"{event.get('subCallId')} {event.get('name')} [{status}] {summary}")
    return result, lines
