"""The tools the queue tests' workers (and callers) load: bodies that write what they did to a log.

Every body appends one line per event to ``$DSH_QUEUE_LOG/bodies.log``:
``<event> <call_id> <idempotency_key> <pid> <unix time>`` (small appends are
atomic, so workers in several processes share the file). The tests read
which worker ran what, how often, and when.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from dsh_tools import Context, ToolDefinition, ToolExecution, tool


def log_file() -> Path:
    """The workers' shared log (a caller running a body itself, in a result comparison, writes to the temp folder)."""
    return Path(os.environ.get("DSH_QUEUE_LOG", tempfile.gettempdir())) / "bodies.log"


def write(event: str, exec: ToolExecution) -> None:
    line = f"{event} {exec.call_id} {exec.idempotency_key} {os.getpid()} {time.time():.6f}\n"
    with open(log_file(), "a", encoding="utf-8") as log:
        log.write(line)


@tool(idempotent=True)
async def record(n: int, exec: ToolExecution) -> str:
    """Record that it ran."""
    write("body", exec)
    return f"recorded {n}"


@tool
async def hold(ms: int, exec: ToolExecution) -> str:
    """Hold for ms milliseconds (not idempotent)."""
    write("start", exec)
    await asyncio.sleep(ms / 1000)
    write("end", exec)
    return f"held {ms}"


def started_before(key: str) -> bool:
    path = log_file()
    return path.exists() and any(line.split()[:1] == ["start"] and line.split()[2] == key for line in path.read_text().splitlines())


@tool(idempotent=True)
async def hold_again(ms: int, exec: ToolExecution) -> str:
    """Hold for ms milliseconds the first time (idempotent: a rerun with the same key returns at once)."""
    again = started_before(exec.idempotency_key)
    write("start", exec)
    if not again:
        await asyncio.sleep(ms / 1000)
    write("end", exec)
    return f"held again {ms}"


@tool
async def echo(text: str) -> str:
    """Return the text."""
    return text


@tool
async def big(size: int) -> str:
    """Return size characters."""
    return "x" * size


@tool(needs_approval=True)
async def gated(note: str, exec: ToolExecution) -> str:
    """Run only once a human approved it."""
    write("gated", exec)
    return f"gated {note}"


TOOLS: list[ToolDefinition] = [record, hold, hold_again, echo, big, gated]


def register(ctx: Context) -> None:
    for definition in TOOLS:
        ctx.tools.register(definition)
