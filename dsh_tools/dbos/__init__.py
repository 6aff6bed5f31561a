"""Queues and workers on DBOS Transact (the ``dbos`` extra): a call's dispatch runs on another machine.

``configure(store_url, queues={"sandbox": QueueOptions(...)})`` sets the
queues up on the store's database and makes them this process's dispatcher;
``boot(queues={"run_code": "sandbox", "*": None})`` routes tools to them; and
``dsh-tools worker MODULE... --store URL --queue sandbox`` serves a queue.
See ``docs/scale-out.md``.

Importing this package does not import DBOS (the registry reads routes
through :mod:`.seam`); :func:`configure` loads it on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from dsh_tools.dbos.seam import QUEUE_DISPATCHER, QueueDispatcher, QueuedCall, QueueOptions, dispatcher_of

if TYPE_CHECKING:
    from dsh_tools.dbos.dispatcher import DbosQueues
    from dsh_tools.context.ports import ToolsPort

__all__ = ["QUEUE_DISPATCHER", "QueueDispatcher", "QueueOptions", "QueuedCall", "configure", "queued_calls_of"]


def configure(store_url: str, *, queues: Mapping[str, QueueOptions]) -> DbosQueues:
    """Set ``queues`` up on ``store_url``'s DBOS system database; the process's dispatcher (see :mod:`.dispatcher`)."""
    from dsh_tools.dbos.dispatcher import configure as configure_queues

    return configure_queues(store_url, queues=queues)


async def queued_calls_of(agent_id: str, *, tools: ToolsPort | None = None) -> list[QueuedCall]:
    """What the queues hold of ``agent_id``'s calls (``[]`` when no dispatcher is found): ``recover`` asks this first.

    The dispatcher is found as a call's: the one ``tools``' context provides
    (``QUEUE_DISPATCHER``), else the one ``configure`` set up in this process.
    """
    dispatcher = dispatcher_of(tools)
    return [] if dispatcher is None else await dispatcher.queued_calls_of(agent_id)
