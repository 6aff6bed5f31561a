"""Pre-started sandbox processes, so a run does not wait for Deno to start.

Every process in the pool has only loaded the harness and read its hello: no
program has run in it, and each is handed to exactly one run and then killed.
Taking one tops the pool up again in the background, so runs that come back to
back, or several at once, find a loaded process instead of paying start-up
(about 30 ms of CPU each) on their critical path.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable

from dsh_tools.code_mode.deno._process import SandboxProcess

__all__ = ["ProcessPool"]


class ProcessPool:
    """At most ``size`` processes starting or waiting; :meth:`take` hands out the readiest."""

    def __init__(self, spawn: Callable[[], Awaitable[SandboxProcess]], size: int) -> None:
        self._spawn = spawn
        self._size = size
        self._waiting: deque[asyncio.Task[SandboxProcess]] = deque()

    def fill(self) -> None:
        """Start processes until ``size`` are starting or waiting (needs a running loop)."""
        loop = asyncio.get_running_loop()
        for task in [t for t in self._waiting if t.get_loop() is not loop]:
            self._waiting.remove(task)  # started on a loop that is gone: the runtime retires it
        while len(self._waiting) < self._size:
            self._waiting.append(asyncio.ensure_future(self._spawn()))

    async def take(self) -> SandboxProcess:
        """A loaded process for one run: a ready one if any, else the oldest starting, else a new one."""
        loop = asyncio.get_running_loop()
        while True:
            task = self._pick(loop)
            if task is None:
                process = await self._spawn()
                break
            try:
                process = await asyncio.shield(task)
            except asyncio.CancelledError:
                if not task.done():
                    self._waiting.appendleft(task)  # still useful to the next run
                raise
            except Exception:  # noqa: BLE001 - a failed start: try the next one
                continue
            if process.alive:
                break
        self.fill()
        return process

    def _pick(self, loop: asyncio.AbstractEventLoop) -> asyncio.Task[SandboxProcess] | None:
        ours = [t for t in self._waiting if t.get_loop() is loop]
        if not ours:
            return None
        ready = next((t for t in ours if t.done()), ours[0])
        self._waiting.remove(ready)
        return ready

    async def ready(self) -> None:
        """Wait until every process now starting has loaded (or failed to)."""
        await asyncio.gather(*self._waiting, return_exceptions=True)

    async def drain(self) -> list[SandboxProcess]:
        """Stop topping up; the processes that were waiting (the caller retires them)."""
        self._size = 0
        tasks, self._waiting = list(self._waiting), deque()
        processes = []
        for task in tasks:
            if task.get_loop() is not asyncio.get_running_loop():
                continue
            with contextlib.suppress(Exception):
                processes.append(await task)
        return processes
