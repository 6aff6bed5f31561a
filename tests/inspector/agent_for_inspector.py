"""The agent's process for the browser test: park one call, then run it when a decision arrives.

``python agent_for_inspector.py STORE_URL``: prints ``parked <approval id>``,
then runs ``watch_decisions`` until one call has run and prints its outcome.
"""

from __future__ import annotations

import asyncio
import sys

from dsh_tools import thaw_json
from dsh_tools import APPROVAL, Agent, Ask, DeferringApprovalService, PreNext, PreToolDecision, ToolExecution, ToolExecutionInput, boot, tool


@tool
async def write_file(path: str, text: str) -> str:
    """Write a text file into the project."""
    return f"wrote {len(text)} bytes to {path}"


async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
    return Ask("writes to the project") if exec.name == "write_file" else await next()


async def main(url: str) -> None:
    ctx = boot(store=url)
    ctx.tools.register(write_file)
    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, DeferringApprovalService())
    agent = Agent(ctx, name="editor", id="editor-1")
    text = "<script>window.pwned = 1</script> hello"
    result = await ctx.tools.execute(ToolExecutionInput("call-1", "write_file", {"path": "notes.md", "text": text}, agent))
    meta = thaw_json(result.meta)
    print("parked", meta["approvalId"] if isinstance(meta, dict) else None, flush=True)
    async for done in ctx.tools.watch_decisions(agent, poll_seconds=0.05):
        print("ran", done.outcome, done.text, flush=True)
        break
    await ctx.tools.store.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
