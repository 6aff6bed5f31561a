"""``dsh-tools approvals --store URL list|approve ID|reject ID|watch|rules|forget RULE_ID``: parked calls from a shell.

It only records decisions (``store.decide``); the agent's own process runs
the call (``resume_decided`` or ``watch_decisions``), so a decision made here
is safe whatever machine the agent is on. ``watch`` prints the store's
approval log as JSON lines (``{"event": "parked" | "decided" | "settled",
"approvalId", "agentId", "toolName", "at", ...}``) until interrupted, ready to
pipe into a notifier.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

import orjson

from dsh_tools.approval import ApprovalVerdict
from dsh_tools.cli.errors import CliError
from dsh_tools.cli.store_access import store_session
from dsh_tools.json_values import thaw_json
from dsh_tools.store import ApprovalLog, CallStore, ParkedCall, RuleStore

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(args))
    except KeyboardInterrupt:
        if args.action == "watch":
            return 0  # watching ends when interrupted: that is how it is stopped
        raise


async def _run(args: argparse.Namespace) -> int:
    async with store_session(args.store) as store:  # a store that fails is one clean line (store_access)
        if args.action == "list":
            _list(await store.parked(), as_json=args.json)
            return 0
        if args.action == "watch":
            return await _watch(store, args)
        if args.action in ("rules", "forget"):
            return await _rules(store, args)
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
                "expiresAt": call.expires_at,
                "parentCallId": call.parent_call_id,
            }
            print(orjson.dumps(row).decode())
        else:
            waited = max(0, int(now - call.created_at))
            reason = f" ({call.reason})" if call.reason else ""
            expires = f", expires in {max(0, int(call.expires_at - now))}s" if call.expires_at is not None else ""
            print(f"{call.approval_id}  {call.tool_name}{reason}  agent {call.agent_name} [{call.agent_id}]  waiting {waited}s{expires}")
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
        decision = await store.decide(
            args.approval_id, outcome, arguments=arguments, decided_by=args.by, message=args.message,
            remember="agent" if args.remember else None,
        )
    except KeyError:
        raise CliError(f"no undecided parked call {args.approval_id!r} (unknown, decided, or expired)") from None
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None
    remembered = f"; remembered as rule {decision.rule_id}" if decision.rule_id is not None else ""
    print(f"{decision.approval_id}: {decision.outcome}{remembered} (the agent's process runs it)")
    return 0


async def _watch(store: CallStore, args: argparse.Namespace) -> int:
    """Print each approval event as one JSON line as it is logged (flushed: a pipe reads it at once)."""
    if not isinstance(store, ApprovalLog):
        raise CliError(f"this store ({type(store).__name__}) keeps no approval log to watch")
    if not args.poll > 0:
        raise CliError("--poll takes a number of seconds above 0")
    after = 0
    if not args.from_start:
        while batch := await store.approval_events(after):  # skip what is already logged
            after = batch[-1].seq
    while True:
        await store.expire()  # a call past its time settles now, and is printed like any settlement
        for event in await store.approval_events(after):
            after = event.seq
            sys.stdout.write(orjson.dumps(event.wire()).decode() + "\n")
        sys.stdout.flush()
        await asyncio.sleep(args.poll)


async def _rules(store: CallStore, args: argparse.Namespace) -> int:
    if not isinstance(store, RuleStore):
        raise CliError(f"this store ({type(store).__name__}) keeps no rules")
    if args.action == "forget":
        try:
            await store.forget_rule(args.rule_id)
        except KeyError:
            raise CliError(f"no rule {args.rule_id!r}") from None
        print(f"{args.rule_id}: forgotten (the next call of its tool asks again)")
        return 0
    for rule in await store.rules(args.agent):
        print(orjson.dumps(rule.to_json()).decode())
    return 0
