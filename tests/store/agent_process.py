"""One agent process for the cross-process tests: ``python agent_process.py STORE_URL COMMAND [ARG]``.

Every process boots its own registry on the shared store, registers the
same ``write_file`` (which appends a line to ``BODY_LOG`` each time its body
runs, so a test counts runs across processes) and the same agent id.

Commands print one JSON line: ``park CALL_ID`` (the approval id), ``resume
ID`` (the result's outcome and text, or the exception's type), ``decided``
(each result of ``resume_decided``), ``watch N`` (the first N results of
``watch_decisions``; prints ``ready`` first), ``hang ID`` (resume a call
whose body then blocks for ever; prints ``running`` once inside the body).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import orjson

from dsh_tools import thaw_json
from dsh_tools import APPROVAL, Agent, Ask, DeferringApprovalService, PreNext, PreToolDecision, ToolExecution, ToolExecutionInput, boot, tool

AGENT_ID = "agent-7"


def say(value: object) -> None:
    print(orjson.dumps(value).decode(), flush=True)


async def main(url: str, command: str, argument: str | None) -> None:
    ctx = boot(store=url, lease_seconds=float(os.environ.get("LEASE", "30")))
    body_log = Path(os.environ["BODY_LOG"])
    hang = command == "hang"

    @tool
    async def write_file(path: str) -> str:
        """Write a file."""
        with body_log.open("a") as log:
            log.write(f"{os.getpid()} {path}\n")
        if hang:
            say("running")
            await asyncio.Event().wait()
        return f"wrote {path}"

    async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("writes") if exec.name == "write_file" else await next()

    ctx.tools.register(write_file)
    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, DeferringApprovalService())
    agent = Agent(ctx, name="writer", id=AGENT_ID)
    tools = ctx.tools
    try:
        if command == "park":
            result = await tools.execute(ToolExecutionInput(argument or "c1", "write_file", {"path": "a.txt"}, agent))
            meta = thaw_json(result.meta)
            say(meta.get("approvalId") if isinstance(meta, dict) else None)
        elif command in ("resume", "hang"):
            try:
                result = await tools.resume(argument or "", "allowed-once" if command == "hang" else None)
                say([result.outcome, result.text])
            except (KeyError, LookupError) as error:
                say(["raised", type(error).__name__])
        elif command == "decided":
            say([[r.outcome, r.text] for r in await tools.resume_decided(agent)])
        elif command == "watch":
            wanted = int(argument or "1")
            say("ready")
            seen = []
            async for result in tools.watch_decisions(agent, poll_seconds=0.05):
                seen.append([result.outcome, result.text])
                if len(seen) >= wanted:
                    break
            say(seen)
    finally:
        await tools.store.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
