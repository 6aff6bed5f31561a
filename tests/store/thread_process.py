"""One agent process of the thread tests: ``python thread_process.py STORE_URL COMMAND [ARG...]``.

Every process boots its own deferring registry on the shared store, with the
same tools and agent id: ``refund`` (needs approval; its description can be
changed with ``REFUND_DESCRIPTION``, which changes its fingerprint), ``look``,
and ``hang`` (not idempotent; blocks for ever once started, after printing
``"running"``). ``BODY_LOG`` gets a line each time a body runs.

Commands print JSON lines; the last is the answer:

* ``turn TEXT CALLS_JSON``: append TEXT (unless empty) to thread ``chat-1``
  and run one chat turn whose reply calls CALLS_JSON (``[[id, tool, args]]``);
  the thread's status.
* ``resume``: ``resume_decided`` the agent, then the thread's messages.
* ``recover``: ``recover`` the agent, then the thread's messages.
* ``append TEXT BARRIER``: open the thread, print ``ready``, wait for the file
  BARRIER, append TEXT; on a conflict print ``conflict``, open again and
  append; ``won`` or ``retried``.
* ``call ID``: one ``refund`` call outside any thread; its outcome and text.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import orjson

from dsh_tools import Agent, ToolExecution, ToolExecutionInput, boot, tool
from dsh_tools.adapters.openai import run_chat_turn
from dsh_tools.threads import ThreadConflictError, open_thread

AGENT_ID = "support-1"
THREAD = "chat-1"


def say(value: object) -> None:
    print(orjson.dumps(value).decode(), flush=True)


def logged(line: str) -> None:
    with Path(os.environ["BODY_LOG"]).open("a") as log:
        log.write(f"{os.getpid()} {line}\n")


@tool(needs_approval=True)
async def refund(order: str) -> str:
    """Refund an order."""
    logged(f"refund {order}")
    return f"refunded {order}"


@tool
async def look(order: str) -> str:
    """Look an order up."""
    return f"order {order}: shipped"


@tool
async def hang(order: str, exec: ToolExecution) -> str:
    """Block for ever."""
    logged(f"hang {order}")
    say("running")
    await asyncio.Event().wait()
    return "never"


def completion(calls: list[list[object]]) -> dict[str, object]:
    tool_calls = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": orjson.dumps(arguments).decode()}}
        for call_id, name, arguments in calls
    ]
    message: dict[str, object] = {"role": "assistant", "content": None if tool_calls else "Done."}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}]}


async def main(url: str, command: str, *arguments: str) -> None:
    ctx = boot(store=url, approval="defer", lease_seconds=float(os.environ.get("LEASE", "30")))
    description = os.environ.get("REFUND_DESCRIPTION")
    ctx.tools.register(refund if description is None else refund.set(description=description))
    ctx.tools.register(look)
    ctx.tools.register(hang)
    agent = Agent(ctx, name="support", id=AGENT_ID)
    store = ctx.tools.store
    try:
        if command == "turn":
            text, calls = arguments
            thread = await open_thread(store, THREAD)
            if text:
                thread = await thread.append({"role": "user", "content": text})
            thread = await run_chat_turn(ctx, thread, completion(orjson.loads(calls)), agent=agent)
            say([thread.status, list(thread.pending_calls), len(thread.waiting_on)])
        elif command in ("resume", "recover"):
            results = await (ctx.tools.resume_decided(agent) if command == "resume" else ctx.tools.recover(agent))
            thread = await open_thread(store, THREAD)
            say({"results": [[r.outcome, r.text] for r in results], "status": thread.status,
                 "messages": thread.chat_messages()})
        elif command == "append":
            text, barrier = arguments
            thread = await open_thread(store, THREAD)
            say("ready")
            while not Path(barrier).exists():
                await asyncio.sleep(0.001)
            try:
                await thread.append({"role": "user", "content": text})
                say("won")
            except ThreadConflictError:
                say("conflict")
                await (await open_thread(store, THREAD)).append({"role": "user", "content": text})
                say("retried")
        elif command == "call":
            result = await ctx.tools.execute(ToolExecutionInput(arguments[0], "refund", {"order": "9"}, agent))
            say([result.outcome, result.text])
    finally:
        await store.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], *sys.argv[3:]))
