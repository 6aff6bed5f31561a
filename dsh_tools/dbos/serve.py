"""A worker process: boot the modules, launch DBOS on this event loop, serve one queue until told to stop.

The worker's DBOS is its own: application ``dsh-tools-<queue>``, the worker's
executor id, and an application version made of this package's version and
the worker's modules (their names and source), so work enqueued for one
build of the tools is only taken by workers running that build (DBOS hands
version-less work to the latest version, and recovered work to its own).
DBOS is launched from inside the worker's event loop, which it then adopts:
the workflows run on the same loop as the registry, its store and its code
runtime.

SIGTERM (or SIGINT) stops dequeuing at once, lets the dispatches in flight
finish for up to ``drain_seconds``, then hands back (:func:`.recovery.hand_back`)
whatever is still running, so another worker takes it, and exits.
"""

from __future__ import annotations

import asyncio
import hashlib
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from dsh_tools.approval import DeferringApprovalService
from dsh_tools.boot import boot
from dsh_tools.code_mode.runtime import CodeLanguage, CodeRuntime
from dsh_tools.context.services import APPROVAL
from dsh_tools.dbos.names import app_name, sqlite_file, system_database_url
from dsh_tools.dbos.options import running_dbos, sqlite_engine
from dsh_tools.dbos.recovery import hand_back, lock_executor
from dsh_tools.dbos.seam import QueueOptions
from dsh_tools.dbos.worker import WorkerRuntime

__all__ = ["application_version", "serve"]


def application_version(specs: Sequence[str], queue: str) -> str:
    """``<package version>-<16 hex digits>``: this package's version, the queue, and the modules' names and sources.

    The queue is in it because DBOS wants a version name unique across the
    applications of one system database (each queue is one).
    """
    from dsh_tools.cli.loading import import_module_spec, parse_spec

    digest = hashlib.sha256()
    package = _package_version()
    digest.update(f"{package}\0{queue}".encode())
    for spec in specs:
        digest.update(b"\0" + spec.encode())
        module = import_module_spec(parse_spec(spec)[0])
        source = getattr(module, "__file__", None)
        if source is not None and Path(source).is_file():
            digest.update(Path(source).read_bytes())
    return f"{package}-{digest.hexdigest()[:16]}"


def _package_version() -> str:
    try:
        return version("dsh-tools")
    except PackageNotFoundError:
        return "0+unknown"


async def serve(
    specs: Sequence[str],
    *,
    store_url: str,
    queue: str,
    executor_id: str,
    drain_seconds: int,
    code_runtime: CodeRuntime | None,
    code_language: CodeLanguage,
) -> int:
    """Serve ``queue`` with the tools of ``specs`` until SIGTERM/SIGINT; the exit status."""
    from dbos import DBOS, DBOSConfig

    from dsh_tools.cli.loading import load_tools
    from dsh_tools.dbos import workflows

    if running_dbos() is not None:
        raise RuntimeError("DBOS is already configured in this process; a worker configures its own")
    loaded = load_tools(specs)
    system_url = system_database_url(store_url)
    lock = lock_executor(system_url, executor_id)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    ctx = boot(store=store_url, code_runtime=code_runtime, code_language=code_language)
    store = ctx.tools.store
    try:
        loaded.install(ctx)
        if ctx.get(APPROVAL) is None:  # a worker has nobody to ask: a deferred sub-call parks for the caller's human
            ctx.provide(APPROVAL, DeferringApprovalService())
        runtime = WorkerRuntime(ctx, queue)
        workflows.serving(runtime)
        app_version = application_version(specs, queue)
        config: DBOSConfig = {
            "name": app_name(queue),
            "system_database_url": system_url,
            "executor_id": executor_id,
            "application_version": app_version,
            "log_level": "WARNING",
        }
        if sqlite_file(system_url) is not None:
            DBOS.migrate(system_url)  # with DBOS's own engine: its migrations open their transaction themselves
            config["system_database_engine"] = sqlite_engine(system_url)
            config["run_migrations"] = False
        DBOS(config=config)
        DBOS.listen_queues([queue])
        DBOS.launch()  # from this loop's thread: DBOS runs the workflows on this loop
        # the queue as configure() set it up (never overwritten); a queue nobody configured gets the default polling
        await DBOS.register_queue_async(
            queue, polling_interval_sec=QueueOptions().polling_interval_s, on_conflict="never_update"
        )
        print(f"dsh-tools worker {executor_id}: serving queue {queue} (version {app_version})", flush=True)
        await stop.wait()
        print(f"dsh-tools worker {executor_id}: stopping (draining up to {drain_seconds} s)", file=sys.stderr, flush=True)
        await asyncio.to_thread(DBOS.destroy, workflow_completion_timeout_sec=drain_seconds)
        loop.set_default_executor(ThreadPoolExecutor())  # DBOS lent this loop its executor, and shut it down
        handed = await asyncio.to_thread(hand_back, system_url, executor_id)
        if handed:
            print(f"dsh-tools worker {executor_id}: handed back {handed} unfinished call(s)", file=sys.stderr, flush=True)
        return 0
    finally:
        workflows.serving(None)
        if running_dbos() is not None:
            await asyncio.to_thread(DBOS.destroy)
            loop.set_default_executor(ThreadPoolExecutor())
        await ctx.dispose()
        await store.aclose()
        if code_runtime is not None:
            await code_runtime.dispose()
        lock.release()
