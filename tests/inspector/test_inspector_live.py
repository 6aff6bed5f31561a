"""The live stream over real HTTP: one store watcher for every stream, a cap, changed rows only, catching up."""

from __future__ import annotations

import time
from contextlib import AsyncExitStack
from typing import Any

import httpx2
import orjson

from dsh_tools.inspector import csrf_token, inspector_app
from dsh_tools.store import CallRecord, ParkedCall, StoreUnavailable

from live_helpers import AUTH, TOKEN, CountingStore, Events, served, wait_until


def record(record_id: str, outcome: str = "ok", **fields: object) -> CallRecord:
    return CallRecord(record_id, f"call-{record_id}", "a1", "echo", {"text": record_id}, outcome, time.time(), **fields)  # type: ignore[arg-type]


def parked(approval_id: str, **fields: object) -> ParkedCall:
    call = ParkedCall(
        approval_id=approval_id, agent_id="a1", agent_name="writer", call_id=f"c-{approval_id}", tool_name="write_file",
        arguments={"path": "a.txt"}, description="Write a file.", parameters={"type": "object"}, fingerprint="f" * 64,
        created_at=time.time(),
    )
    return call.set(**fields) if fields else call


def client(base: str) -> httpx2.AsyncClient:
    limits = httpx2.Limits(max_connections=200, max_keepalive_connections=0)
    return httpx2.AsyncClient(base_url=base, headers=AUTH, limits=limits, timeout=30)


async def test_many_streams_share_one_watcher_and_their_reads_do_not_grow_with_them() -> None:
    store = CountingStore()
    await store.write([record(f"old{n}") for n in range(50)], [])
    app = inspector_app(store, token=TOKEN, poll_seconds=0.02)
    feed = app.state.feed
    async with served(app) as base, client(base) as http, AsyncExitStack() as streams:
        readers = []
        for _ in range(40):
            response = await streams.enter_async_context(http.stream("GET", "/api/events"))
            assert response.status_code == 200
            readers.append(Events(response))
        for reader in readers:
            assert (await reader.next())[0] == "reset"  # the page reloads once, through the API; the stream reads nothing
        before, looks = store.total(), feed.looks
        await wait_until(lambda: feed.looks >= looks + 20, what="20 more looks")
        reads, looked = store.total() - before, feed.looks - looks
        assert reads <= looked + 1, (reads, looked)  # one cheap read per look, whether 1 stream or 40

        counts = dict(store.reads)
        await store.write([record("new")], [])
        for reader in readers:
            name, _, rows = await reader.next()
            assert name == "journal" and [row["recordId"] for row in rows] == ["new"]  # rendered once, sent to all 40
        assert store.reads["journal"] == counts["journal"] and store.reads["parked"] == counts["parked"]


async def test_past_the_cap_a_stream_is_refused_with_503_and_a_closed_one_frees_its_slot() -> None:
    app = inspector_app(CountingStore(), token=TOKEN, max_streams=3, poll_seconds=0.02)
    feed = app.state.feed
    async with served(app) as base, client(base) as http:
        async with AsyncExitStack() as streams:
            for _ in range(3):
                assert (await streams.enter_async_context(http.stream("GET", "/api/events"))).status_code == 200
            refused = await http.get("/api/events")
            assert refused.status_code == 503 and refused.headers["retry-after"] == "10"
            assert "too many live streams are open (3)" in refused.text
            head = await http.head("/api/events")  # answered without a stream: it must not keep a slot
            assert head.status_code == 503
        await wait_until(lambda: feed.streams == 0, what="the closed streams to free their slots")
        async with http.stream("GET", "/api/events") as again:
            assert again.status_code == 200
        for _ in range(5):  # a HEAD (no stream is ever started) gives its slot back too
            assert (await http.head("/api/events")).status_code == 200
        await wait_until(lambda: feed.streams == 0, what="every slot back")


async def test_a_stream_sends_changed_rows_and_new_approvals_not_pages() -> None:
    store = CountingStore()
    await store.write([record(f"old{n}") for n in range(50)], [])
    await store.park(parked("p1"), max_per_agent=10)
    app = inspector_app(store, token=TOKEN, poll_seconds=0.02)
    async with served(app) as base, client(base) as http, http.stream("GET", "/api/events") as response:
        events = Events(response)
        assert (await events.next())[0] == "reset"
        await store.write([record("run1", "running")], [])
        name, _, rows = await events.next()
        assert name == "journal" and [(r["recordId"], r["outcome"]) for r in rows] == [("run1", "running")]  # not the 50 old

        await store.write([record("run1", "running", progress={"progress": 1, "total": 2})], [])
        name, _, rows = await events.next()
        assert name == "journal" and [(r["recordId"], r["progress"]) for r in rows] == [("run1", {"progress": 1, "total": 2})]

        await store.park(parked("p2"), max_per_agent=10)
        name, _, change = await events.next()
        assert name == "approvals" and change["ids"] == ["p1", "p2"]
        assert [view["approvalId"] for view in change["added"]] == ["p2"]  # p1's view is not sent again

        headers = {"x-csrf-token": csrf_token(TOKEN), "content-type": "application/json"}
        decided = await http.post("/api/decide", content=orjson.dumps({"approvalId": "p1", "outcome": "rejected"}), headers=headers)
        assert decided.status_code == 200
        name, _, change = await events.next()
        assert name == "approvals" and change == {"ids": ["p2"], "added": []}


async def test_a_large_parked_call_is_read_once_not_on_every_look() -> None:
    store = CountingStore(max_value_bytes=64 * 1024 * 1024)
    await store.park(parked("big", arguments={"blob": "x" * (10 * 1024 * 1024)}), max_per_agent=10)
    app = inspector_app(store, token=TOKEN, poll_seconds=0.01)
    feed = app.state.feed
    async with served(app) as base, client(base) as http, http.stream("GET", "/api/events") as response:
        assert (await Events(response).next())[0] == "reset"
        await wait_until(lambda: feed.looks >= 30, what="30 looks")
    assert store.reads["get_parked"] == 1 and store.reads["parked"] == 0


async def test_a_page_that_reconnects_gets_what_it_missed_and_one_too_far_behind_reloads() -> None:
    store = CountingStore()
    app = inspector_app(store, token=TOKEN, poll_seconds=0.02)
    async with served(app) as base, client(base) as http:
        async with http.stream("GET", "/api/events") as response, http.stream("GET", "/api/events") as keeper:
            events = Events(response)
            _, seen, _ = await events.next()  # reset: the id to come back with
            await Events(keeper).next()
        await store.write([record("missed")], [])
        async with http.stream("GET", "/api/events", headers={"last-event-id": seen}) as response:
            name, _, rows = await Events(response).next()
            assert name == "journal" and [row["recordId"] for row in rows] == ["missed"]
        async with http.stream("GET", "/api/events", headers={"last-event-id": "another-epoch-3"}) as response:
            assert (await Events(response).next())[0] == "reset"


async def test_the_page_carries_where_its_stream_picks_up() -> None:
    store = CountingStore()
    app = inspector_app(store, token=TOKEN, poll_seconds=0.02)
    async with served(app) as base, client(base) as http:
        page = await http.get("/")
        assert '"since":""' in page.text  # no watcher yet: the page's stream starts with a reset
        async with http.stream("GET", "/api/events") as response:
            await Events(response).next()
            position = app.state.feed.position()
            assert f'"since":"{position}"' in (await http.get("/")).text
            await store.write([record("after")], [])
            async with http.stream("GET", f"/api/events?since={position}") as follower:
                name, _, rows = await Events(follower).next()
                assert name == "journal" and [row["recordId"] for row in rows] == ["after"]


async def test_a_stream_says_when_the_store_fails_and_when_it_is_back() -> None:
    class Flaky(CountingStore):
        failing = False

        async def changes(self, cursor: Any = None) -> Any:
            if self.failing:
                raise StoreUnavailable("the database is away")
            return await super().changes(cursor)

    store = Flaky()
    app = inspector_app(store, token=TOKEN, poll_seconds=0.02)
    async with served(app) as base, client(base) as http, http.stream("GET", "/api/events") as response:
        events = Events(response)
        assert (await events.next())[0] == "reset"
        store.failing = True
        name, _, status = await events.next()
        assert name == "status" and status["ok"] is False and "the database is away" in status["error"]
        store.failing = False
        name, _, status = await events.next()
        assert name == "status" and status == {"ok": True}  # said once each way, not on every failed look
        await store.write([record("after")], [])
        name, _, rows = await events.next()
        assert name == "journal" and [row["recordId"] for row in rows] == ["after"]
