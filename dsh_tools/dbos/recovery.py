"""Executor ids: one live worker per id, and handing a dead (or stopping) worker's work back to the queue.

DBOS recovers a process's unfinished workflows when a process with the same
executor id launches again: that is how a supervisor that restarts a worker
under its id (systemd, a StatefulSet) recovers its work. Two live workers
with one id would each take the other's work for their own, so a worker holds
a lock on its id for as long as it lives: a PostgreSQL advisory lock on a
connection of its own, or an exclusive ``flock`` on a file beside the SQLite
system database. Both vanish with the process, however it dies.

:func:`hand_back` is DBOS's recovery step for the work of one executor id,
run from anywhere: each of its unfinished dispatches goes back to its queue
(``ENQUEUED``) for any live worker of the same application version to take.
``dsh-tools worker --recover ID`` runs it for a dead worker (refused while
that worker lives), and a worker stopping on SIGTERM runs it for itself once
its drain time is up.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Final, Protocol

from dsh_tools.dbos.names import WORKFLOW_NAME, WORKFLOW_PREFIX, sqlite_file

__all__ = ["ExecutorBusy", "ExecutorLock", "check_executor_id", "hand_back", "lock_executor"]

_EXECUTOR_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,199}")


class ExecutorBusy(Exception):
    """A live worker holds this executor id."""


class ExecutorLock(Protocol):
    def release(self) -> None: ...


def check_executor_id(executor_id: object) -> str:
    """``executor_id`` if it is 1-200 of ``A-Z a-z 0-9 . _ : @ / + -`` (starting with a letter or digit); else ``ValueError``."""
    if type(executor_id) is not str or _EXECUTOR_ID.fullmatch(executor_id) is None:
        shown = repr(executor_id)[:60] if type(executor_id) is str else type(executor_id).__name__
        raise ValueError(
            f"an executor id is 1 to 200 of A-Z, a-z, 0-9, '.', '_', ':', '@', '/', '+', '-', starting with a letter or digit; got {shown}"
        )
    return executor_id


def _key(executor_id: str) -> bytes:
    return hashlib.sha256(f"dsh-tools executor {executor_id}".encode()).digest()


class _FileLock:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing drops the flock
            self._fd = -1


class _AdvisoryLock:
    def __init__(self, connection: object) -> None:
        self._connection = connection

    def release(self) -> None:
        close = getattr(self._connection, "close", None)
        if close is not None:
            close()  # the session's advisory locks go with it


def lock_executor(system_url: str, executor_id: str) -> ExecutorLock:
    """Hold ``executor_id`` for this process; ``ExecutorBusy`` if a live process holds it."""
    key = _key(executor_id)
    system_file = sqlite_file(system_url)
    if system_file is not None:
        import fcntl

        path = f"{system_file}.{key.hex()[:16]}.lock"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ExecutorBusy(executor_id) from None
        return _FileLock(fd)
    import psycopg

    connection = psycopg.connect(system_url, autocommit=True, connect_timeout=5)
    signed = int.from_bytes(key[:8], "big", signed=True)
    row = connection.execute("SELECT pg_try_advisory_lock(%s)", (signed,)).fetchone()
    if not row or row[0] is not True:
        connection.close()
        raise ExecutorBusy(executor_id)
    return _AdvisoryLock(connection)


def hand_back(system_url: str, executor_id: str, *, schema: str = "dbos") -> int:
    """Re-enqueue every unfinished dispatch ``executor_id`` holds (see the module docstring); how many."""
    from dbos import DBOSClient
    from dbos._utils import INTERNAL_QUEUE_NAME

    client = DBOSClient(system_database_url=system_url, dbos_system_schema=schema, retry_connection_errors=False)
    try:
        pending = client.list_workflows(
            status="PENDING", executor_id=executor_id, name=WORKFLOW_NAME, workflow_id_prefix=WORKFLOW_PREFIX,
            load_input=False, load_output=False,
        )
        # DBOS's own recovery transition (what a relaunch under this id runs): PENDING -> ENQUEUED on its queue,
        # only while the row still names this executor, so a second hand-back of the same work changes nothing.
        return sum(
            1 for status in pending
            if client._sys_db.reenqueue_for_recovery(status.workflow_id, [executor_id], INTERNAL_QUEUE_NAME)
        )
    finally:
        client.destroy()
