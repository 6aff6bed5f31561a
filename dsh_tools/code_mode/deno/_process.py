"""One sandbox process: spawn it permission-less, watch its CPU and memory, kill it.

Each process runs exactly one program and is then killed. It is started in its
own session (so SIGKILL of its process group leaves nothing behind), with an
empty environment except what Deno needs to run (a private ``DENO_DIR``, no
colour, no update check), inside an empty working directory, with no
``--allow-*`` flag, and with the V8 old-space capped. It is spawned *before*
its run (the runtime's warm spare), so start-up cost is off the critical path:
the harness loads, starts its worker and then waits for its program on stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from functools import cache
from pathlib import Path
from typing import Final

import deno
import orjson

from dsh_tools.code_mode.deno._frames import new_secret

__all__ = ["SandboxProcess", "Limits"]

_HERE: Final = Path(__file__).resolve().parent
_CLOCK_TICKS: Final = os.sysconf("SC_CLK_TCK")
_PAGE: Final = os.sysconf("SC_PAGE_SIZE")


@cache
def _worker_source() -> str:
    return (_HERE / "worker.js").read_text(encoding="utf-8")


class Limits:
    """The per-process limits the harness and the worker enforce on their side."""

    __slots__ = ("max_log", "max_value", "max_args", "heap_mb")

    def __init__(self, *, max_log: int, max_value: int, max_args: int, heap_mb: int) -> None:
        self.max_log = max_log
        self.max_value = max_value
        self.max_args = max_args
        self.heap_mb = heap_mb

    def to_json(self) -> dict[str, int]:
        return {"maxLog": self.max_log, "maxValue": self.max_value, "maxArgs": self.max_args}


class SandboxProcess:
    """A started (possibly still loading) harness process waiting for its program."""

    __slots__ = ("proc", "secret", "loop")

    def __init__(self, proc: asyncio.subprocess.Process, secret: str) -> None:
        self.proc = proc
        self.secret = secret
        self.loop = asyncio.get_running_loop()

    @classmethod
    async def spawn(cls, deno_dir: str, limits: Limits) -> SandboxProcess:
        env = {"DENO_DIR": deno_dir, "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1", "DENO_NO_PROMPT": "1"}
        proc = await asyncio.create_subprocess_exec(
            _deno_bin(),
            "run",
            "--quiet",
            "--no-prompt",
            "--no-remote",
            "--no-npm",
            "--no-config",
            "--no-lock",
            f"--v8-flags=--max-old-space-size={limits.heap_mb}",
            str(_HERE / "harness.js"),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=deno_dir,
            start_new_session=True,
        )
        self = cls(proc, new_secret())
        hello = {"secret": self.secret, "worker": _worker_source(), "limits": limits.to_json()}
        await self.send(orjson.dumps(hello))
        return self

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None

    async def send(self, line: bytes) -> bool:
        """Write one line to the harness; ``False`` if the process is gone."""
        stdin = self.proc.stdin
        if stdin is None or stdin.is_closing():
            return False
        try:
            stdin.write(line + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            return False
        return True

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

    def cpu_ms(self) -> float | None:
        """User + system CPU time of the whole process (all threads), from /proc."""
        fields = self._stat()
        return None if fields is None else (int(fields[11]) + int(fields[12])) * 1000 / _CLOCK_TICKS

    def rss_bytes(self) -> int | None:
        fields = self._stat()
        return None if fields is None else int(fields[21]) * _PAGE

    def _stat(self) -> list[str] | None:
        try:
            raw = Path(f"/proc/{self.proc.pid}/stat").read_bytes()
        except OSError:
            return None
        # Fields after "(comm)"; comm may hold spaces or parentheses.
        return raw[raw.rfind(b")") + 2 :].decode("ascii", "replace").split()


@cache
def _deno_bin() -> str:
    return deno.find_deno_bin()
