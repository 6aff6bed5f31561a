"""``dsh-tools recover --store URL [--agent ID]``: settle what stopped processes left running, from a shell.

For agents that no longer exist (a process holding the agent settles its
own with ``await ctx.tools.recover(agent)``, which runs an idempotent call
again): every interrupted call, or one agent's, is settled
``TOOL_OUTCOME_UNKNOWN`` by ``store.settle_interrupted``; nothing runs. One
line per call settled.
"""

from __future__ import annotations

import argparse
import asyncio

from dsh_tools.cli.store_access import store_session

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    async with store_session(args.store) as store:
        calls = [c for c in await store.interrupted() if args.agent is None or c.agent_id == args.agent]
        settled = 0
        for call in calls:
            try:
                records = await store.settle_interrupted(call.call_id, decided_by=args.by)
            except KeyError:
                continue  # another process settled it first
            for record in records:
                settled += 1
                print(f"{record.call_id}  {record.tool_name}  agent {record.agent_id}  settled unknown")
        if not settled:
            print("no interrupted calls" + (f" of agent {args.agent}" if args.agent is not None else ""))
    return 0
