"""Worker processes for the queue tests: real ``dsh-tools worker`` subprocesses, always cleaned up.

Nothing here sleeps to synchronise: a worker is ready when it prints its
serving line, and every wait has a deadline. :class:`Cluster` owns its
processes; its ``close`` kills whatever still runs.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).parent
READY_SECONDS: Final = 90.0


class Worker:
    """One ``dsh-tools worker`` process serving ``queue`` under ``executor_id``."""

    def __init__(self, store_url: str, queue: str, executor_id: str, log_dir: Path, modules: Sequence[str] = ("queue_tools",)) -> None:
        self.store_url, self.queue, self.executor_id, self.log_dir = store_url, queue, executor_id, log_dir
        self.modules = tuple(modules)
        self.process: subprocess.Popen[str] | None = None
        self.stderr_path = log_dir / f"worker-{executor_id.replace('/', '_')}.err"

    def start(self) -> Worker:
        env = {**os.environ, "DSH_QUEUE_LOG": str(self.log_dir), "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
        command = [
            sys.executable, "-m", "dsh_tools.cli", "worker", *self.modules, "--store", self.store_url, "--queue", self.queue,
            "--executor-id", self.executor_id, "--drain-seconds", "2",
        ]
        with open(self.stderr_path, "a", encoding="utf-8") as stderr:
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=env, text=True, cwd=HERE)
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def wait_ready(self, deadline: float) -> None:
        process = self.process
        assert process is not None and process.stdout is not None
        while True:
            remaining = deadline - time.monotonic()
            if process.poll() is not None or remaining <= 0:
                raise AssertionError(f"worker {self.executor_id} is not serving: {self.stderr_path.read_text()[-2000:]}")
            ready, _, _ = select.select([process.stdout], [], [], remaining)
            if ready and "serving queue" in process.stdout.readline():
                return

    def kill(self) -> None:
        """SIGKILL, as a lost machine: nothing is handed back."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def terminate(self, timeout: float = 60) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)

    def close(self) -> None:
        self.kill()
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()


class Cluster:
    """Workers serving one queue of one store; ``close`` ends them all."""

    def __init__(self, store_url: str, queue: str, log_dir: Path) -> None:
        self.store_url, self.queue, self.log_dir = store_url, queue, log_dir
        self.workers: list[Worker] = []

    def start(self, count: int, prefix: str = "w") -> list[Worker]:
        started = [Worker(self.store_url, self.queue, f"{prefix}{len(self.workers) + i}", self.log_dir).start() for i in range(count)]
        self.workers.extend(started)
        deadline = time.monotonic() + READY_SECONDS
        for worker in started:
            worker.wait_ready(deadline)
        return started

    def restart(self, worker: Worker) -> Worker:
        """A new process under ``worker``'s executor id (as a supervisor restarts it)."""
        worker.close()
        again = Worker(self.store_url, self.queue, worker.executor_id, self.log_dir).start()
        again.wait_ready(time.monotonic() + READY_SECONDS)
        self.workers[self.workers.index(worker)] = again
        return again

    def by_pid(self, pid: int) -> Worker:
        return next(worker for worker in self.workers if worker.process is not None and worker.pid == pid)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


def log_lines(log_dir: Path) -> list[list[str]]:
    """The bodies' log, one split line each (``event call_id key pid time``)."""
    path = log_dir / "bodies.log"
    if not path.exists():
        return []
    return [line.split() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``condition`` (every 20 ms) until it holds; ``AssertionError`` naming ``what`` after ``seconds``."""
    import asyncio

    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)
