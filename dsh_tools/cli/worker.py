"""``dsh-tools worker``: serve a DBOS queue with some modules' tools, or re-enqueue a dead worker's work.

``dsh-tools worker MODULE... --store URL --queue NAME [--executor-id ID]``
boots the modules (their ``register(ctx)``), launches DBOS under the executor
id (default ``<hostname>:<queue>``; a second live worker with the same id is
refused) and serves the queue until SIGTERM, which drains for
``--drain-seconds`` and hands back what is left. ``dsh-tools worker --recover
ID --store URL`` re-enqueues the unfinished calls of the dead worker ``ID``
for any live worker and exits (refused while ``ID`` is alive). Needs the
``dbos`` extra. See ``docs/scale-out.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import socket

from dsh_tools.cli.errors import CliError

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    try:
        from dsh_tools.dbos.names import system_database_url
        from dsh_tools.dbos.recovery import ExecutorBusy, check_executor_id
        from dsh_tools.dbos.seam import check_queue_name
    except ImportError as error:  # pragma: no cover - the extra is missing
        raise CliError(f"dsh-tools worker needs DBOS: pip install 'dsh-tools[dbos]' ({error})") from None
    try:
        system_url = system_database_url(args.store)
        if args.recover is not None:
            if args.modules or args.queue is not None:
                raise CliError("--recover ID takes no MODULE and no --queue: it only re-enqueues ID's calls")
            return _recover(system_url, check_executor_id(args.recover))
        if not args.modules or args.queue is None:
            raise CliError("a worker needs MODULE... and --queue NAME (or --recover ID)")
        queue = check_queue_name(args.queue)
        executor_id = check_executor_id(args.executor_id or f"{socket.gethostname()}:{queue}")
    except ValueError as error:
        raise CliError(str(error)) from None
    try:
        return asyncio.run(_serve(args, queue, executor_id))
    except ExecutorBusy:
        raise CliError(f'executor id "{executor_id}" is held by a live worker; give this one another --executor-id') from None


async def _serve(args: argparse.Namespace, queue: str, executor_id: str) -> int:
    from dsh_tools.cli.runtime import code_runtime
    from dsh_tools.dbos.serve import serve

    runtime = code_runtime(args.language)
    return await serve(
        args.modules, store_url=args.store, queue=queue, executor_id=executor_id, drain_seconds=args.drain_seconds,
        code_runtime=runtime, code_language=args.language,
    )


def _recover(system_url: str, executor_id: str) -> int:
    from dsh_tools.dbos.recovery import ExecutorBusy, hand_back, lock_executor

    try:
        lock = lock_executor(system_url, executor_id)
    except ExecutorBusy:
        raise CliError(f'executor "{executor_id}" is alive (a worker holds its id): stop it, or let it recover its own work') from None
    except Exception as error:  # noqa: BLE001 - an unreachable database is one line
        raise CliError(f"cannot reach the queues' database: {_one_line(error)}") from None
    try:
        count = hand_back(system_url, executor_id)
    except Exception as error:  # noqa: BLE001 - an unreachable database, a store with no queues yet
        raise CliError(f"cannot re-enqueue the calls of {executor_id!r}: {_one_line(error)}") from None
    finally:
        lock.release()
    if count:
        print(f"re-enqueued {count} unfinished call(s) of executor {executor_id} for the live workers")
    else:
        print(f"executor {executor_id} holds no unfinished calls: nothing to re-enqueue")
    return 0


def _one_line(error: BaseException) -> str:
    """``error``'s text on one line, at most 300 characters (a database error spans several)."""
    return " ".join(str(error).split())[:300]
