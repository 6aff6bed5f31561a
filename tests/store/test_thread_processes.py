"""Threads across real processes, on a SQLite file and a real PostgreSQL server.

The park, the decision and the resume each run in a process of their own
(``thread_process.py`` and the ``dsh-tools`` CLI); two processes append to
one thread at once; a rule outlives a restart and stops applying once the
tool's definition changes; a call killed mid-body is recovered into its slot.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "thread_process.py"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'calls.db'}"
    else:
        yield request.getfixturevalue("fresh_postgres")


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "BODY_LOG": str(tmp_path / "bodies.log"), "PYTHONPATH": os.pathsep.join(sys.path), **extra}


def run(url: str, tmp_path: Path, *command: str, **extra: str) -> object:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), url, *command], env=environment(tmp_path, **extra), capture_output=True, text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout.splitlines()[-1])


def cli(url: str, *argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "dsh_tools.cli", *argv[:1], "--store", url, *argv[1:]],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def body_runs(tmp_path: Path) -> list[str]:
    log = tmp_path / "bodies.log"
    return [line.split(" ", 1)[1] for line in log.read_text().splitlines()] if log.exists() else []


def calls(*triples: tuple[str, str, dict[str, str]]) -> str:
    return orjson.dumps([list(triple) for triple in triples]).decode()


def test_park_decide_and_resume_in_three_processes_and_the_conversation_goes_on(url: str, tmp_path: Path) -> None:
    status = run(url, tmp_path, "turn", "refund A1", calls(("c1", "look", {"order": "A1"}), ("c2", "refund", {"order": "A1"})))
    assert status == ["waiting", ["c2"], 1]
    (pending,) = [orjson.loads(line) for line in cli(url, "approvals", "list", "--json").splitlines()]
    assert "decided" not in cli(url, "approvals", "approve", pending["approvalId"], "--by", "ada")
    resumed = run(url, tmp_path, "resume")
    assert isinstance(resumed, dict) and resumed["results"] == [["ok", "refunded A1"]] and resumed["status"] == "ready"
    assert resumed["messages"][2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": "order A1: shipped"},
        {"role": "tool", "tool_call_id": "c2", "content": "refunded A1"},
    ]
    assert run(url, tmp_path, "turn", "", calls()) == ["ready", [], 0]  # the model's next turn, in yet another process
    assert run(url, tmp_path, "resume") == {"results": [], "status": "ready", "messages": [
        *resumed["messages"], {"role": "assistant", "content": "Done."},
    ]}
    assert body_runs(tmp_path) == ["refund A1"]  # exactly once, across every process
    log = cli(url, "log")
    assert "by ada" in log


def test_a_rejection_from_the_cli_fills_the_thread_with_its_message(url: str, tmp_path: Path) -> None:
    run(url, tmp_path, "turn", "refund A2", calls(("c1", "refund", {"order": "A2"})))
    (pending,) = [orjson.loads(line) for line in cli(url, "approvals", "list", "--json").splitlines()]
    cli(url, "approvals", "reject", pending["approvalId"], "--message", "needs a receipt", "--by", "bob")
    resumed = run(url, tmp_path, "resume")
    assert isinstance(resumed, dict) and resumed["messages"][-1] == {
        "role": "tool", "tool_call_id": "c1", "content": 'Error: the user rejected tool "refund": needs a receipt',
    }
    assert body_runs(tmp_path) == []


def test_two_processes_appending_at_once_one_wins_the_other_conflicts_and_nothing_is_lost(url: str, tmp_path: Path) -> None:
    run(url, tmp_path, "turn", "hello", calls())  # the thread exists, ready
    barrier = tmp_path / "go"
    env = environment(tmp_path)
    appenders = [
        subprocess.Popen([sys.executable, str(SCRIPT), url, "append", text, str(barrier)], env=env, stdout=subprocess.PIPE, text=True)
        for text in ("from a", "from b")
    ]
    for appender in appenders:
        assert appender.stdout is not None and appender.stdout.readline().strip() == '"ready"'
    barrier.touch()
    outcomes = []
    for appender in appenders:
        out, _ = appender.communicate(timeout=120)
        assert appender.returncode == 0
        outcomes.append([orjson.loads(line) for line in out.splitlines()])
    assert sorted(outcomes) == [["conflict", "retried"], ["won"]]
    resumed = run(url, tmp_path, "resume")
    assert isinstance(resumed, dict)
    assert sorted(m["content"] for m in resumed["messages"][2:]) == ["from a", "from b"]  # nothing lost


def test_a_rule_outlives_a_restart_and_stops_applying_once_the_tool_changes(url: str, tmp_path: Path) -> None:
    parked = run(url, tmp_path, "call", "c1")
    assert isinstance(parked, list) and parked[0] == "approval-pending"
    (pending,) = [orjson.loads(line) for line in cli(url, "approvals", "list", "--json").splitlines()]
    out = cli(url, "approvals", "approve", pending["approvalId"], "--remember", "--by", "ada")
    assert "remembered as rule" in out
    assert run(url, tmp_path, "resume")["results"] == [["ok", "refunded 9"]]  # type: ignore[index]
    assert run(url, tmp_path, "call", "c2") == ["ok", "refunded 9"]  # a new process: the rule answers, nobody is asked
    changed = run(url, tmp_path, "call", "c3", REFUND_DESCRIPTION="Refund an order, now to a gift card.")
    assert isinstance(changed, list) and changed[0] == "approval-pending"  # another fingerprint: asked again
    (rule,) = [orjson.loads(line) for line in cli(url, "approvals", "rules").splitlines()]
    assert (rule["toolName"], rule["outcome"], rule["decidedBy"]) == ("refund", "allowed-once", "ada")
    cli(url, "approvals", "forget", rule["ruleId"])
    assert cli(url, "approvals", "rules") == ""
    assert run(url, tmp_path, "call", "c4")[0] == "approval-pending"  # type: ignore[index]


def test_a_turn_killed_mid_body_is_recovered_into_its_thread_slots(url: str, tmp_path: Path) -> None:
    """``hang`` runs (its running record is leased); ``look`` waits behind it with no record yet: both are settled."""
    env = environment(tmp_path, LEASE="0.6")
    turn = subprocess.Popen(
        [sys.executable, str(SCRIPT), url, "turn", "hang on", calls(("c1", "hang", {"order": "7"}), ("c2", "look", {"order": "7"}))],
        env=env, stdout=subprocess.PIPE, text=True,
    )
    assert turn.stdout is not None and turn.stdout.readline().strip() == '"running"'
    turn.send_signal(signal.SIGKILL)
    turn.wait(timeout=30)
    time.sleep(0.8)  # the leases lapse: the running call's and the step's
    recovered = run(url, tmp_path, "recover", LEASE="0.6")
    assert isinstance(recovered, dict) and recovered["status"] == "ready"
    assert [result[0] for result in recovered["results"]] == ["unknown", "unknown"]
    unknown = 'Error: tool "{}" may or may not have taken effect: its process stopped before the call settled'
    assert recovered["messages"][-2:] == [
        {"role": "tool", "tool_call_id": "c1", "content": unknown.format("hang")},
        {"role": "tool", "tool_call_id": "c2", "content": unknown.format("look")},
    ]
    assert body_runs(tmp_path) == ["hang 7"]
