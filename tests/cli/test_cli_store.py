"""``dsh-tools approvals`` and ``dsh-tools log``: decide parked calls and read the journal from a shell."""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path

import orjson
import pytest

from dsh_tools import APPROVAL, Agent, Ask, DeferringApprovalService, PreNext, PreToolDecision, ToolExecution, ToolExecutionInput, boot, tool
from dsh_tools import thaw_json
from dsh_tools.cli import main

from cli_helpers import assert_usage_error, run_cli


async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
    return Ask("writes") if exec.name == "write_file" else await next()


@tool
async def write_file(path: str) -> str:
    """Write a file."""
    return f"wrote {path}"


async def park_two(url: str) -> list[str]:
    ctx = boot(store=url)
    ctx.tools.register(write_file)
    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, DeferringApprovalService())
    agent = Agent(ctx, name="writer", id="w-1")
    ids = []
    for n in range(2):
        result = await ctx.tools.execute(ToolExecutionInput(f"c{n}", "write_file", {"path": f"{n}.txt"}, agent))
        meta = thaw_json(result.meta)
        assert isinstance(meta, dict)
        ids.append(str(meta["approvalId"]))
    await ctx.tools.store.aclose()
    return ids


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'calls.db'}"


def test_list_approve_reject_and_log(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = asyncio.run(park_two(url))
    assert main(["approvals", "--store", url, "list", "--json"]) == 0
    listed = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(row["approvalId"], row["tool"], row["arguments"]) for row in listed] == [
        (first, "write_file", {"path": "0.txt"}),
        (second, "write_file", {"path": "1.txt"}),
    ]
    assert main(["approvals", "--store", url, "approve", first, "--arguments", '{"path": "safe.txt"}', "--by", "ops"]) == 0
    assert main(["approvals", "--store", url, "reject", second]) == 0
    assert "allowed-once" in capsys.readouterr().out
    assert main(["approvals", "--store", url, "list"]) == 0
    assert capsys.readouterr().out.strip() == "no parked calls are waiting"
    assert main(["log", "--store", url, "--json"]) == 0
    rows = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["callId"], r["outcome"]) for r in rows] == [
        ("c0", "approval-pending"),
        ("c1", "approval-pending"),
    ]
    assert main(["log", "--store", url, "--tool", "write_file", "--errors", "--limit", "1"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert "approval-pending" in line and "write_file c1" in line and "agent w-1" in line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["approvals", "--store", "mysql://x", "list"], "unsupported store URL"),
        (["approvals", "--store", "URL", "approve", "nope"], "no undecided parked call 'nope'"),
        (["approvals", "--store", "URL", "approve", "nope", "--arguments", "{bad"], "--arguments is not JSON"),
        (["log", "--store", "URL", "--limit", "0"], "--limit takes 1 to"),
    ],
)
def test_bad_input_is_a_usage_error(url: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [url if part == "URL" else part for part in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_approval_ids_never_look_like_command_line_options(url: str) -> None:
    """An id starting with ``-`` (about one URL-safe id in 64 did) was read by ``approvals approve`` as an option."""
    ids = asyncio.run(park_two(url))
    assert all(re.fullmatch(r"[0-9a-f]{32}", approval_id) for approval_id in ids), ids


def test_log_on_an_empty_store_says_so(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["log", "--store", url]) == 0
    assert capsys.readouterr().out == "no calls recorded\n"
    assert main(["log", "--store", url, "--tool", "write_file", "--errors"]) == 0
    assert capsys.readouterr().out == "no recorded calls match these filters\n"
    assert main(["log", "--store", url, "--json"]) == 0
    assert capsys.readouterr().out == ""  # JSON Lines: every line is a record, so no record is no line


def unreachable_postgres() -> str:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


@pytest.mark.parametrize(
    "argv", [["approvals", "--store", "PG", "list"], ["log", "--store", "PG"], ["inspect", "--store", "PG", "--port", "0"]]
)
def test_an_unreachable_postgres_is_one_clean_line_and_exit_2(argv: list[str]) -> None:
    result = run_cli(*[unreachable_postgres() if part == "PG" else part for part in argv], timeout=60)
    assert_usage_error(result, "cannot reach PostgreSQL")  # and for inspect: no URL printed, no server answering 500
    assert result.stderr.count("\n") == 1, result.stderr
