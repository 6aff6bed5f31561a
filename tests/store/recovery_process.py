"""A process killed mid-call, for the recovery tests: ``python recovery_process.py STORE_URL TOOL CALL_ID``.

It boots a registry on the shared store (lease ``LEASE`` seconds), registers
``charge`` (not idempotent) and ``refund`` (idempotent), and runs one call of
``TOOL`` as agent ``shop-1``. The body appends its idempotency key to
``BODY_LOG``, prints ``started`` and then blocks until the test kills the
process. A recovering process registers the same tools with bodies that
return at once (:func:`tools`).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from typing import Any

from dsh_tools import Agent, Context, FunctionTool, ToolExecution, ToolExecutionInput, boot, tool

AGENT_ID = "shop-1"


def tools(body_log: Path, *, block: bool) -> list[FunctionTool[Any]]:
    """``charge`` and ``refund``; each body logs ``<name> <key>`` and, when ``block``, waits for ever."""

    async def run(name: str, exec: ToolExecution) -> str:
        with body_log.open("a") as log:
            log.write(f"{name} {exec.idempotency_key}\n")
        if block:
            print("started", flush=True)
            await asyncio.Event().wait()
        return f"{name} done"

    @tool
    async def charge(cents: int, exec: ToolExecution) -> str:
        """Charge a card."""
        return await run("charge", exec)

    @tool(idempotent=True)
    async def refund(cents: int, exec: ToolExecution) -> str:
        """Refund a charge."""
        return await run("refund", exec)

    return [charge, refund]


def app(url: str, body_log: Path, *, block: bool, lease: float) -> tuple[Context, Agent]:
    ctx = boot(store=url, lease_seconds=lease)
    for made in tools(body_log, block=block):
        ctx.tools.register(made)
    return ctx, Agent(ctx, name="shop", id=AGENT_ID)


async def main(url: str, name: str, call_id: str) -> None:
    ctx, agent = app(url, Path(os.environ["BODY_LOG"]), block=True, lease=float(os.environ.get("LEASE", "0.3")))
    await ctx.tools.execute(ToolExecutionInput(call_id, name, {"cents": 5}, agent))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
