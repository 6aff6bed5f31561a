"""A real PostgreSQL server for the tests: Debian's ``postgresql`` binaries, a temp data directory, 127.0.0.1.

``initdb`` refuses to run as root, so as root the server runs as the
``postgres`` user. A missing binary is a clear failure naming what to
install (``make test`` installs it), never a skip. :class:`PostgresServer`
can be stopped the way a crash stops it (``pg_ctl stop -m immediate``) and
started again on the same port and data, which is how the failover tests
take the database away from a live store.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
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


class PostgresServer:
    """One throwaway server: its DSN, and ``stop``/``start`` to take it away and bring it back."""

    def __init__(self, root: Path) -> None:
        self._bin = _bin_dir()
        self._root = root
        self._data = root / "data"
        self.port = _free_port()
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self.running = False

    def _pg_ctl(self, *arguments: str, check: bool = True) -> None:
        command = _as_server_user([str(self._bin / "pg_ctl"), "-D", str(self._data), *arguments])
        subprocess.run(command, check=check, capture_output=True, timeout=120)

    def initdb(self) -> None:
        command = [str(self._bin / "initdb"), "-D", str(self._data), "-A", "trust", "-U", "postgres"]
        subprocess.run(_as_server_user(command), check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        """Start (again) on the same port and data; returns once it accepts connections (``pg_ctl -w``)."""
        options = f"-p {self.port} -k {self._root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._pg_ctl("-o", options, "-w", "-l", str(self._root / "log"), "start")
        self.running = True

    def stop(self) -> None:
        """Stop at once, as a crash or a failover does: every connection is cut, nothing is shut down cleanly."""
        self._pg_ctl("-m", "immediate", "-w", "stop", check=False)
        self.running = False


@contextmanager
def restartable_postgres_server() -> Iterator[PostgresServer]:
    """Start a throwaway server; yield it; stop it and remove its data."""
    root = Path(tempfile.mkdtemp(prefix="dsh-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    try:
        server = PostgresServer(root)
        server.initdb()
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a throwaway server; yield its DSN; stop it and remove its data."""
    with restartable_postgres_server() as server:
        yield server.dsn


def fresh_database(server_dsn: str) -> str:
    """A new, empty database on the server at ``server_dsn``; its DSN."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}".encode())
    return server_dsn.rsplit("/", 1)[0] + f"/{name}"
