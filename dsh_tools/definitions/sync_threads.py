"""Threads for sync ``@tool`` bodies: a bounded executor per agent, so one agent cannot starve another.

A sync ``def`` body runs in a worker thread, and a thread cannot be stopped:
when its call times out or is cancelled, the thread runs on (its call settles
without it, see :mod:`dsh_tools.pipeline.orphans`). In asyncio's one shared
default executor, such threads of one agent's slow tool filled every worker,
and then another agent's trivial sync tool queued behind them and timed out.

So each agent gets an executor of its own, of :data:`SYNC_THREADS_PER_AGENT`
threads (created as needed, idle ones kept): an agent whose threads are all
busy queues only its own sync calls. Calls made without an agent share one
more executor of the same size. An agent's executor is shut down when its
context is disposed (threads still running finish first, in the background)
or when the agent is garbage-collected. Per agent rather than per tool: the
fairness that matters is between agents (one agent's runaway tool must not
take another agent's calls down); a tool that starves its own agent's other
sync tools is visible in that agent's results and fixed there.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Final, TypeVar

from dsh_tools.context.identity import WeakIdentityDict

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent

__all__ = ["SYNC_THREADS_PER_AGENT", "sync_executor", "to_agent_thread"]

SYNC_THREADS_PER_AGENT: Final = 8
"""Worker threads per agent for sync tool bodies (calls beyond it queue for that agent's threads)."""

_PREFIX: Final = "dsh-tools-sync"
R = TypeVar("R")

_by_agent: WeakIdentityDict[Agent, ThreadPoolExecutor] = WeakIdentityDict()
_agentless: ThreadPoolExecutor | None = None


def sync_executor(agent: Agent | None) -> ThreadPoolExecutor:
    """The executor of ``agent``'s sync bodies (made on first use)."""
    global _agentless
    if agent is None:
        if _agentless is None:
            _agentless = ThreadPoolExecutor(SYNC_THREADS_PER_AGENT, thread_name_prefix=_PREFIX)
        return _agentless
    executor = _by_agent.get(agent)
    if executor is None:
        executor = ThreadPoolExecutor(SYNC_THREADS_PER_AGENT, thread_name_prefix=_PREFIX)
        _by_agent[agent] = executor
        with contextlib.suppress(Exception):  # a disposed context: collection of the agent still ends it
            agent.ctx.track(functools.partial(executor.shutdown, wait=False))
    return executor


async def to_agent_thread(agent: Agent | None, call: Callable[[], R]) -> R:
    """``asyncio.to_thread``, on ``agent``'s executor (context variables carried over, as there)."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    return await loop.run_in_executor(sync_executor(agent), functools.partial(context.run, call))
