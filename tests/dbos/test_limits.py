"""A queue's limits hold across workers: ``concurrency`` and ``rate_limit``, measured from the bodies' own timestamps.

Three ``dsh-tools worker`` processes serve queue "limited", configured before
they start (workers read a queue's limits from DBOS's database). A call
cancelled while it still waits in the queue settles ``ABORTED_BEFORE_DISPATCH``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import queue_tools
from cluster import Cluster, log_lines
from dsh_tools import Agent, ToolExecutionInput, boot
from dsh_tools.dbos import QueueOptions, configure

LIMITS = QueueOptions(concurrency=2, rate_limit=(4, 1.0))
CALLS = 10
HOLD_MS = 250
TOLERANCE_S = 0.1
"""How far a body's own clock may lag the database's, which the limiter counts by."""


@pytest.fixture(scope="module")
def limited(backend: tuple[str, Path]) -> Iterator[Cluster]:
    url, folder = backend
    configure(url, queues={"limited": LIMITS}).close()
    made = Cluster(url, "limited", folder)
    try:
        made.start(3, prefix="limited-")
        yield made
    finally:
        made.close()


async def test_concurrency_and_rate_limit_hold_across_workers(backend: tuple[str, Path], limited: Cluster) -> None:
    url, folder = backend
    queues = configure(url, queues={"limited": LIMITS})
    ctx = boot(store=url, queues={"*": "limited"})
    store = ctx.tools.store
    try:
        queue_tools.register(ctx)
        agent = Agent(ctx, name="limited", id="limited")
        calls = [
            asyncio.ensure_future(ctx.tools.execute(ToolExecutionInput(f"limited-{i}", "hold", {"ms": HOLD_MS}, agent)))
            for i in range(CALLS + 1)
        ]
        late = calls.pop()  # the last one waits behind the limits: cancelled while still enqueued
        await asyncio.sleep(0)
        late.cancel()
        results = await asyncio.wait_for(asyncio.gather(*calls), 120)
        assert {result.outcome for result in results} == {"ok"}
        with pytest.raises(asyncio.CancelledError):
            await late
        (record,) = await store.journal(call_id=f"limited-{CALLS}")
        assert record.outcome == "aborted" and record.error == {"name": "ToolAbortedError", "code": "ABORTED_BEFORE_DISPATCH"}
    finally:
        queues.close()
        await ctx.dispose()
        await store.aclose()
    lines = [line for line in log_lines(folder) if line[1].startswith("limited-")]
    spans = {line[1]: [0.0, 0.0] for line in lines}
    for event, call_id, _, _, at in lines:
        spans[call_id][0 if event == "start" else 1] = float(at)
    assert len(spans) == CALLS and f"limited-{CALLS}" not in spans
    edges = sorted([(start, 1) for start, _ in spans.values()] + [(end, -1) for _, end in spans.values()])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    assert peak <= 2  # concurrency=2 across all three workers
    starts = sorted(start for start, _ in spans.values())
    limit, period = LIMITS.rate_limit or (0, 0.0)
    shown = [round(start - starts[0], 3) for start in starts]
    if url.startswith("sqlite"):
        # DBOS on SQLite stamps a start in whole seconds, so its limiter counts per clock second (a fixed window,
        # up to 2 x limit in a sliding one): each second holds at most `limit` (one more where a body's own
        # timestamp fell just past the second its claim was counted in).
        assert max(Counter(int(start) for start in starts).values()) <= limit + 1, shown
    else:
        assert all(starts[i + limit] - starts[i] >= period - TOLERANCE_S for i in range(len(starts) - limit)), shown
    assert len({line[3] for line in lines}) > 1  # and the calls still went to more than one worker
