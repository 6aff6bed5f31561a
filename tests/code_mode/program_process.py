"""One process of the cross-process parking test: ``python program_process.py STORE_URL park|resume [ID]``.

With ``DSH_PROGRAM_LANGUAGE=python`` in the environment the program is the
Python twin of the TypeScript one, run by ``MontyCodeRuntime``.
"""

from __future__ import annotations

import asyncio
import os
import sys

import orjson

from dsh_tools import Agent, DenoCodeRuntime, MontyCodeRuntime, ToolExecutionInput, boot, thaw_json
from dsh_tools.code_mode.runtime import CodeRuntime

from test_program_parking_deno import PROGRAM, install

PROGRAM_PYTHON = """
who = await tools.lookup(name="ada")
print("looked up", who)
try:
    paid = await tools.charge_card(amount=5)
except ToolError as error:
    paid = "not charged: " + str(error)
after = await tools.lookup(name="bob")
return f"{who}; {paid}; {after}"
"""


async def main(url: str, command: str, approval_id: str | None) -> None:
    python = os.environ.get("DSH_PROGRAM_LANGUAGE") == "python"
    runtime: CodeRuntime = MontyCodeRuntime() if python else DenoCodeRuntime(pool_size=0)
    program = PROGRAM_PYTHON if python else PROGRAM
    ctx = boot(mode="code", code_runtime=runtime, store=url)
    lookups: list[str] = []
    charges: list[int] = []
    install(ctx, lookups, charges)
    agent = Agent(ctx, name="coder", id="coder-1")
    if command == "park":
        result = await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": program}, agent))
        meta = thaw_json(result.meta)
        approval = meta.get("approvalId") if isinstance(meta, dict) else None
        print(orjson.dumps({"outcome": result.outcome, "approvalId": approval, "lookups": lookups}).decode())
    else:
        result = await ctx.tools.resume(approval_id or "", "allowed-once")
        print(orjson.dumps({"outcome": result.outcome, "text": result.text, "lookups": lookups, "charges": charges}).decode())
    await runtime.dispose()
    await ctx.tools.store.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
