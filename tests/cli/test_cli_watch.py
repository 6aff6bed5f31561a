"""``dsh-tools approvals watch`` and the decision flags: JSON lines from any process, messages, rules from a shell."""

from __future__ import annotations

import argparse
import asyncio
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import orjson
import pytest

from dsh_tools import Agent, ToolExecutionInput, boot, tool
from dsh_tools.cli import main
from dsh_tools.cli.approvals import _watch
from dsh_tools.store import ApprovalEvent, MemoryStore, ParkedCall


@tool(needs_approval=True)
async def deploy(env: str) -> str:
    """Deploy."""
    return f"deployed {env}"


async def park(url: str, call_id: str, *, ttl: float | None = None) -> str:
    ctx = boot(store=url, approval="defer", approval_ttl_seconds=ttl)
    ctx.tools.register(deploy)
    result = await ctx.tools.execute(ToolExecutionInput(call_id, "deploy", {"env": "prod"}, Agent(ctx, name="ops", id="ops-1")))
    await ctx.tools.store.aclose()
    approval_id = result.meta_get("approvalId")
    assert isinstance(approval_id, str)
    return approval_id


async def resume(url: str) -> list[str]:
    ctx = boot(store=url, approval="defer")
    ctx.tools.register(deploy)
    results = await ctx.tools.resume_decided(Agent(ctx, name="ops", id="ops-1"))
    await ctx.tools.store.aclose()
    return [r.text for r in results]


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'calls.db'}"


class Lines:
    """A watcher's JSON lines, read by a thread of their own, so each wait has a deadline (a hung watcher fails the test)."""

    def __init__(self, stream: IO[str], *, timeout: float = 60.0) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._deadline = time.monotonic() + timeout
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)  # the watcher ended

    def of(self, approval_id: str, count: int) -> list[dict[str, Any]]:
        """The next ``count`` lines about ``approval_id`` (others are skipped)."""
        found: list[dict[str, Any]] = []
        while len(found) < count:
            try:
                line = self._lines.get(timeout=max(0.0, self._deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the watcher printed {len(found)} of {count} lines about {approval_id} in time") from None
            assert line is not None, f"the watcher ended after {len(found)} of {count} lines about {approval_id}"
            event = orjson.loads(line)
            if event["approvalId"] == approval_id:
                found.append(event)
        return found


def _watching(url: str, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dsh_tools.cli", "approvals", "--store", url, "watch", *flags, "--poll", "0.05"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_watch_prints_parked_decided_and_settled_lines_until_interrupted(url: str) -> None:
    earlier = asyncio.run(park(url, "c0"))  # logged before the watch starts: printed first (--from-start), so no start race
    watcher = _watching(url, "--from-start")
    try:
        assert watcher.stdout is not None
        lines = Lines(watcher.stdout)
        assert [line["event"] for line in lines.of(earlier, 1)] == ["parked"]
        approval_id = asyncio.run(park(url, "c1"))
        assert main(["approvals", "--store", url, "reject", approval_id, "--message", "not today", "--by", "ada"]) == 0
        assert asyncio.run(resume(url)) == ['Error: the user rejected tool "deploy": not today']
        printed = lines.of(approval_id, 3)
    finally:
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=30) == 0
    for line in printed:
        assert isinstance(line.pop("at"), float)
    common = {"approvalId": approval_id, "agentId": "ops-1", "toolName": "deploy"}
    assert printed == [
        {"event": "parked", **common},
        {"event": "decided", **common, "outcome": "rejected", "decidedBy": "ada", "message": "not today"},
        {"event": "settled", **common, "outcome": "approval-rejected"},
    ]


class Observed(MemoryStore):
    """A store that tells when a watcher read past the end of its log (it skipped, or printed, what was there)."""

    def __init__(self) -> None:
        super().__init__()
        self.caught_up = asyncio.Event()
        self.read: list[ApprovalEvent] = []

    async def approval_events(self, after: int = 0, limit: int = 1000) -> list[ApprovalEvent]:
        found = await super().approval_events(after, limit)
        self.read.extend(found)
        if not found:
            self.caught_up.set()
        return found


def _parked(approval_id: str) -> ParkedCall:
    return ParkedCall(approval_id, "ops-1", "ops", f"call-{approval_id}", "deploy", {}, "Deploy.", {}, "f" * 64, time.time())


async def test_watch_skips_what_was_logged_before_it_started(capsys: pytest.CaptureFixture[str]) -> None:
    store = Observed()
    assert await store.park(_parked("p0"), max_per_agent=10)
    watching = asyncio.ensure_future(_watch(store, argparse.Namespace(poll=0.01, from_start=False)))
    try:
        await asyncio.wait_for(store.caught_up.wait(), 30)  # it skipped p0
        store.caught_up.clear()
        assert await store.park(_parked("p1"), max_per_agent=10)
        while not [e for e in store.read if e.approval_id == "p1"]:
            await asyncio.wait_for(store.caught_up.wait(), 30)  # one look after another, until one read p1's event
            store.caught_up.clear()
    finally:
        watching.cancel()
        with pytest.raises(asyncio.CancelledError):
            await watching
    printed = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(line["event"], line["approvalId"]) for line in printed] == [("parked", "p1")]


def test_watch_from_the_start_settles_an_expired_call_and_says_so(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    approval_id = asyncio.run(park(url, "c1", ttl=0.1))
    time.sleep(0.2)  # the scenario, not synchronisation: the call is past its time when the watch starts
    watcher = _watching(url, "--from-start")
    try:
        assert watcher.stdout is not None
        parked, settled = Lines(watcher.stdout).of(approval_id, 2)
    finally:
        watcher.send_signal(signal.SIGINT)
        watcher.wait(timeout=30)
    assert (parked["event"], settled["event"], settled["outcome"], settled["approvalId"]) == (
        "parked", "settled", "approval-expired", approval_id,
    )
    assert main(["approvals", "--store", url, "approve", approval_id]) == 2
    assert "(unknown, decided, or expired)" in capsys.readouterr().err


def test_the_decision_flags_and_the_rule_commands(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = asyncio.run(park(url, "c1")), asyncio.run(park(url, "c2"))
    assert main(["approvals", "--store", url, "approve", first, "--message", "why"]) == 2
    assert "a message goes with a denial" in capsys.readouterr().err
    assert main(["approvals", "--store", url, "approve", first, "--remember", "--arguments", '{"env": "dev"}']) == 2
    assert "cannot carry edited ones" in capsys.readouterr().err
    assert main(["approvals", "--store", url, "approve", first, "--remember", "--by", "ada"]) == 0
    assert "remembered as rule" in capsys.readouterr().out
    assert main(["approvals", "--store", url, "reject", second, "--by", "bob", "--message", "one is enough"]) == 0
    capsys.readouterr()
    assert asyncio.run(resume(url)) == ["deployed prod", 'Error: the user rejected tool "deploy": one is enough']
    assert main(["log", "--store", url]) == 0
    log = capsys.readouterr().out
    assert "by ada (rule " in log and "by bob: one is enough" in log
    assert main(["approvals", "--store", url, "rules", "--agent", "ops-1"]) == 0
    (rule,) = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["approvals", "--store", url, "forget", rule["ruleId"]]) == 0
    assert main(["approvals", "--store", url, "forget", rule["ruleId"]]) == 2
    assert "no rule" in capsys.readouterr().err
