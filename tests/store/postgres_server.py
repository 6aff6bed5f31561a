"""A real PostgreSQL server for the tests: Debian's ``postgresql`` binaries, a temp data directory, 127.0.0.1.

``initdb`` refuses to run as root, so as root the server runs as the
``postgres`` user. A missing binary is a clear failure naming what to
install (``make test`` installs it), never a skip.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

INSTALL_HINT = "install Debian's PostgreSQL server (apt-get install -y postgresql; `make test` does it for you)"


def _bin_dir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError(f"no PostgreSQL server binaries (initdb) under /usr/lib/postgresql: {INSTALL_HINT}")
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    runuser = shutil.which("runuser")
    if runuser is None:
        raise RuntimeError("running as root needs runuser (util-linux) to start PostgreSQL as the postgres user")
    return [runuser, "-u", "postgres", "--", *command]


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a throwaway server; yield its DSN; stop it and remove its data."""
    bin_dir = _bin_dir()
    root = Path(tempfile.mkdtemp(prefix="dsh-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    port = _free_port()
    run = {"check": True, "capture_output": True, "timeout": 120}
    try:
        subprocess.run(_as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]), **run)  # type: ignore[call-overload]
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(
            _as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-l", str(root / "log"), "start"]),
            **run,  # type: ignore[call-overload]
        )
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]), capture_output=True, timeout=60)
    finally:
        shutil.rmtree(root, ignore_errors=True)
