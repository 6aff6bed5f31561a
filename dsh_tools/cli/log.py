"""``dsh-tools log --store URL [--agent ID] [--tool NAME] [--errors] [--limit N] [--json]``: read the call journal.

Text is one line per call, newest last, and a line saying so when nothing
matches (an empty store looked like a hung command). ``--json`` is JSON
Lines, one record per line, so a journal with nothing to show prints
nothing: every line a reader gets is a record.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime

import orjson

from dsh_tools.cli.errors import CliError
from dsh_tools.cli.store_access import store_session
from dsh_tools.store import MAX_JOURNAL_LIMIT, CallRecord

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_JOURNAL_LIMIT:
        raise CliError(f"--limit takes 1 to {MAX_JOURNAL_LIMIT}")
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    async with store_session(args.store) as store:  # a store that fails is one clean line (store_access)
        records = await store.journal(
            agent_id=args.agent, tool_name=args.tool, is_error=True if args.errors else None, limit=args.limit
        )
    for record in records:
        print(orjson.dumps(record.to_json()).decode() if args.json else _line(record))
    if not records and not args.json:
        filtered = args.agent is not None or args.tool is not None or args.errors
        print("no recorded calls match these filters" if filtered else "no calls recorded")
    return 0


def _line(record: CallRecord) -> str:
    when = datetime.datetime.fromtimestamp(record.started_at).strftime("%Y-%m-%d %H:%M:%S")
    took = "" if record.ended_at is None else f" {1000 * (record.ended_at - record.started_at):.0f}ms"
    parent = f" (in {record.parent_call_id})" if record.parent_call_id else ""
    agent = record.agent_id or "-"
    decided = f" by {record.decided_by}" if record.decided_by else ""
    rule = f" (rule {record.approval_rule})" if record.approval_rule else ""
    said = f": {record.decision_message}" if record.decision_message else ""
    return f"{when} {record.outcome:<17} {record.tool_name} {record.call_id}{parent} agent {agent}{took}{decided}{rule}{said}"
