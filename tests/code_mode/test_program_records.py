"""A parked program's record (issue 34, items 5 and 11): no park window, and nothing tampered ever runs.

* The park window: a program whose deferred sub-call parks while a sibling
  still runs (``Promise.all``) keeps that sub-call out of sight (``"held"``)
  until the program is attached, in one step: before that, nobody lists,
  decides or resumes it, so nobody runs the sub-call without its program.
* Digests: a parked call and its program are stored with digests; what reads
  back differently (rewritten arguments, code or recorded results, a
  malformed number, a program that is not JSON) settles ``RECORD_TAMPERED``
  and runs nothing. One damaged row never breaks the listing of the others.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import orjson
import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    Ask,
    CodeRunRequest,
    CodeRunResult,
    Context,
    DeferringApprovalService,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    boot,
    tool,
)
from dsh_tools.testing import Bindings, ScriptedCodeRuntime


async def secrets_ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
    return Ask("reads a secret") if exec.name == "read_secret" else await next()


def app(tmp_path: Path, release: asyncio.Event, ran: list[str]) -> tuple[Context, Agent]:
    async def both(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        looked, secret = await asyncio.gather(tools["slow_lookup"]({}), tools["read_secret"]({}))
        return CodeRunResult(logs=(), value=f"{looked} {secret}")

    async def one(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=(), value=await tools["read_secret"]({}))

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime({"both": both, "one": one}), store=f"sqlite:///{tmp_path / 'c.db'}")

    @tool(is_concurrency_safe=True)
    async def slow_lookup() -> str:
        """Look something up, slowly."""
        await release.wait()
        ran.append("slow_lookup")
        return "found"

    @tool(is_concurrency_safe=True)
    async def read_secret() -> str:
        """Read a secret."""
        ran.append("read_secret")
        return "s3cret"

    ctx.tools.register(slow_lookup)
    ctx.tools.register(read_secret)
    ctx.on("tools/pre-execute", secrets_ask)
    ctx.provide(APPROVAL, DeferringApprovalService())
    return ctx, Agent(ctx, name="coder", id="coder-1")


async def test_a_sub_call_parked_beside_a_running_sibling_is_unseen_until_its_program_is_kept(tmp_path: Path) -> None:
    release, ran = asyncio.Event(), list[str]()
    ctx, agent = app(tmp_path, release, ran)
    running = asyncio.ensure_future(ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": "both"}, agent)))
    async with asyncio.timeout(30):
        while not (held := _held(tmp_path / "c.db")):  # parked; its sibling still runs, so the program is not kept yet
            await asyncio.sleep(0.01)
    (approval_id,) = held
    store = ctx.tools.store
    assert await store.parked() == [] and await ctx.tools.pending_approvals(agent) == []  # nobody sees it held
    with pytest.raises(KeyError):
        await store.decide(approval_id, "allowed-once")
    with pytest.raises(KeyError):
        await ctx.tools.resume(approval_id, "allowed-once")
    assert ran == []
    release.set()
    parked = await running
    assert parked.outcome == "approval-pending"
    (pending,) = await ctx.tools.pending_approvals(agent)  # seen now, with its program
    stored = await store.get_parked(pending.approval_id)
    assert stored is not None and stored.program is not None and stored.state == "parked"
    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    assert result.outcome == "ok" and ran.count("read_secret") == 1
    await store.aclose()


def _held(path: Path) -> list[str]:
    """The approval ids of the calls held in the store file (read as any other process could)."""
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT approval_id FROM dsh_parked WHERE state = 'held'")]


def _rewrite(path: Path, column: str, approval_id: str, change: object) -> None:
    """Rewrite one stored JSON column of a parked call, as someone with the database file could."""
    with sqlite3.connect(path) as db:
        (text,) = db.execute(f"SELECT {column} FROM dsh_parked WHERE approval_id = ?", (approval_id,)).fetchone()
        value = change(orjson.loads(text)) if callable(change) else change
        db.execute(f"UPDATE dsh_parked SET {column} = ? WHERE approval_id = ?", (value if isinstance(value, str) else orjson.dumps(value).decode(), approval_id))


def _edit_arguments(body: dict[str, object]) -> dict[str, object]:
    return {**body, "arguments": {"path": "/etc/shadow"}}


def _edit_code(program: dict[str, object]) -> dict[str, object]:
    return {**program, "code": "one"}


def _edit_waiting(program: dict[str, object]) -> dict[str, object]:
    return {**program, "waiting": "1"}  # a number that is not one


def _edit_result(program: dict[str, object]) -> dict[str, object]:
    calls = program["calls"]
    assert isinstance(calls, list)
    return {**program, "calls": [{**call, "text": "rewritten"} for call in calls]}


@pytest.mark.parametrize(
    ("column", "change"),
    [
        ("body", _edit_arguments),
        ("program", _edit_code),
        ("program", _edit_waiting),
        ("program", _edit_result),
        ("program", "not json {"),
        ("program", lambda program: {k: v for k, v in program.items() if k != "digest"} | {"waiting": "1"}),
        ("program", lambda program: {k: v for k, v in program.items() if k != "digest"} | {"code": "one"}),  # digest taken away
    ],
)
async def test_a_rewritten_record_settles_record_tampered_and_runs_nothing(tmp_path: Path, column: str, change: object) -> None:
    release, ran = asyncio.Event(), list[str]()
    release.set()
    ctx, agent = app(tmp_path, release, ran)
    parked = await ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": "both"}, agent))
    assert parked.outcome == "approval-pending"
    ran.clear()
    (pending,) = await ctx.tools.pending_approvals(agent)
    _rewrite(tmp_path / "c.db", column, pending.approval_id, change)
    listed = await ctx.tools.pending_approvals(agent)  # the damaged row is still listed, for a human to see
    assert [p.approval_id for p in listed] == [pending.approval_id]
    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    assert result.error is not None and result.error.code == "RECORD_TAMPERED" and result.outcome == "error"
    assert result.text == "Error: the stored record of this call does not match its digest; nothing ran"
    assert result.call_id == "run"  # the program's call settles (a thread waiting on it goes on), not only its sub-call
    assert ran == []  # neither the approved sub-call nor the program
    await ctx.tools.store.aclose()


async def test_one_program_that_is_not_json_leaves_the_other_parked_calls_listed(tmp_path: Path) -> None:
    release, ran = asyncio.Event(), list[str]()
    release.set()
    ctx, agent = app(tmp_path, release, ran)
    for call_id in ("r1", "r2"):
        await ctx.tools.execute(ToolExecutionInput(call_id, "run_code", {"code": "one"}, agent))
    first, second = await ctx.tools.pending_approvals(agent)
    _rewrite(tmp_path / "c.db", "program", first.approval_id, "\x00garbage")
    assert [p.approval_id for p in await ctx.tools.pending_approvals(agent)] == [first.approval_id, second.approval_id]
    result = await ctx.tools.resume(second.approval_id, "allowed-once")
    assert result.outcome == "ok" and ran == ["read_secret"]
    await ctx.tools.store.aclose()
