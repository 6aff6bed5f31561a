"""The call journal: every call recorded when it starts and when it settles, with its outcome, committed before it returns."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from dsh_tools import (
    APPROVAL,
    Accept,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    Block,
    CodeRunRequest,
    CodeRunResult,
    Context,
    Deny,
    PostNext,
    PostToolDecision,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolOutput,
    UnparsedArguments,
    boot,
    text_block,
    thaw_json,
    tool,
)
from dsh_tools.store import CallRecord, MemoryStore, SessionEvent, SqliteStore
from dsh_tools.testing import Bindings, ScriptedCodeRuntime

from store_kinds import sqlite_path, sqlite_url


@tool
async def echo(text: str) -> str:
    """Echo."""
    return text


@tool
async def crash() -> str:
    """Raise."""
    raise RuntimeError("boom")


@tool(timeout_ms=1)
async def slow() -> str:
    """Never finishes in time."""
    await asyncio.Event().wait()
    return "never"


@tool
async def hang() -> str:
    """Waits until cancelled."""
    await asyncio.Event().wait()
    return "never"


class Answer:
    def __init__(self, outcome: ApprovalOutcome) -> None:
        self.outcome = outcome

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        return self.outcome


@tool(output={"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]})
async def large() -> ToolOutput:
    """A typed value, its content and its meta, each past a small store's bound."""
    return ToolOutput([text_block("c" * 5000)], {"m": "m" * 5000}, value={"v": "v" * 5000})


def app(**boot_options: object) -> Context:
    ctx = boot(**boot_options)  # type: ignore[arg-type]
    for definition in (echo, crash, slow, hang):
        ctx.tools.register(definition)
    return ctx


def run(name: str, arguments: object, agent: Agent | None = None, call_id: str = "c1") -> ToolExecutionInput:
    return ToolExecutionInput(call_id, name, arguments, agent)  # type: ignore[arg-type]


async def only_record(ctx: Context, call_id: str = "c1") -> CallRecord:
    (record,) = await ctx.tools.store.journal(call_id=call_id)
    return record


# -- every outcome, on the result and in the journal ---------------------------------------------


async def test_ok_error_invalid_unknown_and_timeout() -> None:
    ctx = app()
    cases = [
        (run("echo", {"text": "hi"}, call_id="ok"), "ok"),
        (run("crash", {}, call_id="error"), "error"),
        (run("echo", {"text": 7}, call_id="invalid"), "invalid-args"),
        (run("echo", UnparsedArguments("not JSON", "{"), call_id="unparsed"), "invalid-args"),
        (run("nope", {}, call_id="unknown"), "unknown-tool"),
        (run("slow", {}, call_id="timeout"), "timeout"),
    ]
    for call, outcome in cases:
        result = await ctx.tools.execute(call)
        assert result.outcome == outcome, result.text
        record = await only_record(ctx, call.call_id)
        assert (record.outcome, record.is_error, record.tool_name) == (outcome, result.is_error, call.name)
        assert record.ended_at is not None and record.ended_at >= record.started_at
    ok = await only_record(ctx, "ok")
    assert thaw_json(ok.arguments) == {"text": "hi"} and thaw_json(ok.content) == [{"type": "text", "text": "hi"}]
    error = await only_record(ctx, "error")
    assert error.error is None and thaw_json(error.content) == [{"type": "text", "text": "Error: boom"}]
    assert thaw_json((await only_record(ctx, "timeout")).error) == {"name": "ToolTimeoutError", "code": "TOOL_TIMEOUT"}
    assert (await only_record(ctx, "unparsed")).arguments == "{"  # what the model sent, kept for the audit


async def test_denied_guard_denied_blocked_and_approval_outcomes() -> None:
    ctx = app()

    async def deny_echo(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        if exec.call_id == "denied":
            return Deny("not today")
        if exec.call_id.startswith("ask"):
            return Ask("sure?")
        return await next()

    async def block(exec: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        return Block([text_block("blocked it")]) if exec.call_id == "blocked" else Accept()

    ctx.on("tools/pre-execute", deny_echo)
    ctx.on("tools/post-execute", block)
    ctx.tools.guard(lambda exec: "guarded" if exec.call_id == "guard" else None)
    agent = Agent(ctx, name="a")
    expected = {"denied": "denied", "guard": "guard-denied", "blocked": "blocked", "ask-none": "approval-rejected"}
    for call_id, outcome in expected.items():
        result = await ctx.tools.execute(run("echo", {"text": "x"}, agent, call_id))
        assert result.outcome == outcome and result.error is None, (call_id, result.text)
        assert (await only_record(ctx, call_id)).outcome == outcome
    ctx.provide(APPROVAL, Answer("rejected"))
    assert (await ctx.tools.execute(run("echo", {"text": "x"}, agent, "ask-rejected"))).outcome == "approval-rejected"


async def test_a_parked_call_and_its_resumed_run_are_two_records_linked_by_the_approval_id() -> None:
    ctx = app()

    async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("sure?")

    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, Answer("deferred"))
    agent = Agent(ctx, name="a")
    parked = await ctx.tools.execute(run("echo", {"text": "later"}, agent))
    approval_id = thaw_json(parked.meta)["approvalId"]  # type: ignore[index]
    resumed = await ctx.tools.resume(approval_id, "allowed-once")
    first, second = await ctx.tools.store.journal(call_id="c1")
    assert (first.outcome, first.approval_id) == ("approval-pending", approval_id)
    assert (second.outcome, second.approval_id, resumed.text) == ("ok", approval_id, "later")
    assert first.record_id != second.record_id and first.agent_id == second.agent_id == agent.id


async def test_a_cancelled_call_is_recorded_aborted() -> None:
    ctx = app()
    task = asyncio.ensure_future(ctx.tools.execute(run("hang", {})))
    async with asyncio.timeout(10):
        while not await ctx.tools.store.journal(outcome="running"):
            await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    record = await only_record(ctx)
    assert record.outcome == "aborted" and thaw_json(record.error)["code"] == "ABORTED"  # type: ignore[index]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_a_running_call_is_in_the_journal_before_it_settles(kind: str, tmp_path: Path) -> None:
    ctx = app() if kind == "memory" else app(store=sqlite_url(tmp_path))
    task = asyncio.ensure_future(ctx.tools.execute(run("hang", {})))
    async with asyncio.timeout(10):
        while not (running := await ctx.tools.store.journal(outcome="running")):
            await asyncio.sleep(0)
    assert running[0].ended_at is None and running[0].tool_name == "hang"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


@tool
async def hang_with(text: str) -> str:
    """Waits until cancelled, holding its argument."""
    await asyncio.Event().wait()
    return text


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_a_running_call_shows_bounded_arguments_then_settles_into_the_same_record(kind: str, tmp_path: Path) -> None:
    # The memory store's running rows are made when read (its fast path); a written store keeps them: both alike.
    store = MemoryStore(max_value_bytes=1024) if kind == "memory" else SqliteStore(sqlite_path(tmp_path), max_value_bytes=1024)
    ctx = boot(store=store)
    ctx.tools.register(hang_with)
    task = asyncio.ensure_future(ctx.tools.execute(run("hang_with", {"text": "x" * 5000})))
    async with asyncio.timeout(10):
        while not (running := await ctx.tools.store.journal(outcome="running")):
            await asyncio.sleep(0)
    arguments = thaw_json(running[0].arguments)
    assert isinstance(arguments, dict) and arguments["$bytes"] > 5000 and len(arguments["$preview"]) <= 1024
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (record,) = await ctx.tools.store.journal(call_id="c1")
    assert record.outcome == "aborted" and record.record_id == running[0].record_id
    assert await ctx.tools.store.journal(outcome="running") == []


async def test_code_mode_sub_calls_name_their_run_code_call() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["echo"]({"text": "one"})
        await tools["echo"]({"text": "two"})
        return CodeRunResult(logs=())

    ctx = app(mode="code", code_runtime=ScriptedCodeRuntime({"p": program}))
    agent = Agent(ctx, name="coder")
    await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": "p"}, agent))
    subs = await ctx.tools.store.journal(parent_call_id="run")
    assert [(r.call_id, r.tool_name, r.outcome) for r in subs] == [("run:code:1", "echo", "ok"), ("run:code:2", "echo", "ok")]
    (run_record,) = await ctx.tools.store.journal(call_id="run")
    assert run_record.tool_name == "run_code" and run_record.parent_call_id is None


async def test_session_events_reach_the_store(tmp_path: Path) -> None:
    ctx = app(store=sqlite_url(tmp_path))

    @tool
    async def note(exec: ToolExecution) -> str:
        """Note something in the session."""
        assert exec.agent is not None
        exec.agent.session.append("tool/note", {"from": exec.call_id})
        return "noted"

    ctx.tools.register(note)
    agent = Agent(ctx, name="a")
    await ctx.tools.execute(run("note", {}, agent))
    # committed with the call's own record, before execute() returned
    events = await ctx.tools.store.session_events(agent.id)
    assert [(e.type, thaw_json(e.data)) for e in events] == [("tool/note", {"from": "c1"})]
    await ctx.tools.store.aclose()


# -- group commit and the memory fast path -----------------------------------------------------------


class CountingSqlite(SqliteStore):
    writes = 0

    async def write(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        type(self).writes += 1
        await super().write(records, events)


async def test_a_batch_is_committed_in_groups_not_one_transaction_per_call(tmp_path: Path) -> None:
    store = CountingSqlite(sqlite_path(tmp_path))
    ctx = app(store=store)
    calls = [run("echo", {"text": str(n)}, call_id=f"c{n}") for n in range(200)]
    results = await asyncio.gather(*(ctx.tools.execute(call) for call in calls))
    assert all(r.outcome == "ok" for r in results)
    assert len(await store.journal(limit=1000)) == 200  # every record committed before its execute() returned
    assert CountingSqlite.writes < 50  # grouped: a write carries many calls' records
    await store.aclose()


class PlainMemory(MemoryStore):
    """A ``MemoryStore`` the journal does not recognise: every record is made at settlement and written."""


def comparable(records: Sequence[CallRecord]) -> list[CallRecord]:
    """The records without what differs from run to run (ids, keys, times)."""
    return [
        r.set(record_id="r", started_at=0.0, ended_at=0.0, idempotency_key="k", agent_id=r.agent_id and "a")
        for r in records
    ]


async def test_the_memory_fast_path_keeps_what_the_plain_write_keeps() -> None:
    """Records made when the ring is read (MemoryStore.write_settled) equal those made and written at settlement."""
    made: dict[str, list[CallRecord]] = {}
    for kind, store in (("fast", MemoryStore(max_value_bytes=1024)), ("plain", PlainMemory(max_value_bytes=1024))):
        ctx = app(store=store)

        async def gate(exec: ToolExecution, next: PreNext) -> PreToolDecision:
            return Deny("not today") if exec.call_id == "denied" else Ask("sure?") if exec.call_id == "asked" else await next()

        ctx.on("tools/pre-execute", gate)
        ctx.provide(APPROVAL, Answer("deferred"))
        agent = Agent(ctx, name="a")
        await ctx.tools.execute(run("echo", {"text": "a"}, agent))
        await ctx.tools.execute(run("crash", {}, call_id="c2"))
        await ctx.tools.execute(run("echo", {"text": "x" * 5000}, call_id="big"))
        ctx.tools.register(large)
        await ctx.tools.execute(run("large", {}, call_id="large"))  # content, value and meta all past the bound
        await ctx.tools.execute(run("echo", {"text": "no"}, call_id="denied"))
        parked = await ctx.tools.execute(run("echo", {"text": "yes"}, agent, call_id="asked"))
        approval_id = thaw_json(parked.meta)["approvalId"]  # type: ignore[index]
        await ctx.tools.resume(approval_id, "allowed-once", decided_by="ops", remember="agent")
        await ctx.tools.execute(run("echo", {"text": "again"}, agent, call_id="asked"))  # allowed by the rule
        made[kind] = [  # without the random ids (an approval's, in a parked call's meta)
            r.set(approval_id=None, approval_rule=None, meta=None if r.outcome == "approval-pending" else r.meta)
            for r in await store.journal()
        ]
    fast, plain = made["fast"], made["plain"]
    assert [r.outcome for r in fast] == ["ok", "error", "ok", "ok", "denied", "approval-pending", "ok", "ok"]
    previews = [thaw_json(getattr(fast[3], name)) for name in ("content", "value", "meta")]
    assert all(isinstance(p, dict) and p["$bytes"] > 5000 for p in previews), previews  # every payload bounded
    assert [r.decided_by for r in fast[-2:]] == ["ops", "ops"]  # the decision, then the rule it remembered
    assert comparable(fast) == comparable(plain)
    big = thaw_json(fast[2].arguments)
    assert isinstance(big, dict) and big["$bytes"] > 5000  # bounded when made, as the plain write bounds it


class Unmade:
    """A settled call's facts as the journal hands them to ``MemoryStore.write_settled``."""

    def __init__(self, record: CallRecord) -> None:
        self.made, self.record_id, self.owner = 0, record.record_id, record.owner
        self.ended_at = record.ended_at or 0.0
        self._record = record

    def keep_within(self, max_bytes: int) -> None:
        self.kept_within = max_bytes

    def record(self) -> CallRecord:
        self.made += 1
        return self._record


async def test_an_unmade_record_is_made_once_when_read_and_counts_for_changes_prune_and_the_ring() -> None:
    store = MemoryStore(max_records=3)
    first = await store.changes()
    unmade = [Unmade(CallRecord(f"r{n}", f"c{n}", "a", "echo", {"n": n}, "ok", 1.0, ended_at=float(n))) for n in range(4)]
    for entry in unmade:
        store.write_settled(entry)
    assert sum(entry.made for entry in unmade) == 0  # nothing made until somebody reads
    assert {entry.kept_within for entry in unmade} == {store.max_value_bytes}  # but bounded as it was kept
    changed = await store.changes(first.cursor)
    assert [r.record_id for r in changed.records] == ["r1", "r2", "r3"]  # the ring dropped r0 unmade
    assert [r.record_id for r in await store.journal()] == ["r1", "r2", "r3"]
    assert [entry.made for entry in unmade] == [0, 1, 1, 1]  # made once, then kept made
    store.write_settled(Unmade(CallRecord("r9", "c9", "a", "echo", {}, "ok", 1.0, ended_at=9.0)))
    assert await store.prune(before=3.0) == 1  # r2 ended before 3; r9 is pruned by its ended_at while unmade too
    assert [r.record_id for r in await store.journal()] == ["r3", "r9"]


async def test_an_unmade_settlement_of_a_record_kept_by_another_owner_is_its_late_note() -> None:
    store = MemoryStore()
    store.write_now([CallRecord("r1", "c1", "a", "echo", {}, "ok", 1.0, ended_at=2.0, owner="first")], [])
    store.write_settled(Unmade(CallRecord("r1", "c1", "a", "echo", {}, "error", 1.0, ended_at=3.0, owner="second")))
    (kept,) = await store.journal()
    assert kept.outcome == "ok" and kept.owner == "first" and kept.late_note is not None


async def test_the_memory_store_is_a_bounded_ring() -> None:
    ctx = app(store=MemoryStore(max_records=5))
    for n in range(20):
        await ctx.tools.execute(run("echo", {"text": str(n)}, call_id=f"c{n}"))
    assert [r.call_id for r in await ctx.tools.store.journal()] == [f"c{n}" for n in range(15, 20)]


async def test_each_agents_session_events_are_a_bounded_ring_of_the_newest() -> None:
    store = MemoryStore(max_records=3)
    store.write_now((), [SessionEvent("a", "note", {"n": n}, float(n)) for n in range(5)])
    store.write_now((), [SessionEvent("b", "note", {"n": 9}, 9.0)])
    assert [e.data for e in await store.session_events("a")] == [{"n": 2}, {"n": 3}, {"n": 4}]
    assert [e.data for e in await store.session_events("b")] == [{"n": 9}]  # one agent's events never push out another's
    store.max_records = 2  # a bound changed later holds from the next write
    store.write_now((), [SessionEvent("a", "note", {"n": 5}, 5.0)])
    assert [e.data for e in await store.session_events("a")] == [{"n": 4}, {"n": 5}]
    assert await store.session_events("nobody") == []


async def test_the_sqlite_inline_fast_path_and_the_thread_path_keep_the_same_rows(tmp_path: Path) -> None:
    import sqlite3

    inline, threaded = SqliteStore(tmp_path / "inline.db"), SqliteStore(tmp_path / "threaded.db")
    rows = [CallRecord(f"r{n}", f"c{n}", "a", "echo", {"n": n}, "ok", 1.0, ended_at=2.0) for n in range(3)]
    events = [SessionEvent("a", "note", {"k": "v"}, 1.5)]
    await inline.write(rows, events)
    holder = sqlite3.connect(tmp_path / "threaded.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's writer holds the lock: the inline attempt must give way
    writing = asyncio.ensure_future(threaded.write(rows, events))
    await asyncio.sleep(0)
    assert not writing.done()  # waiting on the thread for the lock, not failed and not written inline
    holder.execute("COMMIT")
    await writing
    holder.close()
    assert await threaded.journal() == await inline.journal() == rows
    assert await threaded.session_events("a") == await inline.session_events("a") == events
    await inline.aclose()
    await threaded.aclose()


async def test_the_lone_record_fast_path_keeps_what_the_plain_write_keeps(tmp_path: Path) -> None:
    fast, plain = SqliteStore(tmp_path / "fast.db"), SqliteStore(tmp_path / "plain.db")
    record = CallRecord("r1", "c1", "a", "echo", {"text": "x" * 100_000}, "ok", 1.0, ended_at=2.0)
    assert fast.write_now_if_free([record], [])  # one record alone: one statement, its own transaction
    await plain.write([record], [])
    assert await fast.journal() == await plain.journal()
    (kept,) = await fast.journal()
    assert thaw_json(kept.arguments)["$bytes"] > 100_000  # type: ignore[index]  # bounded on both paths
    await fast.aclose()
    await plain.aclose()


async def test_an_unread_settled_call_keeps_who_decided_not_the_decisions_edited_arguments() -> None:
    """The ring holds a settled call bounded as the store keeps it: not the decision's (unbounded) edited arguments."""
    store = MemoryStore(max_value_bytes=1024)
    ctx = app(store=store)

    async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("sure?")

    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, Answer("deferred"))
    parked = await ctx.tools.execute(run("echo", {"text": "x"}, Agent(ctx, name="a")))
    approval_id = thaw_json(parked.meta)["approvalId"]  # type: ignore[index]
    edited = {"text": "y" * 200_000}
    resumed = await ctx.tools.resume(approval_id, "allowed-once", arguments=edited, decided_by="ops")
    assert resumed.text == "y" * 200_000
    unread = list(store._records.values())[-1]
    assert not isinstance(unread, CallRecord)  # kept as its facts until read
    assert getattr(unread, "_decided") == {"approval_rule": None, "decided_by": "ops", "decision_message": None}
    (record,) = [r for r in await store.journal() if r.outcome == "ok"]
    assert record.decided_by == "ops" and thaw_json(record.arguments)["$bytes"] > 200_000  # type: ignore[index]
