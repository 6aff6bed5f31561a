"""``dsh-tools run-code FILE|- --tools MODULE[,MODULE...] [--language typescript|python]``: run a program as a model would.

The program goes through the production path: a ``code``-mode registry with
``DenoCodeRuntime`` (``MontyCodeRuntime`` with ``--language python``), the reserved ``run_code`` transport, one binding per tool,
every binding call a full pipeline call. Prints the result text (what the
model would read); exit status 1 when the call ends as an error, so scripts can
test programs. ``--dispatches`` also prints each sub-call from the session log.
``-`` reads the program from standard input. A program that reaches for a
binding when no ``--tools`` were given is told so, with the flag that binds
them. The budget flags (``--timeout-ms``, ``--compute-ms``, ``--memory-mb``,
``--max-log-bytes``, ``--max-value-bytes``, ``--max-calls``) set the
``DenoCodeRuntime`` limits of the same meaning, so a runaway program can be
stopped sooner than the runtime's defaults allow.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path

from dsh_tools.boot import boot
from dsh_tools.cli.loading import CliError, LoadedTools, load_tools, split_specs
from dsh_tools.cli.output import emit
from dsh_tools.cli.parser import RUN_CODE_BUDGETS
from dsh_tools.cli.runtime import code_runtime
from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.execution import ToolExecutionInput, ToolExecutionResult
from dsh_tools.context.context import Agent
from dsh_tools.json_values import thaw_json

__all__ = ["NO_TOOLS_NOTE", "run", "run_program_file"]

NO_TOOLS_NOTE = (
    "no tools were loaded, so `tools` has no bindings; load them with --tools MODULE[:ATTR] "
    "(repeat the flag or separate modules with commas: --tools mytools,other.module)"
)


def run(args: argparse.Namespace) -> int:
    program = read_program(args.file)
    loaded = load_tools(split_specs(args.tools), require=False)
    given = ((keyword, getattr(args, keyword)) for _, _, keyword, _ in RUN_CODE_BUDGETS)
    budgets = {keyword: value for keyword, value in given if value is not None}
    language = getattr(args, "language", "typescript")
    result, dispatches = asyncio.run(run_program_file(program, loaded, budgets, language))
    emit(result.text)
    if args.dispatches:
        for line in dispatches:
            print(line, file=sys.stderr)
    if result.is_error and not loaded.tools and "is not a binding" in result.text:
        print(f"dsh-tools: note: {NO_TOOLS_NOTE}", file=sys.stderr)
    return 1 if result.is_error else 0


def read_program(file: str) -> str:
    """The program text: the file's, or standard input's for ``-``."""
    if file == "-":
        try:
            return sys.stdin.read()
        except (OSError, UnicodeDecodeError) as error:
            raise CliError(f"cannot read the program from standard input: {error}") from None
    path = Path(file)
    if not path.is_file():
        raise CliError(f"file not found: {path}")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CliError(f"cannot read {path}: {error}") from None


async def run_program_file(
    program: str, loaded: LoadedTools, budgets: Mapping[str, int] | None = None, language: str = "typescript"
) -> tuple[ToolExecutionResult, list[str]]:
    """Run ``program`` (written in ``language``) through ``run_code`` in a code-mode context
    (``budgets``: the runtime's keywords); the result and dispatch lines."""
    runtime = code_runtime(language, **(budgets or {}))
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
