"""``dsh-tools demo``: the scripted session's transcript shows every seam it promises."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from cli_helpers import run_cli

STEP_KEYS = [
    "prompt", "success", "invalid-args", "denial", "approval", "timeout", "post-execute", "parallel", "code-mode",
    "dispatch-log", "paused-program",
]


@pytest.fixture(scope="module")
def transcript() -> dict[str, Any]:
    result = run_cli("demo", "--json", "--mode", "both")
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = orjson.loads(result.stdout)
    return data


def step(transcript: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in transcript["steps"] if s["key"] == key)
    return found


def test_structure(transcript: dict[str, Any]) -> None:
    assert transcript["mode"] == "both"
    assert [s["key"] for s in transcript["steps"]] == STEP_KEYS
    assert [s["number"] for s in transcript["steps"]] == list(range(1, len(STEP_KEYS) + 1))
    assert all(s["title"] and s["explanation"] and not s["skipped"] for s in transcript["steps"])
    assert "secrets.txt" in transcript["files"] and "README.md" in transcript["files"]
    assert transcript["tools"][-1] == "run_code"
    assert 0 < transcript["wallMs"] < 10_000
    call_ids = [c["callId"] for s in transcript["steps"] for c in s["calls"]]
    assert call_ids == [f"call-{n}" for n in range(1, len(call_ids) + 1)]


def test_prompt_shows_wire_tools_and_sdk(transcript: dict[str, Any]) -> None:
    details = step(transcript, "prompt")["details"]
    assert set(details["wireTools"]) == {
        "read_file", "write_file", "count_words", "search_text", "list_dir", "build_status", "run_code",
    }
    assert details["sections"] == ["demo:role", "tools:sdk"]
    assert "declare const tools: {" in details["sdk"]
    assert details["sdk"] in details["prompt"]


def test_success(transcript: dict[str, Any]) -> None:
    read, search = step(transcript, "success")["calls"]
    assert read["tool"] == "read_file" and not read["isError"] and read["errorCode"] is None
    assert read["text"].startswith("# Weather service")
    assert "src/app.py:7:" in search["text"]


def test_invalid_args_then_corrected(transcript: dict[str, Any]) -> None:
    wrong, right = step(transcript, "invalid-args")["calls"]
    assert wrong["isError"] and wrong["errorCode"] == "INVALID_ARGS" and wrong["errorName"] == "ToolArgsError"
    assert "path: missing required property" in wrong["text"]
    assert not right["isError"] and right["text"].endswith("characters")


def test_denials(transcript: dict[str, Any]) -> None:
    secret, outside = step(transcript, "denial")["calls"]
    assert secret["isError"] and secret["errorCode"] is None
    assert secret["text"] == 'Error: read_file: "secrets.txt" holds credentials and is off limits to the agent'
    assert "correct-horse" not in orjson.dumps(transcript).decode()
    assert outside["isError"] and outside["text"] == 'Error: list_dir: ".." is outside the workspace'


def test_approval_outcomes(transcript: dict[str, Any]) -> None:
    data = step(transcript, "approval")
    allowed, rejected = data["calls"]
    assert allowed["approval"] == "allowed-once" and not allowed["isError"]
    assert allowed["text"].startswith("Created notes/summary.md")
    assert rejected["approval"] == "rejected" and rejected["isError"]
    assert rejected["text"] == 'Error: the user rejected tool "write_file"'
    assert [r["answer"] for r in data["details"]["requests"]] == ["allowed-once", "rejected"]


def test_timeout(transcript: dict[str, Any]) -> None:
    (call,) = step(transcript, "timeout")["calls"]
    assert call["isError"] and call["errorCode"] == "TOOL_TIMEOUT"
    assert call["text"] == "Error: tool call timed out after 100ms"


def test_post_execute_replacement_and_additional_context(transcript: dict[str, Any]) -> None:
    (call,) = step(transcript, "post-execute")["calls"]
    assert not call["isError"]
    assert "API_TOKEN=[REDACTED]" in call["text"] and "sk-demo" not in call["text"]
    assert call["contextSource"] == "demo-redactor"
    assert "1 API token" in call["additionalContext"]


def test_code_mode_program_and_dispatch_log(transcript: dict[str, Any]) -> None:
    (call,) = step(transcript, "code-mode")["calls"]
    assert call["tool"] == "run_code" and not call["isError"], call["text"]
    lines = call["text"].splitlines()
    assert lines[0] == "workspace: README.md, config.env, notes/, secrets.txt, src/"
    assert lines[1] == "found 3 TODO lines in README.md, notes/todo.txt, src/app.py"  # computed over the hits
    assert lines[2] == "README.md: 24 words, 4.0 a line"
    assert lines[3].startswith("secrets.txt denied: ") and '"secrets.txt" holds credentials' in lines[3]
    assert lines[-1] == '{"dirs":2,"todos":3,"words":24}'
    events = step(transcript, "dispatch-log")["details"]["events"]
    parent = call["callId"]
    assert [(e["subCallId"], e["name"], e["isError"]) for e in events] == [
        (f"{parent}:code:1", "list_dir", False),
        (f"{parent}:code:2", "search_text", False),
        (f"{parent}:code:3", "count_words", False),
        (f"{parent}:code:4", "read_file", True),
    ]
    assert all(e["parentCallId"] == parent for e in events)
    assert events[3]["arguments"] == {"path": "secrets.txt"}


def test_code_mode_sends_direct_calls_for_a_twin_presented_as_both() -> None:
    result = run_cli("demo", "--json", "--mode", "code")
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = orjson.loads(result.stdout)
    assert step(data, "prompt")["details"]["wireTools"] == ["run_code"]
    calls = [call for s in data["steps"] for call in s["calls"]]
    assert all(call["errorCode"] != "UNKNOWN_TOOL" for call in calls)
    (program,) = step(data, "code-mode")["calls"]
    assert not program["isError"] and program["text"].endswith('{"dirs":2,"todos":3,"words":24}')


def test_native_mode_readable_output() -> None:
    result = run_cli("demo", "--mode", "native")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("dsh-tools demo: a scripted agent session in mode 'native'")
    for number in range(1, 10):
        assert f"== Step {number}. " in out
    assert "← error INVALID_ARGS (ToolArgsError), is_error=True" in out
    assert "← error TOOL_TIMEOUT (ToolTimeoutError), is_error=True" in out
    assert "approver answered: allowed-once" in out and "approver answered: rejected" in out
    assert "+ additional context from demo-redactor:" in out
    assert "Skipped in native mode" in out and "run_code" not in out.split("== Step 2.")[0]
    assert out.rstrip().endswith("ms.")


def test_parallel_reads_overlap_and_the_write_is_a_barrier(transcript: dict[str, Any]) -> None:
    parallel = step(transcript, "parallel")
    calls, details = parallel["calls"], parallel["details"]
    assert [c["tool"] for c in calls] == ["read_file", "list_dir", "count_words", "write_file", "search_text", "read_file"]
    assert not any(c["isError"] for c in calls) and calls[3]["approval"] == "allowed-once"
    timeline = details["timeline"]
    assert [row["mode"] for row in timeline] == ["parallel"] * 3 + ["exclusive"] + ["parallel"] * 2
    before, write, after = timeline[:3], timeline[3], timeline[4:]
    assert max(r["startMs"] for r in before) < min(r["endMs"] for r in before), "the first reads overlap"
    assert write["startMs"] >= max(r["endMs"] for r in before), "the write waits for the reads before it"
    assert min(r["startMs"] for r in after) >= write["endMs"], "and the reads after it wait for the write"
    assert max(r["startMs"] for r in after) < min(r["endMs"] for r in after)


def test_a_program_parks_for_a_human_and_resumes_by_replay(transcript: dict[str, Any]) -> None:
    paused = step(transcript, "paused-program")
    (parked,) = paused["calls"]
    assert parked["tool"] == "run_code" and parked["errorCode"] == "APPROVAL_PENDING"
    assert parked["text"] == 'Error: the program is waiting for approval of its call to tool "write_file"'
    details = paused["details"]
    assert details["subCall"] == {"callId": f"{parked['callId']}:code:2", "tool": "write_file"}
    resumed = details["resumed"]
    assert resumed["callId"] == parked["callId"] and resumed["outcome"] == "ok"
    assert resumed["text"].startswith("(resumed after the approval of write_file)\nREADME.md has ")
    outcomes = [(r["tool"], r["outcome"]) for r in details["journal"]]
    assert outcomes == [
        ("count_words", "ok"), ("write_file", "approval-pending"), ("run_code", "approval-pending"),
        ("write_file", "ok"), ("read_file", "ok"), ("run_code", "ok"),
    ]  # count_words ran once: the rerun got it from the journal
