"""The modules one tool call crosses: ``python -m benchmarks.call_path [-v]``.

Traces one warm ``ToolRegistry.execute`` of a one-property tool under
``boot()`` (the timeout and retry policies installed, the memory journal
recording) and prints the ``dsh_tools`` modules it enters, in order, a module
named once per run of consecutive calls into it, then how often each module
is entered. With ``--code`` the call is a Code Mode ``run_code`` whose program
makes one sub-call (real Deno); ``-v`` names the functions too.

Only fresh calls count: a coroutine resuming after an ``await`` is the same
entry. This is how issue 22's "crosses each module once" is read: the stages
are entered in pipeline order, and the registry and the context are asked
once each for what a stage needs (no stage calls back into them per
listener).
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Mapping
from types import FrameType
from typing import Any

from dsh_tools import CODE_RUNTIME, DenoCodeRuntime, Prop, ToolExecution, ToolExecutionInput, boot, define_tool, text_block
from dsh_tools.json_values import JsonValue


async def _echo(args: Any, execution: ToolExecution) -> list[Mapping[str, JsonValue]]:
    return [text_block(args["text"])]


async def trace(code: bool) -> list[tuple[str, list[str]]]:
    """``[(module, [function, ...]), ...]``: the entries of one traced call, in order."""
    ctx = boot(mode="code") if code else boot()
    runtime = DenoCodeRuntime() if code else None
    if runtime is not None:
        ctx.provide(CODE_RUNTIME, runtime)
    ctx.tools.register(define_tool(name="echo", description="Echo.", parameters={"text": Prop("string", required=True)}, execute=_echo))
    name, arguments = ("run_code", {"code": 'return await tools.echo({ text: "hi" });'}) if code else ("echo", {"text": "hi"})
    await ctx.tools.execute(ToolExecutionInput("warm", name, arguments))
    entries: list[tuple[str, list[str]]] = []
    started: set[FrameType] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or frame in started:
            return
        started.add(frame)
        module = str(frame.f_globals.get("__name__", "?"))
        if not module.startswith("dsh_tools"):
            return
        module = module.removeprefix("dsh_tools.")
        if entries and entries[-1][0] == module:
            entries[-1][1].append(frame.f_code.co_name)
        else:
            entries.append((module, [frame.f_code.co_name]))

    sys.setprofile(profile)
    try:
        await ctx.tools.execute(ToolExecutionInput("traced", name, arguments))
    finally:
        sys.setprofile(None)
        if runtime is not None:
            await runtime.dispose()
        await ctx.dispose()
    return entries


def main(argv: list[str]) -> None:
    entries = asyncio.run(trace("--code" in argv))
    if "-v" in argv:
        for module, functions in entries:
            print(f"{module}: {', '.join(functions)}")
    print(" -> ".join(module for module, _ in entries))
    repeated = {module: count for module, count in Counter(module for module, _ in entries).most_common() if count > 1}
    print(f"{len(entries)} entries; entered more than once: {repeated}")


if __name__ == "__main__":
    main(sys.argv[1:])
