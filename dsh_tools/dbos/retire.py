"""``store.prune`` reaches DBOS too: the workflow rows of pruned calls hold their arguments and results.

A queued call's workflow row keeps its request (the arguments, possibly
secrets) and its result, for as long as DBOS is told to keep them. When a
store prunes its journal before a time, the finished ``dsh:`` workflows that
completed before that time go too, through DBOS's own ``delete_workflows``.
Unfinished ones stay: a worker or a recovery still needs them. A store with
no DBOS system database beside it (no sibling ``.dbos`` file, no ``dbos``
schema) costs nothing here.
"""

from __future__ import annotations

import asyncio
import datetime
import importlib.util
import logging
from pathlib import Path
from typing import Final

from dsh_tools.dbos.names import WORKFLOW_PREFIX, sqlite_file

__all__ = ["retire_workflows"]

_FINISHED: Final = ["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]
_CHUNK: Final = 500
_LOGGER: Final = logging.getLogger("dsh_tools.store")


async def retire_workflows(system_url: str, before: float) -> int:
    """Delete the finished ``dsh:`` workflows that completed before ``before`` (Unix seconds); how many."""
    if importlib.util.find_spec("dbos") is None:
        return 0
    system_file = sqlite_file(system_url)
    if system_file is not None and not Path(system_file).exists():
        return 0
    try:
        return await asyncio.to_thread(_retire, system_url, before)
    except Exception as error:  # noqa: BLE001 - the journal was pruned; DBOS's rows wait for the next prune
        _LOGGER.warning("pruning DBOS's workflow rows failed (they stay until the next prune): %s", error)
        return 0


def _retire(system_url: str, before: float) -> int:
    from dbos import DBOSClient

    cutoff = datetime.datetime.fromtimestamp(before, tz=datetime.timezone.utc).isoformat()
    client = DBOSClient(system_database_url=system_url, retry_connection_errors=False)
    try:
        finished = client.list_workflows(
            workflow_id_prefix=WORKFLOW_PREFIX, status=_FINISHED, completed_before=cutoff,
            load_input=False, load_output=False,
        )
        ids = [status.workflow_id for status in finished]
        for start in range(0, len(ids), _CHUNK):
            client.delete_workflows(ids[start : start + _CHUNK])
        return len(ids)
    finally:
        client.destroy()
