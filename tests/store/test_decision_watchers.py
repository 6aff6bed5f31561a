"""Issue 34, item 10: every watcher hears every decision it waits for.

A PostgreSQL store has one ``LISTEN`` connection. When each waiting
``wait_for_decision`` read that connection's notifications itself, a
notification read by one agent's waiter was gone for the others, and they
slept until their timeout. Now one listener reads them all and wakes every
waiter of the agent each names.
"""

from __future__ import annotations

import asyncio

from dsh_tools.store import ParkedCall, PostgresStore

from test_store_contract import parked

AGENTS = [f"agent-{n}" for n in range(8)]


class CountingStore(PostgresStore):
    """Says when every waiter has looked for a decision already made (and so waits for a notification)."""

    def __init__(self, dsn: str, expected: int) -> None:
        super().__init__(dsn)
        self.looked = 0
        self.all_waiting = asyncio.Event()
        self._expected = expected

    async def decided(self, agent_id: str) -> list[ParkedCall]:
        found = await super().decided(agent_id)
        self.looked += 1
        if self.looked >= self._expected:
            self.all_waiting.set()
        return found


async def test_watchers_sharing_one_listener_each_hear_their_own_decision(fresh_postgres: str) -> None:
    store = CountingStore(fresh_postgres, expected=len(AGENTS))
    async with store:
        for agent_id in AGENTS:
            assert await store.park(parked(f"p-{agent_id}", agent_id=agent_id), max_per_agent=10)
        waiters = [asyncio.ensure_future(store.wait_for_decision(agent_id, 120.0)) for agent_id in AGENTS]
        await asyncio.wait_for(store.all_waiting.wait(), 30)  # a bound on a hang: each has found nothing yet
        async with PostgresStore(fresh_postgres) as decider:  # another replica decides all eight, back to back
            for agent_id in AGENTS:
                await decider.decide(f"p-{agent_id}", "allowed-once")
        done, still_waiting = await asyncio.wait(waiters, timeout=20)  # far below their 120 s timeout
        assert not still_waiting, f"{len(still_waiting)} of {len(AGENTS)} watchers never heard their decision"
        for waiter in done:
            waiter.result()


async def test_several_watchers_of_one_agent_all_wake(fresh_postgres: str) -> None:
    store = CountingStore(fresh_postgres, expected=3)
    async with store:
        assert await store.park(parked("p1", agent_id="a1"), max_per_agent=10)
        waiters = [asyncio.ensure_future(store.wait_for_decision("a1", 120.0)) for _ in range(3)]
        await asyncio.wait_for(store.all_waiting.wait(), 30)
        async with PostgresStore(fresh_postgres) as decider:
            await decider.decide("p1", "rejected")
        _, still_waiting = await asyncio.wait(waiters, timeout=20)
        assert not still_waiting
