"""Where DBOS keeps our work, and what it calls it: one place for every name both sides must agree on.

* The system database is the store's: the same PostgreSQL database (DBOS's
  own schema, ``dbos``), or for a SQLite store the sibling file
  ``<store file>.dbos`` (DBOS and our store then never share a lock).
* Each queue is its own DBOS application, ``dsh-tools-<queue>``: DBOS ties a
  queue to one application, and application versions (which decide which
  workers may take which work) are kept per application, so two pools of
  workers running different modules for different queues never make each
  other's version stale.
* The one workflow is ``dsh.dispatch``; its first step, ``dsh.started``, is
  recorded before the body starts (what tells a recovery that a body may
  have taken effect), and ``dsh.body`` runs the ``tools/execute`` chain.
"""

from __future__ import annotations

from typing import Final

from dsh_tools.store.sqlite_files import sqlite_file, sqlite_url, system_file

__all__ = [
    "AGENT_ATTRIBUTE",
    "BODY_STEP",
    "CALL_ATTRIBUTE",
    "NO_AGENT",
    "STARTED_STEP",
    "WORKFLOW_NAME",
    "WORKFLOW_PREFIX",
    "agent_key",
    "app_name",
    "sqlite_file",
    "sqlite_system_database",
    "system_database_url",
]

WORKFLOW_NAME: Final = "dsh.dispatch"
STARTED_STEP: Final = "dsh.started"
BODY_STEP: Final = "dsh.body"
WORKFLOW_PREFIX: Final = "dsh:"
"""Every workflow id of ours starts so (``dsh:<agent_id>:<key>:<n>``)."""
NO_AGENT: Final = "-"
"""What stands for the agent id of a call without an agent (in its workflow id, attribute and partition key)."""
AGENT_ATTRIBUTE: Final = "dshAgent"
"""The workflow attribute holding the caller's agent id (DBOS filters on attributes exactly)."""
CALL_ATTRIBUTE: Final = "dshCall"
"""The workflow attribute holding ``[call_id, tool_name, idempotency_key, n, queue]``."""


def system_database_url(store_url: str) -> str:
    """DBOS's system database for a store URL (``ValueError`` for a store DBOS cannot share)."""
    if type(store_url) is not str:
        raise ValueError(f"a store URL is a str, got {type(store_url).__name__}")
    store_file = sqlite_file(store_url)
    if store_file is not None:
        return sqlite_system_database(store_file)
    if store_url.startswith("postgres://"):
        return "postgresql://" + store_url[len("postgres://") :]
    if store_url.startswith("postgresql://"):
        return store_url
    raise ValueError(
        f"queues need a durable store that DBOS can share (sqlite:///FILE or postgresql://...), not {store_url[:60]!r}"
    )


def sqlite_system_database(store_file: str) -> str:
    """DBOS's system database for the SQLite store in ``store_file``: the sibling ``<store_file>.dbos``."""
    return sqlite_url(system_file(store_file))


def agent_key(agent_id: str | None) -> str:
    """``agent_id`` as a workflow id, attribute and partition key name it (an agent id is never empty)."""
    return NO_AGENT if agent_id is None else agent_id


def app_name(queue: str) -> str:
    """The DBOS application that owns ``queue`` (a checked queue name keeps DBOS's alphabet)."""
    return f"dsh-tools-{queue}"
