"""What ``bench_queues``' workers load: one dsh-tools tool, and a bare DBOS workflow with one step beside it.

The bare workflow has nothing of dsh-tools in it: it is what a queued call is
measured against (enqueued on the same queue, served by the same workers,
awaited the same way).
"""

from __future__ import annotations

from dbos import DBOS

from dsh_tools import Context, tool


@tool
async def ping(n: int) -> str:
    """Answer pong."""
    return f"pong {n}"


@DBOS.step(name="bench.bare.step")
async def _bare_step(n: int) -> str:
    return f"pong {n}"


@DBOS.workflow(name="bench.bare")
async def bare(n: int) -> str:
    return await _bare_step(n)


def register(ctx: Context) -> None:
    ctx.tools.register(ping)
