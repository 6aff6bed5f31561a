"""The budget watchdog: one thread that polls every live run's process and kills on a breach.

It runs beside the event loop, not on it: a binding call whose arguments take
seconds to process, or any other code that holds the loop, cannot hold off a
kill. Each poll reads ``/proc/<pid>/stat`` once (CPU time and resident memory)
and compares the wall clock; the first budget exceeded SIGKILLs the process
group from this thread, then tells the run on its loop why
(``call_soon_threadsafe``). The kernel's ``RLIMIT_CPU`` set at spawn is the
backstop behind this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Final

from dsh_tools.code_mode.deno._process import SandboxProcess
from dsh_tools.code_mode.runtime import FailureKind

__all__ = ["Breach", "Watch", "Watchdog", "compute_exceeded"]

Breach = Callable[[FailureKind, str], None]
_MAX_INTERVAL_S: Final = 0.02
_MIN_INTERVAL_S: Final = 0.005


def compute_exceeded(cpu_ms: int) -> str:
    """The ``timeout`` message of a run past its CPU budget, whichever guard (this one, the kernel's) ended it."""
    return f"compute budget exceeded: the program used more than {cpu_ms} ms of CPU time"


class Watch:
    """One run under watch: its process, budgets, start and whom to tell."""

    __slots__ = ("process", "loop", "on_breach", "cpu_ms", "max_rss", "deadline", "wall_ms", "base_cpu", "verdict")

    def __init__(self, process: SandboxProcess, *, cpu_ms: int, wall_ms: int, max_rss: int, on_breach: Breach) -> None:
        self.process = process
        self.loop = asyncio.get_running_loop()
        self.on_breach = on_breach
        self.cpu_ms = cpu_ms
        self.wall_ms = wall_ms
        self.max_rss = max_rss
        self.deadline = time.monotonic() + wall_ms / 1000
        usage = process.usage()
        self.base_cpu = usage[0] if usage is not None else 0.0
        self.verdict: tuple[FailureKind, str] | None = None
        """Set (before the kill) once a budget is exceeded: the run's outcome, whatever it sees next."""

    def check(self, now: float) -> tuple[FailureKind, str] | None:
        if now > self.deadline:
            return "timeout", f"wall-clock budget exceeded: the program ran longer than {self.wall_ms} ms"
        usage = self.process.usage()
        if usage is None:
            return None
        cpu, rss = usage
        if cpu - self.base_cpu > self.cpu_ms:
            return "timeout", compute_exceeded(self.cpu_ms)
        if rss > self.max_rss:
            return "worker-exit", f"the Deno process was killed: its memory exceeded {self.max_rss >> 20} MB"
        return None


class Watchdog:
    """A lazily started daemon thread; idle (blocked, no polling) while nothing is watched."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watches: set[Watch] = set()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def watch(self, watch: Watch) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the watchdog is closed")
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="dsh-deno-watchdog", daemon=True)
                self._thread.start()
        self._wake.set()

    def unwatch(self, watch: Watch) -> None:
        """After this returns the thread never touches ``watch``'s process again (safe to reap)."""
        with self._lock:
            self._watches.discard(watch)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._watches.clear()
            thread, self._thread = self._thread, None
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1)

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                now = time.monotonic()
                for watch in list(self._watches):
                    verdict = None if watch.verdict is not None else watch.check(now)
                    if verdict is not None:
                        watch.verdict = verdict
                        watch.process.kill()  # from here: the loop may be busy
                        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody to tell
                            watch.loop.call_soon_threadsafe(watch.on_breach, *verdict)
                idle = not self._watches
                interval = min((max(_MIN_INTERVAL_S, min(_MAX_INTERVAL_S, w.cpu_ms / 20_000)) for w in self._watches),
                               default=_MAX_INTERVAL_S)
            if idle:
                self._wake.wait()
                self._wake.clear()
            else:
                time.sleep(interval)
