"""``dsh-tools log --store URL [--agent ID] [--tool NAME] [--errors] [--limit N] [--json]``: read the call journal."""

from __future__ import annotations

import argparse
import asyncio
import datetime

import orjson

from dsh_tools.cli.errors import CliError
from dsh_tools.cli.store_access import opened_store
from dsh_tools.store import MAX_JOURNAL_LIMIT, CallRecord, StoreError

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_JOURNAL_LIMIT:
        raise CliError(f"--limit takes 1 to {MAX_JOURNAL_LIMIT}")
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    async with opened_store(args.store) as store:
        try:
            records = await store.journal(
                agent_id=args.agent, tool_name=args.tool, is_error=True if args.errors else None, limit=args.limit
            )
        except StoreError as error:
            raise CliError(str(error)) from None
    for record in records:
        print(orjson.dumps(record.to_json()).decode() if args.json else _line(record))
    return 0


def _line(record: CallRecord) -> str:
    when = datetime.datetime.fromtimestamp(record.started_at).strftime("%Y-%m-%d %H:%M:%S")
    took = "" if record.ended_at is None else f" {1000 * (record.ended_at - record.started_at):.0f}ms"
    parent = f" (in {record.parent_call_id})" if record.parent_call_id else ""
    agent = record.agent_id or "-"
    return f"{when} {record.outcome:<17} {record.tool_name} {record.call_id}{parent} agent {agent}{took}"
