"""One sandbox process: spawn it permission-less, read its CPU and memory, kill it.

Each process runs exactly one program and is then killed. It is started in its
own session (so SIGKILL of its process group leaves nothing behind), with an
empty environment except what Deno needs (the runtime's private ``DENO_DIR``,
no colour, no update check), inside that private directory, with no
``--allow-*`` flag, the V8 old space capped, and a kernel CPU-time limit
(``RLIMIT_CPU``) as a backstop that holds even if the host stops watching. It
is spawned *before* its run (the runtime keeps a small pool of them), so
start-up cost is off the critical path: the harness loads and then waits for
its program on stdin. The bounds of a run live here too, in their two
halves: :class:`Limits`, which the harness applies first (to spare the pipe),
and :class:`Budgets`, which the host applies whatever the harness does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import resource
import shutil
import signal
from functools import cache
from pathlib import Path
from typing import Final

import deno
import orjson

from dsh_tools.code_mode.deno._frames import new_secret

__all__ = ["Budgets", "Limits", "SandboxProcess", "prepare_sandbox_dir"]

_HERE: Final = Path(__file__).resolve().parent
_CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK")
_PAGE: Final = os.sysconf("SC_PAGE_SIZE")
_HARNESS: Final = "harness.js"
_SQLITE_CACHES: Final = ("dep_analysis_cache_v2", "node_analysis_cache_v2", "v8_code_cache_v2")
"""Deno's SQLite caches in ``DENO_DIR``; the dependency analysis one keeps every import specifier of every module."""
_SIGKILL_BIT: Final = 1 << (signal.SIGKILL - 1)
"""SIGKILL in the pending-signal masks of ``/proc/<pid>/status``."""


class Limits:
    """The per-run limits the harness applies on its side (the host applies them again)."""

    __slots__ = ("max_log", "max_value", "max_args", "max_values", "max_calls", "max_queued", "heap_mb", "cpu_s")

    def __init__(
        self,
        *,
        max_log: int,
        max_value: int,
        max_args: int,
        max_values: int,
        max_calls: int,
        max_queued: int,
        heap_mb: int,
        cpu_s: int,
    ) -> None:
        self.max_values = max_values
        self.max_log = max_log
        self.max_value = max_value
        self.max_args = max_args
        self.max_calls = max_calls
        self.max_queued = max_queued
        self.heap_mb = heap_mb
        self.cpu_s = cpu_s

    def to_json(self) -> dict[str, int]:
        return {
            "maxLog": self.max_log,
            "maxValue": self.max_value,
            "maxArgs": self.max_args,
            "maxValues": self.max_values,
            "maxCalls": self.max_calls,
            "maxQueued": self.max_queued,
        }


class Budgets:
    """What the host enforces for each run (the harness applies the same bounds first)."""

    __slots__ = (
        "compute_ms",
        "wall_ms",
        "max_log",
        "max_value",
        "max_frame",
        "max_rss",
        "max_args",
        "max_values",
        "max_calls",
        "max_queued",
    )

    def __init__(
        self,
        *,
        compute_ms: int,
        wall_ms: int,
        max_log: int,
        max_value: int,
        max_rss: int,
        max_args: int,
        max_values: int,
        max_calls: int,
        max_queued: int,
    ) -> None:
        self.max_values = max_values
        self.compute_ms = compute_ms
        self.wall_ms = wall_ms
        self.max_log = max_log
        self.max_value = max_value
        self.max_rss = max_rss
        self.max_args = max_args
        self.max_calls = max_calls
        self.max_queued = max_queued
        # Any frame a faithful harness writes fits (a call's arguments travel as a JSON
        # string: at most twice their bytes; logs and values at most 8 bytes a character).
        self.max_frame = 2 * max_args + 8 * (max_log + max_value) + 65_536


def prepare_sandbox_dir(path: str) -> None:
    """Fill a fresh private directory: the harness (so nothing the program can
    see names the install path), a *file* where Deno would keep web storage
    and the Cache API, so neither can ever be created there, and a directory
    where each of Deno's SQLite caches would go, so none can be opened (Deno
    then works without it, silently). The transpile and code caches are
    switched off at spawn; all of these would otherwise keep, for every later
    run, whatever the modules a program makes up of its own hold."""
    shutil.copyfile(_HERE / _HARNESS, os.path.join(path, _HARNESS))
    Path(path, "location_data").write_bytes(b"")
    for name in _SQLITE_CACHES:
        blocker = Path(path, name)
        blocker.mkdir()
        (blocker / "not-a-database").write_bytes(b"")  # non-empty: never removed to make room


class SandboxProcess:
    """A started (possibly still loading) harness process waiting for its program."""

    __slots__ = ("proc", "secret", "loop")

    def __init__(self, proc: asyncio.subprocess.Process, secret: str) -> None:
        self.proc = proc
        self.secret = secret
        self.loop = asyncio.get_running_loop()

    @classmethod
    async def spawn(cls, sandbox_dir: str, limits: Limits) -> SandboxProcess:
        env = {"DENO_DIR": sandbox_dir, "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1", "DENO_NO_PROMPT": "1",
               "DENO_EMIT_CACHE_MODE": "disable"}  # no transpiled program text kept on disk
        launcher = _launcher()
        if launcher is not None:
            env["PATH"] = os.path.dirname(_deno_bin())  # setpriv finds "deno" there (no --allow-env: unreadable)
        proc = await asyncio.create_subprocess_exec(
            *(launcher or ("deno",)),  # argv[0] "deno": the install path stays out of the sandbox's sight
            "run",
            "--quiet",
            "--no-prompt",
            "--no-remote",
            "--no-npm",
            "--no-config",
            "--no-lock",
            "--no-code-cache",  # nor V8's compiled code of it
            f"--v8-flags=--max-old-space-size={limits.heap_mb}",
            _HARNESS,
            executable=_deno_bin() if launcher is None else launcher[0],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=sandbox_dir,
            start_new_session=True,
        )
        with contextlib.suppress(OSError):  # a process already gone is reaped as usual
            resource.prlimit(proc.pid, resource.RLIMIT_CORE, (0, 0))
            resource.prlimit(proc.pid, resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        self = cls(proc, new_secret())
        hello = {"secret": self.secret, "limits": limits.to_json()}
        await self.send(orjson.dumps(hello))
        return self

    async def ready(self) -> None:
        """Wait for the harness's first frame (it has loaded and read its hello); raise if it died."""
        stdout = self.proc.stdout
        assert stdout is not None
        expected = b"\x1e" + self.secret.encode() + b'\x1f{"t":"ready"}\n'
        try:
            line = await stdout.readuntil(b"\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            line = b""
        if line != expected:
            await self.reap()
            raise RuntimeError("the Deno sandbox process did not start")

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None

    def running(self) -> bool:
        """Whether the process runs and will go on running, as the kernel sees it now.

        ``alive`` (asyncio's return code) lags a loop turn or more, and so
        does the process's state: ``kill()`` queues SIGKILL before it
        returns, but the process reads as running or sleeping until it is
        next scheduled to die, about 10 ms on a busy machine. So a pending
        SIGKILL counts as dead, as does a zombie or a pid that is gone.
        """
        if not self.alive:
            return False
        try:
            status = b"\n" + Path(f"/proc/{self.proc.pid}/status").read_bytes()
        except OSError:
            return False
        state, pending = _status_field(status, b"State:"), 0
        for name in (b"SigPnd:", b"ShdPnd:"):  # sent to the thread, and to the process
            with contextlib.suppress(ValueError):
                pending |= int(_status_field(status, name) or b"0", 16)
        return state[:1] not in (b"", b"Z", b"X", b"x") and not pending & _SIGKILL_BIT

    async def send(self, line: bytes) -> bool:
        """Write one line to the harness and wait for the pipe; ``False`` if the process is gone."""
        if not self.write(line):
            return False
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True

    def write(self, line: bytes) -> bool:
        """Queue one line for the harness without waiting; ``False`` if the process is gone."""
        stdin = self.proc.stdin
        if stdin is None or stdin.is_closing():
            return False
        try:
            stdin.write(line + b"\n")
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True

    def queued_bytes(self) -> int:
        """Bytes written to the harness that it has not read yet (the host side of the pipe)."""
        stdin = self.proc.stdin
        return 0 if stdin is None else stdin.transport.get_write_buffer_size()

    def kill(self) -> None:
        """SIGKILL the whole process group (idempotent; only while not yet reaped)."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    async def reap(self) -> int:
        """Kill, wait for the exit status and release the pipes."""
        self.kill()
        code = await self.proc.wait()
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        return code

    def usage(self) -> tuple[float, int] | None:
        """CPU time in ms (user + system, all threads) and resident bytes, from /proc."""
        try:
            raw = Path(f"/proc/{self.proc.pid}/stat").read_bytes()
        except OSError:
            return None
        # Fields after "(comm)"; comm may hold spaces or parentheses.
        fields = raw[raw.rfind(b")") + 2 :].split()
        try:
            return (int(fields[11]) + int(fields[12])) * 1000 / _CLOCK_TICKS, int(fields[21]) * _PAGE
        except (IndexError, ValueError):
            return None


def _status_field(status: bytes, name: bytes) -> bytes:
    """The value of one ``Name:\tvalue`` line of ``/proc/<pid>/status`` read after a newline (empty if missing)."""
    start = status.find(b"\n" + name)
    if start < 0:
        return b""
    start += len(name) + 1
    end = status.find(b"\n", start)
    return status[start : end if end >= 0 else len(status)].strip()


@cache
def _deno_bin() -> str:
    return deno.find_deno_bin()


@cache
def _launcher() -> tuple[str, ...] | None:
    """``setpriv --pdeathsig KILL deno``: the kernel kills the process when its host dies.

    Set by ``exec`` rather than ``preexec_fn`` (unsafe once threads run, and
    the watchdog is a thread). The parent-death signal fires when the thread
    that forked exits: that is the event-loop thread, whose end also ends
    every run. Without util-linux's ``setpriv`` the runtime says so once and
    an orphan is left to the harness's own parent check (idle only) and the
    kernel's CPU limit.
    """
    path = shutil.which("setpriv")
    if path is None:
        logging.getLogger(__name__).warning(
            "setpriv (util-linux) not found: a Deno sandbox process outlives a host killed by SIGKILL "
            "until its CPU limit ends it"
        )
        return None
    return (path, "--pdeathsig", "KILL", "deno")
