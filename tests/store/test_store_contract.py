"""What every store promises, checked against each of them (memory, a SQLite file, a real PostgreSQL)."""

from __future__ import annotations

import asyncio
import time

import pytest

from dsh_tools import thaw_json
from dsh_tools.store import ApprovalLog, CallRecord, CallStore, ParkedCall, SessionEvent


def parked(approval_id: str, agent_id: str = "a1", created_at: float | None = None, **extra: object) -> ParkedCall:
    return ParkedCall(
        approval_id=approval_id,
        agent_id=agent_id,
        agent_name="writer",
        call_id=f"call-{approval_id}",
        tool_name="write_file",
        arguments={"path": "a.txt", "text": "hi"},
        description="Write a file.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
        fingerprint="f" * 64,
        created_at=time.time() if created_at is None else created_at,
        **extra,  # type: ignore[arg-type]
    )


def record(record_id: str, **fields: object) -> CallRecord:
    base: dict[str, object] = {
        "record_id": record_id,
        "call_id": f"c-{record_id}",
        "agent_id": "a1",
        "tool_name": "read",
        "arguments": {"path": "x"},
        "outcome": "ok",
        "started_at": time.time(),
        "ended_at": time.time(),
    }
    base.update(fields)
    return CallRecord(**base)  # type: ignore[arg-type]


async def test_a_parked_call_reads_back_whole(store: CallStore) -> None:
    call = parked("p1", reason="writes", card={"card": "generic", "title": "write a.txt"}, output_schema={"type": "string"})
    assert await store.park(call, max_per_agent=10)
    assert await store.get_parked("p1") == call
    assert await store.parked(agent_id="a1") == [call]
    assert await store.parked() == [call]
    assert await store.get_parked("nope") is None


async def test_the_cap_counts_only_waiting_calls_of_that_agent(store: CallStore) -> None:
    assert await store.park(parked("p1"), max_per_agent=2)
    assert await store.park(parked("p2"), max_per_agent=2)
    assert not await store.park(parked("p3"), max_per_agent=2)
    assert await store.park(parked("q1", agent_id="a2"), max_per_agent=2)
    assert await store.get_parked("p3") is None
    await store.decide("p1", "allowed-once")
    assert not await store.park(parked("p3"), max_per_agent=2)  # decided but not run still waits
    await store.claim("p1", owner="me", lease_seconds=30)
    assert await store.park(parked("p3"), max_per_agent=2)


async def test_deciding_is_once_and_checked(store: CallStore) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    with pytest.raises(ValueError, match="allowed-once, rejected, cancelled, unavailable"):
        await store.decide("p1", "deferred")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="only with an 'allowed-once'"):
        await store.decide("p1", "rejected", arguments={"path": "b"})
    with pytest.raises(TypeError, match="not JSON"):
        await store.decide("p1", "allowed-once", arguments={"path": float("nan")})
    decision = await store.decide("p1", "allowed-once", arguments={"path": "b.txt"}, decided_by="alice")
    assert (decision.outcome, decision.decided_by) == ("allowed-once", "alice")
    with pytest.raises(KeyError):
        await store.decide("p1", "rejected")
    with pytest.raises(KeyError):
        await store.decide("unknown", "rejected")
    with pytest.raises(KeyError):
        await store.decide(7, "rejected")  # type: ignore[arg-type]
    kept = await store.get_parked("p1")
    assert kept is not None and kept.decision == decision and kept.state == "decided"
    assert thaw_json(kept.arguments) == {"path": "a.txt", "text": "hi"}  # the original stays
    assert await store.parked() == []  # the operator's list holds undecided calls only
    assert [p.approval_id for p in await store.decided("a1")] == ["p1"]


async def test_one_claim_wins(store: CallStore) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    with pytest.raises(KeyError):
        await store.claim("p1", owner="me", lease_seconds=30)  # undecided: nothing to run yet
    await store.decide("p1", "allowed-once")
    claims = await asyncio.gather(
        *(store.claim("p1", owner=f"o{n}", lease_seconds=30) for n in range(5)), return_exceptions=True
    )
    won = [c for c in claims if isinstance(c, ParkedCall)]
    assert len(won) == 1 and sum(isinstance(c, KeyError) for c in claims) == 4
    owner = won[0].claimed_by
    assert owner is not None and await store.renew("p1", owner=owner, lease_seconds=30)
    assert not await store.renew("p1", owner="someone-else", lease_seconds=30)
    await store.finish("p1", owner=owner)
    assert (await store.get_parked("p1")).state == "done"  # type: ignore[union-attr]
    with pytest.raises(KeyError):
        await store.claim("p1", owner="late", lease_seconds=30)
    assert await store.decided("a1") == [] and await store.parked(agent_id="a1") == []


async def test_a_lapsed_claim_is_interrupted_and_never_claimed_again(store: CallStore) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    await store.decide("p1", "allowed-once")
    await store.claim("p1", owner="dead", lease_seconds=-1)  # a lease already over: its process died
    assert [p.approval_id for p in await store.interrupted()] == ["p1"]
    assert not await store.renew("p1", owner="dead", lease_seconds=30)
    with pytest.raises(KeyError):
        await store.claim("p1", owner="other", lease_seconds=30)


async def _events(store: CallStore, approval_id: str) -> list[str]:
    assert isinstance(store, ApprovalLog)
    return [e.event for e in await store.approval_events() if e.approval_id == approval_id]


async def test_settling_a_lapsed_claim_logs_it_settled_once(store: CallStore) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    await store.decide("p1", "allowed-once")
    await store.claim("p1", owner="dead", lease_seconds=-1)  # its claimant died before the body's record
    (settled,) = await store.settle_interrupted("call-p1", decided_by="ops")
    assert settled.outcome == "unknown" and settled.approval_id == "p1"
    assert await _events(store, "p1") == ["parked", "decided", "settled"]  # what `approvals watch` prints
    assert (await store.get_parked("p1")).state == "done"  # type: ignore[union-attr]
    assert await store.interrupted() == []
    with pytest.raises(KeyError):
        await store.settle_interrupted("call-p1", decided_by="again")


async def test_settling_a_resumed_call_that_died_mid_body_settles_its_parked_row_too(store: CallStore) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    await store.decide("p1", "allowed-once")
    await store.claim("p1", owner="dead", lease_seconds=-1)
    running = record(
        "r1", call_id="call-p1", outcome="running", ended_at=None, approval_id="p1", owner="dead", lease_until=time.time() - 1
    )
    await store.write([running], [])  # the resumed body started, then its process died
    (settled,) = await store.settle_interrupted("call-p1", decided_by="ops")
    assert settled.outcome == "unknown" and settled.approval_id == "p1"
    assert await store.interrupted() == []  # the parked row is not listed again, as a lapsed claim
    with pytest.raises(KeyError):
        await store.settle_interrupted("call-p1", decided_by="again")
    assert await _events(store, "p1") == ["parked", "decided", "settled"]
    assert (await store.get_parked("p1")).state == "done"  # type: ignore[union-attr]


async def test_the_journal_upserts_filters_and_returns_the_newest_oldest_first(store: CallStore) -> None:
    await store.write([record("r1", outcome="running", ended_at=None)], [])
    await store.write([record("r1", outcome="ok"), record("r2", tool_name="write", outcome="denied", is_error=True)], [])
    await store.write([record("r3", agent_id="a2", parent_call_id="c-r1")], [SessionEvent("a1", "note", {"n": 1}, 1.0)])
    everything = await store.journal()
    assert [r.record_id for r in everything] == ["r1", "r2", "r3"]
    assert everything[0].outcome == "ok"
    assert [r.record_id for r in await store.journal(limit=2)] == ["r2", "r3"]
    assert [r.record_id for r in await store.journal(tool_name="write")] == ["r2"]
    assert [r.record_id for r in await store.journal(is_error=True)] == ["r2"]
    assert [r.record_id for r in await store.journal(outcome="ok", agent_id="a1")] == ["r1"]
    assert [r.record_id for r in await store.journal(parent_call_id="c-r1")] == ["r3"]
    assert [r.record_id for r in await store.journal(call_id="c-r2")] == ["r2"]
    assert [(e.type, thaw_json(e.data)) for e in await store.session_events("a1")] == [("note", {"n": 1})]


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ({"limit": 0}, ValueError),
        ({"limit": "5"}, ValueError),
        ({"limit": 10**9}, ValueError),
        ({"agent_id": 7}, TypeError),
        ({"is_error": "yes"}, TypeError),
        ({"since": "yesterday"}, TypeError),
    ],
)
async def test_a_bad_journal_query_names_the_argument(store: CallStore, query: dict[str, object], problem: type) -> None:
    with pytest.raises(problem, match=next(iter(query))):
        await store.journal(**query)  # type: ignore[arg-type]


async def test_large_values_are_kept_as_a_preview_and_their_size(store: CallStore) -> None:
    big = "x" * 200_000
    await store.write([record("r1", arguments={"text": big}, content=({"type": "text", "text": "ok"},))], [])
    (kept,) = await store.journal()
    preview = thaw_json(kept.arguments)
    assert isinstance(preview, dict) and preview["$bytes"] > 200_000 and len(preview["$preview"]) == 1024
    assert thaw_json(kept.content) == [{"type": "text", "text": "ok"}]


async def test_prune_drops_what_ended_before(store: CallStore) -> None:
    now = time.time()
    await store.write([record("old", ended_at=now - 100), record("new", ended_at=now), record("run", ended_at=None, outcome="running")], [])
    assert await store.prune(before=now - 50) >= 1
    assert [r.record_id for r in await store.journal()] == ["new", "run"]


@pytest.mark.parametrize("before", ["2020-01-01", None, True, float("nan"), b"0"])
async def test_prune_refuses_a_before_that_is_not_unix_seconds_and_deletes_nothing(store: CallStore, before: object) -> None:
    """SQLite ranks every number below any text: a string ``before`` once deleted the whole journal there."""
    now = time.time()
    await store.write([record("old", ended_at=now - 100), record("new", ended_at=now)], [])
    with pytest.raises(TypeError, match="Unix seconds"):
        await store.prune(before=before)  # type: ignore[arg-type]  # the mistake under test
    assert [r.record_id for r in await store.journal()] == ["old", "new"]


async def test_a_write_failure_is_counted_by_health(store: CallStore) -> None:
    assert store.health().write_failures == 0
    store.note_failure(OSError("disk full"))
    health = store.health()
    assert health.write_failures == 1 and health.last_error == "OSError: disk full"


async def test_wait_for_decision_returns_when_one_arrives(store: CallStore) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    waiting = asyncio.ensure_future(store.wait_for_decision("a1", 30.0))
    await asyncio.sleep(0)
    await store.decide("p1", "rejected")
    await asyncio.wait_for(waiting, 10)  # a bound on a hang, not a timing assertion
    assert [p.approval_id for p in await store.decided("a1")] == ["p1"]
