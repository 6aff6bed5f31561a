"""One process of the cross-process parking test: ``python program_process.py STORE_URL park|resume [ID]``."""

from __future__ import annotations

import asyncio
import sys

import orjson

from dsh_tools import Agent, DenoCodeRuntime, ToolExecutionInput, boot, thaw_json

from test_program_parking_deno import PROGRAM, install


async def main(url: str, command: str, approval_id: str | None) -> None:
    runtime = DenoCodeRuntime(pool_size=0)
    ctx = boot(mode="code", code_runtime=runtime, store=url)
    lookups: list[str] = []
    charges: list[int] = []
    install(ctx, lookups, charges)
    agent = Agent(ctx, name="coder", id="coder-1")
    if command == "park":
        result = await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": PROGRAM}, agent))
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
