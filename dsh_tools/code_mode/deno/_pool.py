"""Pre-started sandbox processes, so a run does not wait for Deno to start, and the cap on them.

Every process in the pool has only loaded the harness and read its hello: no
program has run in it, and each is handed to exactly one run and then killed.
Taking one tops the pool up again in the background, so runs that come back to
back, or several at once, find a loaded process instead of paying start-up
(about 30 ms of CPU each) on their critical path.

The pool also owns the runtime's process *slots* (:class:`~dsh_tools.code_mode.slots.Slots`,
the rule the Monty runtime follows too): at most ``max_processes`` processes
exist at once (starting, waiting in the pool, or running a program; each
costs a V8 heap). A run that finds every slot taken queues for the next one
to be released, in arrival order; past ``max_waiting`` queued runs,
:meth:`ProcessPool.take` raises ``CodeRuntimeBusyError`` at once. Topping
the pool up never takes a slot a queued run is waiting for.

A pooled process can die while it waits (the OOM killer, a stray ``kill
-9``). :meth:`take` checks the kernel's view of it (``/proc``: a zombie, or
a SIGKILL still pending, which is how a just-killed process reads for some
milliseconds), not only asyncio's, which learns of the death a loop turn or
more later, so a dead process is retired and never handed to a run to be
blamed on its program. A kill after this check is the runtime's to notice:
the process dies before it acknowledges its program, and the run goes to
another one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable

from dsh_tools.code_mode.deno._process import SandboxProcess
from dsh_tools.code_mode.slots import Slots

__all__ = ["ProcessPool"]


class ProcessPool:
    """At most ``size`` processes starting or waiting, ``cap`` in all; :meth:`take` hands out the readiest.

    ``spawn`` starts a loaded process or raises, leaving no process behind;
    ``retire`` kills and reaps one the pool will not hand out (it died). The
    owner calls :meth:`release` once a process it took is gone.
    """

    def __init__(
        self,
        spawn: Callable[[], Awaitable[SandboxProcess]],
        retire: Callable[[SandboxProcess], Awaitable[None]],
        *,
        size: int,
        cap: int,
        max_waiting: int,
    ) -> None:
        self._spawn = spawn
        self._retire = retire
        self._size = min(size, cap)
        self._slots = Slots(cap, max_waiting)  # one per process starting, waiting here, or running
        self._waiting: deque[asyncio.Task[SandboxProcess]] = deque()
        self._held: set[SandboxProcess] = set()

    @property
    def queued(self) -> int:
        """Runs waiting for a process slot right now."""
        return self._slots.queued

    def fill(self) -> None:
        """Start processes until ``size`` are starting or waiting, within the cap (needs a running loop)."""
        loop = asyncio.get_running_loop()
        for task in [t for t in self._waiting if t.get_loop() is not loop]:
            self._waiting.remove(task)  # started on a loop that is gone: the runtime retires it
        while len(self._waiting) < self._size and self._slots.try_take():
            self._waiting.append(asyncio.ensure_future(self._start()))

    async def _start(self) -> SandboxProcess:
        """Spawn in a slot already taken: held once started, given back if the start fails."""
        try:
            process = await self._spawn()
        except BaseException:
            self._hand_on()
            raise
        self._held.add(process)
        return process

    def release(self, process: SandboxProcess) -> None:
        """``process`` is gone: its slot goes to the first queued run, else tops the pool up (idempotent)."""
        if process not in self._held:
            return
        self._held.discard(process)
        self._hand_on()

    def _hand_on(self) -> None:
        if self._slots.give_back():
            return
        with contextlib.suppress(RuntimeError):  # no running loop (a finalizer): nothing to top up
            self.fill()

    async def take(self) -> SandboxProcess:
        """A loaded, living process for one run: a ready one, else the oldest starting, else a new one.

        With every slot taken it waits for one (``CodeRuntimeBusyError`` past ``max_waiting``).
        """
        loop = asyncio.get_running_loop()
        while True:
            task = self._pick(loop)
            if task is None:
                await self._slots.take()
                process = await self._start()
            else:
                try:
                    process = await asyncio.shield(task)
                except asyncio.CancelledError:
                    if not task.done():
                        self._waiting.appendleft(task)  # still useful to the next run
                    raise
                except Exception:  # noqa: BLE001 - a failed start: try the next one
                    continue
            if process.running():
                break
            await self._retire(process)  # died while it waited: never blamed on a program
            self.release(process)
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
        """Stop topping up and fail queued runs; the processes that were waiting (the caller retires them)."""
        self._size = 0
        self._slots.close("the code runtime is being disposed")
        tasks, self._waiting = list(self._waiting), deque()
        processes = []
        for task in tasks:
            if task.get_loop() is not asyncio.get_running_loop():
                continue
            with contextlib.suppress(Exception):
                processes.append(await task)
        return processes
