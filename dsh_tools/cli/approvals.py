"""``dsh-tools approvals --store URL list|approve ID|reject ID``: decide parked calls from a shell.

It only records decisions (``store.decide``); the agent's own process runs
the call (``resume_decided`` or ``watch_decisions``), so a decision made here
is safe whatever machine the agent is on.
"""

from __future__ import annotations

import argparse
import asyncio
import time

import orjson

from dsh_tools.approval import ApprovalVerdict

from dsh_tools.cli.errors import CliError
from dsh_tools.cli.store_access import store_session
from dsh_tools.json_values import thaw_json
from dsh_tools.store import CallStore, ParkedCall

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    async with store_session(args.store) as store:  # a store that fails is one clean line (store_access)
        if args.action == "list":
            _list(await store.parked(), as_json=args.json)
            return 0
        return await _decide(store, args)


def _list(parked: list[ParkedCall], *, as_json: bool) -> None:
    now = time.time()
    for call in parked:
        arguments = thaw_json(call.arguments)
        if as_json:
            row = {
                "approvalId": call.approval_id,
                "agentId": call.agent_id,
                "agentName": call.agent_name,
                "tool": call.tool_name,
                "arguments": arguments,
                "reason": call.reason,
                "createdAt": call.created_at,
                "parentCallId": call.parent_call_id,
            }
            print(orjson.dumps(row).decode())
        else:
            waited = max(0, int(now - call.created_at))
            reason = f" ({call.reason})" if call.reason else ""
            print(f"{call.approval_id}  {call.tool_name}{reason}  agent {call.agent_name} [{call.agent_id}]  waiting {waited}s")
            print(f"    {orjson.dumps(arguments).decode()[:200]}")
    if not parked and not as_json:
        print("no parked calls are waiting")


async def _decide(store: CallStore, args: argparse.Namespace) -> int:
    arguments = None
    if getattr(args, "arguments", None) is not None:
        try:
            arguments = orjson.loads(args.arguments)
        except orjson.JSONDecodeError as error:
            raise CliError(f"--arguments is not JSON: {error}") from None
    outcome: ApprovalVerdict = "allowed-once" if args.action == "approve" else "rejected"
    try:
        decision = await store.decide(args.approval_id, outcome, arguments=arguments, decided_by=args.by)
    except KeyError:
        raise CliError(f"no undecided parked call {args.approval_id!r}") from None
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None
    print(f"{decision.approval_id}: {decision.outcome} (the agent's process runs it)")
    return 0
