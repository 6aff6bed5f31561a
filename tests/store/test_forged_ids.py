"""Issue 34, item 9: a forged approval id is an unknown id (``KeyError``), on every store and through ``resume``.

An id reaches ``decide`` and ``resume`` from a page, a command line or
another process, so it may hold what no minted id does: a lone surrogate
(UTF-8 cannot carry it; ``argv`` bytes decode to one), a NUL (PostgreSQL's
text refuses it), or plain bulk. None of them names a parked call, so each
is a ``KeyError`` like any unknown id, never a ``TypeError`` or
``UnicodeEncodeError`` from the encoding underneath, and nothing is touched.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_tools.store import CallStore, MemoryStore, PostgresStore, SqliteStore

from test_store_contract import parked
from writer_app import approval_of, call, setup

FORGED = {
    "lone-high-surrogate": "\ud800",
    "lone-low-surrogate-inside": "0123abcd\udfff0123",
    "surrogate-escaped-argv-bytes": b"\xff\xfe".decode("utf-8", "surrogateescape"),
    "nul": "\x00",
    "nul-after-a-real-looking-id": "p1\x00",
    "a-megabyte": "f" * 1_000_000,
}


@pytest.mark.parametrize("forged", FORGED.values(), ids=FORGED.keys())
async def test_forged_approval_id_is_a_key_error_on_every_store(store: CallStore, forged: str) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    with pytest.raises(KeyError):
        await store.decide(forged, "allowed-once")
    assert await store.get_parked(forged) is None
    with pytest.raises(KeyError):
        await store.claim(forged, owner="me", lease_seconds=30)
    assert not await store.renew(forged, owner="me", lease_seconds=30)
    await store.finish(forged, owner="me")  # nothing to finish: a no-op, as for any unknown id
    kept = await store.get_parked("p1")
    assert kept is not None and kept.state == "parked" and kept.decision is None  # the real call is untouched


async def test_a_decided_by_with_a_lone_surrogate_is_a_value_error_on_every_store(store: CallStore) -> None:
    await store.park(parked("p1"), max_per_agent=10)
    with pytest.raises(ValueError, match="decided_by must be Unicode text"):
        await store.decide("p1", "rejected", decided_by="mallory\ud800")
    kept = await store.get_parked("p1")
    assert kept is not None and kept.decision is None  # refused before anything was written
    await store.decide("p1", "rejected", decided_by="mallory")


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
@pytest.mark.parametrize("forged", FORGED.values(), ids=FORGED.keys())
async def test_forged_approval_id_through_resume_is_a_key_error(
    kind: str, forged: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store: CallStore
    if kind == "memory":
        store = MemoryStore()
    elif kind == "sqlite":
        store = SqliteStore(tmp_path / "calls.db")
    else:
        store = PostgresStore(request.getfixturevalue("fresh_postgres"))
    ctx, agent, runs = setup(store=store)
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    with pytest.raises(KeyError):
        await ctx.tools.resume(forged, "allowed-once")
    with pytest.raises(KeyError):
        await ctx.tools.resume(forged)
    (pending,) = await ctx.tools.pending_approvals()
    assert pending.approval_id == approval_id and pending.decision is None and runs == []  # nothing consumed
    await store.aclose()
