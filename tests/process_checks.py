"""Leak checks shared by the suites: child processes and asyncio tasks a test may have left behind."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any


def child_pids() -> set[int]:
    """Live (non-zombie) child processes of this process, from /proc."""
    pids: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            pids.update(int(pid) for pid in (task / "children").read_text().split())
        except OSError:
            continue
    live = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            live.add(pid)
    return live


def our_tasks() -> list[asyncio.Task[Any]]:
    """Pending tasks other than the current one that run dsh_tools or mcp client code."""
    current = asyncio.current_task()
    found = []
    for task in asyncio.all_tasks():
        if task is current or task.done():
            continue
        coro = task.get_coro()
        filename = getattr(getattr(coro, "cr_code", None), "co_filename", "")
        if "dsh_tools" in filename or "/mcp/client/" in filename or "/mcp/shared/" in filename:
            found.append(task)
    return found
