"""The seam between the pipeline and the queues: routing, the dispatcher's protocol, its service key.

This module imports neither DBOS nor the registry, so the registry can read a
call's route at admission without loading an engine it may never use. The
pipeline knows only :class:`QueueDispatcher`; :mod:`dsh_tools.dbos.dispatcher`
is the DBOS one, and a test may provide its own under :data:`QUEUE_DISPATCHER`.

Routing (``boot(queues={"run_code": "sandbox", "*": None})``) is read once per
call, when its plan is built: a tool's own entry wins, then ``"*"``, and
``None`` means "run here". Queue names are what DBOS names its application
after (``dsh-tools-<queue>``), so they keep DBOS's application-name alphabet.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, Protocol

from dsh_tools.context.keys import ServiceKey
from dsh_tools.record import Record

if TYPE_CHECKING:
    from dsh_tools.execution import ToolExecution, ToolExecutionResult
    from dsh_tools.seams import PipelineHost

__all__ = [
    "QUEUE_DISPATCHER",
    "QueueDispatcher",
    "QueueOptions",
    "QueuedCall",
    "check_queue_name",
    "check_routes",
    "configured_dispatcher",
    "dispatcher_of",
    "route_of",
    "set_configured_dispatcher",
]

_QUEUE_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")
ANY_TOOL: Final = "*"


class QueueOptions(Record):
    """How one queue runs its calls (``dsh_tools.dbos.configure(store_url, queues={name: QueueOptions(...)})``).

    ``concurrency`` bounds the calls running at once across every worker,
    ``worker_concurrency`` on each worker; ``rate_limit=(limit, period_s)``
    starts at most ``limit`` calls per ``period_s`` seconds (DBOS's limiter).
    With ``partition_by_agent`` each of these holds per agent id instead.
    ``polling_interval_s`` is how often workers look for work and callers
    for results; ``max_payload_bytes`` bounds a call's arguments (checked
    before enqueueing) and its result (checked on the worker).
    """

    concurrency: int | None = None
    worker_concurrency: int | None = None
    rate_limit: tuple[int, float] | None = None
    partition_by_agent: bool = False
    polling_interval_s: float = 0.1
    max_payload_bytes: int = 2_000_000


class QueuedCall(Record):
    """A call's dispatch that DBOS holds or held: what ``recover`` asks about before deciding anything.

    ``status`` is DBOS's (``ENQUEUED``, ``PENDING``, ``SUCCESS``, ``ERROR``,
    ``CANCELLED``, ``MAX_RECOVERY_ATTEMPTS_EXCEEDED``); ``executor_id`` the
    worker that took it (``None`` while enqueued).
    """

    workflow_id: str
    queue: str
    agent_id: str | None
    call_id: str
    tool_name: str
    idempotency_key: str
    dispatch: int
    status: str
    executor_id: str | None = None


class QueueDispatcher(Protocol):
    """Runs a planned call's dispatch on a queue, and answers what a queue holds for an agent."""

    def knows(self, queue: str) -> bool:
        """Whether ``queue`` is one this dispatcher was configured with."""
        ...

    async def dispatch(self, plan: PipelineHost, queue: str, execution: ToolExecution) -> ToolExecutionResult:
        """The call's dispatch (the ``tools/execute`` chain and the body) as a worker ran it; never raises but for cancellation.

        ``plan`` is the call's plan (a host that is not one is planned for the call first).
        """
        ...

    async def queued_calls_of(self, agent_id: str) -> list[QueuedCall]:
        """Every dispatch of ``agent_id``'s calls that DBOS holds, unfinished or finished, oldest first."""
        ...

    async def result_of(self, call: QueuedCall) -> ToolExecutionResult:
        """The result of a queued dispatch, awaited if it is still enqueued or running."""
        ...


QUEUE_DISPATCHER: ServiceKey[QueueDispatcher] = ServiceKey("queueDispatcher")
"""Where a context finds a dispatcher of its own (nothing provides one but the application, a test's say);
without one, its calls use the process's, set up by ``dsh_tools.dbos.configure`` (see :func:`dispatcher_of`)."""

_configured: list[QueueDispatcher] = []  # the process's one dispatcher, as DBOS is one per process


def set_configured_dispatcher(dispatcher: QueueDispatcher | None) -> None:
    """Internal (``configure``): the process's dispatcher, found by every registry that routes to a queue."""
    _configured[:] = [] if dispatcher is None else [dispatcher]


def configured_dispatcher() -> QueueDispatcher | None:
    """The dispatcher ``dsh_tools.dbos.configure`` set up in this process, if any."""
    return _configured[0] if _configured else None


def dispatcher_of(host: object) -> QueueDispatcher | None:
    """The dispatcher a host's calls use: the one its context provides (``QUEUE_DISPATCHER``), else the configured one."""
    lookup = getattr(host, "queue_dispatcher", None)
    found = lookup() if callable(lookup) else None
    return found if found is not None else configured_dispatcher()


def check_queue_name(name: object) -> str:
    """``name`` if it is a queue name (1-48 of ``a-z 0-9 _ -``, starting with a letter or digit); else ``ValueError``."""
    if type(name) is not str or _QUEUE_NAME.fullmatch(name) is None:
        shown = repr(name)[:60] if type(name) is str else type(name).__name__
        raise ValueError(f"a queue name is 1 to 48 of a-z, 0-9, '_' and '-', starting with a letter or digit; got {shown}")
    return name


def check_routes(queues: object) -> dict[str, str | None] | None:
    """``boot(queues=...)`` checked: a mapping of tool names (or ``"*"``) to queue names or ``None``; ``None`` if empty."""
    if queues is None:
        return None
    if not isinstance(queues, Mapping):
        raise TypeError(f"queues must map tool names (or '*') to queue names or None, got {type(queues).__name__}")
    routes: dict[str, str | None] = {}
    for tool_name, queue in queues.items():
        if type(tool_name) is not str or not tool_name:
            raise ValueError(f"queues: a key is a tool name or '*', got {tool_name!r}"[:120])
        routes[tool_name] = None if queue is None else check_queue_name(queue)
    return routes if any(queue is not None for queue in routes.values()) else None


def route_of(routes: Mapping[str, str | None], name: str) -> str | None:
    """The queue a call of ``name`` goes to: its own entry, else ``"*"``'s, else none (run here)."""
    if name in routes:
        return routes[name]
    return routes.get(ANY_TOOL)
