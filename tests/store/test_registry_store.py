"""The registry on a store, in one process: the cap, stale approvals, edited arguments, failures that never raise."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    CodeRunRequest,
    CodeRunResult,
    DeferringApprovalService,
    ToolExecutionInput,
    boot,
    thaw_json,
    tool,
)
from dsh_tools.store import CallRecord, MemoryStore, ParkedCall, SessionEvent, SqliteStore
from dsh_tools.testing import Bindings, ScriptedCodeRuntime

from writer_app import approval_of, ask_for_writes, call, setup, writer


# -- the cap ------------------------------------------------------------------------------


async def test_past_the_cap_a_deferral_is_approval_unavailable_and_never_runs() -> None:
    ctx, agent, runs = setup(max_parked_per_agent=2)
    first = await ctx.tools.execute(call(agent, "c1"))
    second = await ctx.tools.execute(call(agent, "c2"))
    third = await ctx.tools.execute(call(agent, "c3"))
    approval_of(first), approval_of(second)
    assert third.is_error and third.error is not None and third.error.code == "APPROVAL_UNAVAILABLE"
    assert third.outcome == "approval-rejected" and "max_parked_per_agent" in third.text
    assert len(await ctx.tools.pending_approvals(agent)) == 2 and runs == []
    other = Agent(ctx, name="other")
    assert (await ctx.tools.execute(call(other, "c4"))).outcome == "approval-pending"  # the cap is per agent


async def test_programs_deferring_big_calls_park_at_most_the_cap() -> None:
    """The attack from the hostile review: programs deferring 4 MB calls may not park without bound.

    A program parks at its first deferred call (and only that one waits); a
    model sending program after program is held by ``max_parked_per_agent``:
    past it, the deferred call settles ``APPROVAL_UNAVAILABLE`` and rejects
    inside the program instead of parking.
    """
    big = "x" * (4 * 1024 * 1024)
    answers: list[str] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        for n in range(12):
            try:
                await tools["write_file"]({"path": f"{n}.txt", "text": big})
            except Exception as error:  # noqa: BLE001 - the program's own catch
                answers.append(str(error))
        return CodeRunResult(logs=())

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime({"loop": program}), max_parked_per_agent=3)
    runs: list[object] = []
    writer(ctx, runs)
    ctx.on("tools/pre-execute", ask_for_writes)
    ctx.provide(APPROVAL, DeferringApprovalService())
    agent = Agent(ctx, name="coder")
    outcomes = [
        (await ctx.tools.execute(ToolExecutionInput(f"run{n}", "run_code", {"code": "loop"}, agent))).outcome
        for n in range(6)
    ]
    assert outcomes == ["approval-pending"] * 3 + ["ok"] * 3
    assert len(await ctx.tools.pending_approvals(agent)) == 3 and runs == []
    assert sum("max_parked_per_agent" in a for a in answers) == 3 * 12  # the later programs were refused every time


class FailingParkStore(MemoryStore):
    async def park(self, call: ParkedCall, *, max_per_agent: int) -> bool:
        raise OSError("disk full")


async def test_a_park_the_store_cannot_commit_is_approval_unavailable_and_counted() -> None:
    store = FailingParkStore()
    ctx, agent, runs = setup(store=store)
    result = await ctx.tools.execute(call(agent))
    assert result.error is not None and result.error.code == "APPROVAL_UNAVAILABLE"
    assert "could not be saved: disk full" in result.text and runs == []
    assert store.health().write_failures == 1


class FailingJournal(MemoryStore):
    def write_now(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        raise OSError("journal disk full")


class FailingSqliteJournal(SqliteStore):
    async def write(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        raise OSError("journal disk full")

    def write_now_if_free(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> bool:
        raise OSError("journal disk full")


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_a_journal_write_that_fails_never_fails_the_call(kind: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = FailingJournal() if kind == "memory" else FailingSqliteJournal(tmp_path / "j.db")
    ctx = boot(store=store)
    runs: list[object] = []
    writer(ctx, runs)
    with caplog.at_level(logging.WARNING, logger="dsh_tools.store"):
        result = await ctx.tools.execute(ToolExecutionInput("c1", "write_file", {"path": "a"}, None))
    assert result.text == "wrote a" and result.outcome == "ok"
    assert store.health().write_failures >= 1 and "journal disk full" in (store.health().last_error or "")
    assert "store write failed" in caplog.text
    await store.aclose()


# -- stale approvals ----------------------------------------------------------------------


async def test_a_definition_changed_after_parking_settles_stale_and_does_not_run() -> None:
    ctx, _, _ = setup()
    agent = Agent(ctx, name="w")
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    # the agent now resolves write_file to a different definition (its own, shadowing the global one)
    shadow_runs: list[object] = []
    writer(agent.ctx, shadow_runs, description="Write a file, and also delete the rest.")
    result = await ctx.tools.resume(approval_id, "allowed-once")
    assert result.error is not None and result.error.code == "APPROVAL_STALE" and result.outcome == "approval-stale"
    assert "changed after it was approved" in result.text and shadow_runs == []


async def test_a_call_restricted_away_after_parking_settles_stale() -> None:
    ctx, agent, runs = setup()
    ctx.tools.register(tool(name="other", description="Other.")(_other))
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    agent.ctx.tools.restrict(deny=["write_file"])
    result = await ctx.tools.resume(approval_id, "allowed-once")
    assert result.outcome == "approval-stale" and "no longer offered" in result.text and runs == []


async def _other() -> str:
    return "other"


async def test_a_rejection_of_a_stale_call_is_still_a_rejection() -> None:
    ctx, agent, runs = setup()
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    agent.ctx.tools.restrict(deny=["write_file"])
    result = await ctx.tools.resume(approval_id, "rejected")
    assert result.outcome == "approval-rejected" and runs == []


# -- edited arguments ---------------------------------------------------------------------


async def test_edited_arguments_run_and_both_are_kept() -> None:
    ctx, agent, runs = setup()
    approval_id = approval_of(await ctx.tools.execute(call(agent, text="rm -rf")))
    result = await ctx.tools.resume(approval_id, "allowed-once", arguments={"path": "a.txt", "text": "safe"})
    assert result.text == "wrote a.txt" and runs == [("a.txt", "safe")]
    kept = await ctx.tools.store.get_parked(approval_id)
    assert kept is not None and kept.decision is not None
    assert thaw_json(kept.arguments) == {"path": "a.txt", "text": "rm -rf"}
    assert thaw_json(kept.decision.arguments) == {"path": "a.txt", "text": "safe"}


async def test_edited_arguments_are_validated_like_the_models() -> None:
    ctx, agent, runs = setup()
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    result = await ctx.tools.resume(approval_id, "allowed-once", arguments={"path": 7})
    assert result.outcome == "invalid-args" and runs == []


@pytest.mark.parametrize(
    ("outcome", "arguments", "problem"),
    [("rejected", {"path": "b"}, ValueError), (None, {"path": "b"}, ValueError), ("allowed-once", {"p": float("inf")}, TypeError)],
)
async def test_bad_edits_raise_and_consume_nothing(outcome: object, arguments: object, problem: type) -> None:
    ctx, agent, runs = setup()
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    with pytest.raises(problem):
        await ctx.tools.resume(approval_id, outcome, arguments=arguments)  # type: ignore[arg-type]
    assert (await ctx.tools.resume(approval_id, "allowed-once")).outcome == "ok"


async def test_a_decision_recorded_by_the_store_is_run_by_resume_without_an_outcome() -> None:
    ctx, agent, runs = setup()
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    with pytest.raises(ValueError, match="no decision yet"):
        await ctx.tools.resume(approval_id)
    await ctx.tools.store.decide(approval_id, "allowed-once", decided_by="ui")
    with pytest.raises(KeyError):
        await ctx.tools.resume(approval_id, "rejected")  # deciding twice
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert pending.decision is not None and pending.decision.decided_by == "ui"
    assert (await ctx.tools.resume(approval_id)).outcome == "ok" and len(runs) == 1
    assert await ctx.tools.pending_approvals(agent) == []


async def test_resume_decided_runs_each_decided_call_once() -> None:
    ctx, agent, runs = setup()
    ids = [approval_of(await ctx.tools.execute(call(agent, f"c{n}", text=str(n)))) for n in range(3)]
    await ctx.tools.store.decide(ids[2], "allowed-once")
    await ctx.tools.store.decide(ids[0], "rejected")
    results = await ctx.tools.resume_decided(agent)
    assert [r.outcome for r in results] == ["ok", "approval-rejected"]  # in decision order
    assert runs == [("a.txt", "2")] and await ctx.tools.resume_decided(agent) == []
    assert [p.approval_id for p in await ctx.tools.pending_approvals(agent)] == [ids[1]]


# -- a durable store keeps what a disposed agent parked ------------------------------------


async def test_a_durable_store_keeps_a_disposed_agents_calls(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'calls.db'}"
    ctx, agent, runs = setup(store=url)
    approval_of(await ctx.tools.execute(call(agent)))
    agent_id = agent.id
    await agent.dispose()
    (pending,) = await ctx.tools.pending_approvals()
    assert pending.agent_id == agent_id and pending.execution.agent is None
    again = Agent(ctx, name="writer", id=agent_id)  # the id is free again once its agent is disposed
    assert (await ctx.tools.resume(pending.approval_id, "allowed-once", )).outcome == "ok"
    assert runs == [("a.txt", "")] and again.id == agent_id
    await ctx.tools.store.aclose()


# -- agent ids ----------------------------------------------------------------------------


def test_two_live_agents_may_not_share_an_id() -> None:
    ctx = boot()
    Agent(ctx, name="a", id="same")
    with pytest.raises(ValueError, match="already used by a live agent 'a'"):
        Agent(ctx, name="b", id="same")
    other_app = boot()
    Agent(other_app, name="c", id="same")  # another app has its own agents


@pytest.mark.parametrize("bad", ["", 7, "x" * 201, "\ud800", b"id"])
def test_an_agent_id_must_be_a_reasonable_str(bad: object) -> None:
    with pytest.raises(ValueError, match="agent id"):
        Agent(boot(), name="a", id=bad)  # type: ignore[arg-type]


def test_an_agent_gets_a_fresh_id_when_not_given() -> None:
    ctx = boot()
    first, second = Agent(ctx, name="a"), Agent(ctx, name="a")
    assert first.id != second.id and len(first.id) >= 16


async def test_an_agent_now_presenting_code_mode_only_makes_a_direct_call_stale() -> None:
    ctx = boot(mode="both", code_runtime=ScriptedCodeRuntime())
    runs: list[object] = []
    writer(ctx, runs)
    ctx.on("tools/pre-execute", ask_for_writes)
    ctx.provide(APPROVAL, DeferringApprovalService())
    agent = Agent(ctx, name="w")
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    agent.ctx.tools.present_as("code")  # the agent is now shown run_code only
    result = await ctx.tools.resume(approval_id, "allowed-once")
    assert result.outcome == "approval-stale" and "only from run_code" in result.text and runs == []


async def test_the_running_process_renews_its_claim_while_the_call_runs(tmp_path: Path) -> None:
    import asyncio

    release = asyncio.Event()
    entered = asyncio.Event()
    ctx = boot(store=f"sqlite:///{tmp_path / 'calls.db'}", lease_seconds=1.0)

    @tool
    async def write_file(path: str, text: str = "") -> str:
        """Write slowly."""
        entered.set()
        await release.wait()
        return "written"

    ctx.tools.register(write_file)
    ctx.on("tools/pre-execute", ask_for_writes)
    ctx.provide(APPROVAL, DeferringApprovalService())
    agent = Agent(ctx, name="w")
    approval_id = approval_of(await ctx.tools.execute(call(agent)))
    running = asyncio.ensure_future(ctx.tools.resume(approval_id, "allowed-once"))
    await entered.wait()
    first = await ctx.tools.store.get_parked(approval_id)
    assert first is not None and first.state == "claimed" and first.lease_until is not None
    async with asyncio.timeout(30):  # the lease is renewed every third of a second while the body runs
        while (now := await ctx.tools.store.get_parked(approval_id)) is not None and now.lease_until == first.lease_until:
            await asyncio.sleep(0.02)
    assert await ctx.tools.store.interrupted() == []  # renewed: never lapsed while its process lived
    release.set()
    assert (await running).outcome == "ok"
    done = await ctx.tools.store.get_parked(approval_id)
    assert done is not None and done.state == "done"
    await ctx.tools.store.aclose()
