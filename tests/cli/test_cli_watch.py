"""``dsh-tools approvals watch`` and the decision flags: JSON lines from any process, messages, rules from a shell."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from dsh_tools import Agent, ToolExecutionInput, boot, tool
from dsh_tools.cli import main


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


def test_watch_prints_parked_decided_and_settled_lines_until_interrupted(url: str) -> None:
    asyncio.run(park(url, "c0"))  # logged before the watch starts: not printed
    watcher = subprocess.Popen(
        [sys.executable, "-m", "dsh_tools.cli", "approvals", "--store", url, "watch", "--poll", "0.05"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        time.sleep(1.0)  # it has started and skipped what was logged
        approval_id = asyncio.run(park(url, "c1"))
        assert main(["approvals", "--store", url, "reject", approval_id, "--message", "not today", "--by", "ada"]) == 0
        assert asyncio.run(resume(url)) == ['Error: the user rejected tool "deploy": not today']
        assert watcher.stdout is not None
        lines = [orjson.loads(watcher.stdout.readline()) for _ in range(3)]
    finally:
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=30) == 0
    for line in lines:
        assert isinstance(line.pop("at"), float)
    common = {"approvalId": approval_id, "agentId": "ops-1", "toolName": "deploy"}
    assert lines == [
        {"event": "parked", **common},
        {"event": "decided", **common, "outcome": "rejected", "decidedBy": "ada", "message": "not today"},
        {"event": "settled", **common, "outcome": "approval-rejected"},
    ]


def test_watch_from_the_start_settles_an_expired_call_and_says_so(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    approval_id = asyncio.run(park(url, "c1", ttl=0.1))
    time.sleep(0.2)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "dsh_tools.cli", "approvals", "--store", url, "watch", "--from-start", "--poll", "0.05"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert watcher.stdout is not None
        parked, settled = orjson.loads(watcher.stdout.readline()), orjson.loads(watcher.stdout.readline())
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
