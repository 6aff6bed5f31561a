"""Parked calls across real processes: park in one, decide in another, run exactly once, survive SIGKILL.

Every process here is a real ``python`` running ``agent_process.py`` on one
shared store: a SQLite file, or a real PostgreSQL server (two processes are
two replicas). ``BODY_LOG`` gets a line each time the tool's body runs, in
any process, which is how "exactly once" is counted.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from dsh_tools.store import open_store

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "agent_process.py"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'calls.db'}"
    else:
        yield request.getfixturevalue("fresh_postgres")


def environment(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "BODY_LOG": str(tmp_path / "bodies.log"), "PYTHONPATH": os.pathsep.join(sys.path)}


def run(url: str, tmp_path: Path, *command: str) -> object:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), url, *command], env=environment(tmp_path), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout.splitlines()[-1])


def body_runs(tmp_path: Path) -> list[str]:
    log = tmp_path / "bodies.log"
    return log.read_text().splitlines() if log.exists() else []


async def decide(url: str, approval_id: str, outcome: str = "allowed-once") -> None:
    async with open_store(url) as store:
        await store.decide(approval_id, outcome, decided_by="test")  # type: ignore[arg-type]


def test_a_call_parked_in_one_process_is_decided_in_another_and_run_in_a_third(url: str, tmp_path: Path) -> None:
    approval_id = run(url, tmp_path, "park")
    assert isinstance(approval_id, str)
    asyncio.run(decide(url, approval_id))
    assert run(url, tmp_path, "resume", approval_id) == ["ok", "wrote a.txt"]
    assert len(body_runs(tmp_path)) == 1
    assert run(url, tmp_path, "resume", approval_id) == ["raised", "KeyError"]  # done: never again
    assert len(body_runs(tmp_path)) == 1


def test_replicas_racing_to_resume_one_call_run_it_once(url: str, tmp_path: Path) -> None:
    approval_id = run(url, tmp_path, "park")
    asyncio.run(decide(url, str(approval_id)))
    racers = [
        subprocess.Popen(
            [sys.executable, str(SCRIPT), url, "resume", str(approval_id)],
            env=environment(tmp_path),
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    answers = [orjson.loads(racer.communicate(timeout=120)[0].splitlines()[-1]) for racer in racers]
    assert sorted(map(tuple, answers)) == [("ok", "wrote a.txt"), *[("raised", "KeyError")] * 3]
    assert len(body_runs(tmp_path)) == 1


def test_a_process_killed_mid_resume_runs_the_body_at_most_once(url: str, tmp_path: Path) -> None:
    approval_id = str(run(url, tmp_path, "park"))
    hanging = subprocess.Popen(
        [sys.executable, str(SCRIPT), url, "hang", approval_id],
        env={**environment(tmp_path), "LEASE": "0.3"},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert hanging.stdout is not None
    assert orjson.loads(hanging.stdout.readline()) == "running"  # inside the body, the claim held
    hanging.send_signal(signal.SIGKILL)
    hanging.wait(timeout=60)
    assert run(url, tmp_path, "resume", approval_id) == ["raised", "KeyError"]
    assert run(url, tmp_path, "decided") == []
    assert len(body_runs(tmp_path)) == 1

    async def lapsed() -> list[str | None]:  # InterruptedCall.approval_id (a running call may have none)
        async with open_store(url) as store:
            claimed = await store.get_parked(approval_id)
            assert claimed is not None and claimed.state == "claimed" and claimed.lease_until is not None
            # nobody renews the dead process's lease: wait for it to pass (0.3 s), bounded
            async with asyncio.timeout(30):
                while not await store.interrupted():
                    await asyncio.sleep(0.05)
            return [p.approval_id for p in await store.interrupted()]

    assert asyncio.run(lapsed()) == [approval_id]  # listed for an operator, never run again
    assert run(url, tmp_path, "resume", approval_id) == ["raised", "KeyError"]
    assert len(body_runs(tmp_path)) == 1


def test_watch_decisions_runs_a_call_decided_elsewhere(url: str, tmp_path: Path) -> None:
    approval_id = str(run(url, tmp_path, "park"))
    watcher = subprocess.Popen(
        [sys.executable, str(SCRIPT), url, "watch", "1"], env=environment(tmp_path), stdout=subprocess.PIPE, text=True
    )
    assert watcher.stdout is not None
    assert orjson.loads(watcher.stdout.readline()) == "ready"
    asyncio.run(decide(url, approval_id, "rejected"))
    out, _ = watcher.communicate(timeout=120)
    assert orjson.loads(out.splitlines()[-1]) == [["approval-rejected", 'Error: the user rejected tool "write_file"']]
    assert body_runs(tmp_path) == []


def test_resume_without_the_live_agent_is_a_lookup_error_and_consumes_nothing(url: str, tmp_path: Path) -> None:
    approval_id = str(run(url, tmp_path, "park"))

    async def elsewhere() -> None:
        from dsh_tools import boot

        ctx = boot(store=url)
        with pytest.raises(LookupError, match="no live agent with id 'agent-7'"):
            await ctx.tools.resume(approval_id, "allowed-once")
        (pending,) = await ctx.tools.pending_approvals()
        assert pending.approval_id == approval_id and pending.execution.agent is None and pending.agent_id == "agent-7"
        assert pending.decision is None
        await ctx.tools.store.aclose()

    asyncio.run(elsewhere())
    asyncio.run(decide(url, approval_id))
    assert run(url, tmp_path, "decided") == [["ok", "wrote a.txt"]]
