"""Queue options checked, mapped onto DBOS's queue settings, and the system database a process uses.

``QueueOptions`` speaks of calls and agents; DBOS speaks of workflows and
partitions. With ``partition_by_agent`` every enqueue carries the agent id as
its partition key, and the limits become DBOS's per-partition ones, so they
hold per agent. Options are checked here, where a deployment configures
them, so a bad one is a ``ValueError`` at start rather than a queue that
never dequeues.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

from dsh_tools.dbos.names import system_database_url
from dsh_tools.dbos.seam import QueueOptions, check_queue_name

__all__ = ["check_options", "check_queues", "queue_arguments", "system_database"]

_MAX_POLLING_S = 60.0
_MIN_PAYLOAD = 1024


def check_queues(queues: object) -> dict[str, QueueOptions]:
    """``configure(queues=...)`` checked: at least one queue name mapped to its ``QueueOptions``."""
    if not isinstance(queues, Mapping) or not queues:
        raise ValueError("queues maps at least one queue name to its QueueOptions")
    return {check_queue_name(name): check_options(name, options) for name, options in queues.items()}


def check_options(name: str, options: object) -> QueueOptions:
    """``options`` if every field is in range; ``ValueError`` naming the queue and the field otherwise."""
    if type(options) is not QueueOptions:
        raise ValueError(f'queue "{name}": options are a QueueOptions, got {type(options).__name__}')
    for field in ("concurrency", "worker_concurrency"):
        value = getattr(options, field)
        if value is not None and (type(value) is not int or value < 1):
            raise ValueError(f'queue "{name}": {field} is None or an int >= 1, got {value!r}')
    if options.concurrency is not None and options.worker_concurrency is not None:
        if options.worker_concurrency > options.concurrency:
            raise ValueError(f'queue "{name}": worker_concurrency may not exceed concurrency')
    limit = options.rate_limit
    if limit is not None:
        if not isinstance(limit, tuple) or len(limit) != 2 or type(limit[0]) is not int or limit[0] < 1:
            raise ValueError(f'queue "{name}": rate_limit is (limit >= 1, period_s > 0), got {limit!r}')
        if type(limit[1]) not in (int, float) or not 0 < limit[1] < math.inf:
            raise ValueError(f'queue "{name}": rate_limit\'s period_s is a number of seconds > 0, got {limit[1]!r}')
    polling = options.polling_interval_s
    if type(polling) not in (int, float) or not 0 < polling <= _MAX_POLLING_S:
        raise ValueError(f'queue "{name}": polling_interval_s is a number of seconds in (0, {_MAX_POLLING_S:g}]')
    payload = options.max_payload_bytes
    if type(payload) is not int or payload < _MIN_PAYLOAD:
        raise ValueError(f'queue "{name}": max_payload_bytes is an int >= {_MIN_PAYLOAD}, got {payload!r}')
    if type(options.partition_by_agent) is not bool:
        raise ValueError(f'queue "{name}": partition_by_agent is a bool')
    return options


def queue_arguments(options: QueueOptions) -> dict[str, Any]:
    """The keywords of DBOS's ``register_queue`` for ``options`` (always overwriting the stored ones)."""
    limiter = None if options.rate_limit is None else {"limit": options.rate_limit[0], "period": float(options.rate_limit[1])}
    arguments: dict[str, Any] = {"polling_interval_sec": float(options.polling_interval_s), "on_conflict": "always_update"}
    if options.partition_by_agent:
        arguments.update(
            partition_concurrency=options.concurrency,
            partition_worker_concurrency=options.worker_concurrency,
            partition_limiter=limiter,
        )
    else:
        arguments.update(
            global_concurrency=options.concurrency, worker_concurrency=options.worker_concurrency, limiter=limiter
        )
    return arguments


def system_database(store_url: str) -> tuple[str, str, sa.Engine | None]:
    """The system database URL, its schema, and the engine to share when this process's DBOS is already running.

    A process whose DBOS was configured before us (by another library, or a
    worker in this process) keeps it: its database and schema win over the
    store URL's, and once it is launched its connection pool is shared.
    """
    existing = running_dbos()
    if existing is None:
        return system_database_url(store_url), "dbos", None
    config = existing._config
    url = config.get("system_database_url")
    if url is None:
        return system_database_url(store_url), "dbos", None
    schema = config.get("dbos_system_schema") or "dbos"
    engine = existing._sys_db.engine if existing._launched else None
    return url, schema, engine


def running_dbos() -> Any:
    """The process's DBOS instance if one was constructed (``DBOS(config=...)``), else ``None``."""
    from dbos import _dbos

    return getattr(_dbos, "_dbos_global_instance", None)


def sqlite_engine(system_url: str) -> sa.Engine:
    """A SQLite engine for a worker's DBOS whose every transaction takes the write lock when it begins.

    DBOS claims queued work by reading how many calls run (for a queue's
    ``concurrency``) and then flipping rows to running, in one transaction.
    On SQLite it asks pysqlite for ``IMMEDIATE`` transactions, but pysqlite
    opens a transaction only before a write: the read runs outside it, so two
    workers read the same count and both claim up to the limit (measured:
    four bodies at once under ``concurrency=2``, in two runs of five). With
    the driver left in autocommit and ``BEGIN IMMEDIATE`` sent as each
    transaction begins (SQLAlchemy's documented recipe), a claim's read and
    its writes are one serialised step, as they are on PostgreSQL.
    """
    from sqlalchemy import event

    engine = sa.create_engine(system_url, pool_size=20, max_overflow=0, pool_timeout=30)

    @event.listens_for(engine, "connect")
    def _connect(connection: Any, _record: object) -> None:
        connection.isolation_level = None  # the driver never opens a transaction by itself
        connection.execute("PRAGMA busy_timeout=30000")
        connection.execute("PRAGMA foreign_keys=ON")

    @event.listens_for(engine, "begin")
    def _begin(connection: sa.Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine
