"""The Deno process is a hostile peer: its frames are bounded whatever the reads, and the host names and
bounds its answers as the harness does (a forged harness, driven through a fake process)."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from dsh_tools.code_mode.deno._frames import FrameSplitter
from dsh_tools.code_mode.deno._process import Budgets
from dsh_tools.code_mode.deno._run import RunSession
from dsh_tools.code_mode.runtime import CodeBindingNamespace

SECRET = "0123456789abcdef"
TAG = b"\x1e" + SECRET.encode() + b"\x1f"


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_a_frame_longer_than_max_frame_is_dropped_even_when_its_newline_is_already_in(chunk: int) -> None:
    """``max_frame`` was only checked while a frame's newline had not arrived: the chunk that brings the
    newline could carry the frame past the limit (up to a whole 1 MiB read) and it was still delivered."""
    limit = 16
    big = b'{"t":"log","level":"log","text":"' + b"x" * 40 + b'"}'
    stream = b"before" + TAG + big + b"\n" + TAG + b'{"t":"received"}\n' + b"after"
    splitter = FrameSplitter(SECRET, limit)
    pieces = []
    for at in range(0, len(stream), chunk):
        pieces += splitter.feed(stream[at : at + chunk])
    pieces += splitter.finish()
    frames = [payload for kind, payload in pieces if kind == "frame"]
    assert frames == [b'{"t":"received"}']
    assert all(len(frame) <= limit for frame in frames)
    assert b"".join(payload for kind, payload in pieces if kind == "data") == b"beforeafter"


# -- RunSession against a forged harness, with a fake process ------------------------------------------------


class FakeProcess:
    """What RunSession uses of a SandboxProcess: lines written to the harness are kept."""

    secret = SECRET

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.killed = 0

    def write(self, line: bytes) -> bool:
        self.lines.append(line)
        return True

    async def send(self, line: bytes) -> bool:
        return self.write(line)

    def queued_bytes(self) -> int:
        return 0

    def kill(self) -> None:
        self.killed += 1


def session(max_values: int = 100_000, **functions: Any) -> tuple[RunSession, FakeProcess]:
    budgets = Budgets(
        compute_ms=1000, wall_ms=10_000, max_log=4096, max_value=4096, max_rss=1 << 30,
        max_args=1 << 20, max_values=max_values, max_calls=10, max_queued=1 << 20,
    )
    process = FakeProcess()
    run = RunSession(process, [CodeBindingNamespace("tools", functions)], None, budgets, None)  # type: ignore[arg-type]
    return run, process


def frame(message: object) -> bytes:
    return TAG + orjson.dumps(message) + b"\n"


async def test_arguments_with_too_many_values_are_refused_as_a_range_error_as_the_harness_refuses_them() -> None:
    """The harness refuses too many values with a RangeError; the host's own check (for a harness that did
    not) named it by whether its message holds "JSON", and "more than N JSON values" does: a TypeError."""

    async def echo(args: object) -> object:
        return args

    run, process = session(max_values=3, echo=echo)
    run._pieces(FrameSplitter(SECRET, 1 << 20).feed(frame({"t": "call", "id": 1, "ns": 0, "fn": 0, "args": "[1,2,3,4]"})))  # noqa: SLF001
    await asyncio.gather(*run._calls)  # noqa: SLF001 - the binding call's task: its reply is written when it ends
    (reply,) = [orjson.loads(line) for line in process.lines]
    assert reply["id"] == 1 and reply["ok"] is False and "3 JSON values" in reply["error"]
    assert reply.get("name") == "RangeError"


async def test_a_forged_error_text_is_cut_where_the_harness_cuts_it() -> None:
    run, _ = session()
    run._on_message({"t": "done", "ok": False, "error": "x" * 100_000})  # noqa: SLF001
    value, failure = await run._outcome  # noqa: SLF001
    assert value is None and failure is not None and failure.kind == "exception"
    assert failure.message == "x" * 16_384


async def test_a_binding_call_counts_as_the_program_having_run_even_without_its_acknowledgement() -> None:
    """A process that dies after a call frame ran part of the program: it must not be run again elsewhere
    as "undelivered" (its calls' effects would happen twice), even when a forged harness skipped ``received``."""

    async def echo(args: object) -> object:
        return args

    run, _ = session(echo=echo)
    before = run._received  # noqa: SLF001
    run._on_message({"t": "call", "id": 1, "ns": 0, "fn": 0, "args": "{}"})  # noqa: SLF001
    assert (before, run._received) == (False, True)  # noqa: SLF001
    await asyncio.gather(*run._calls)  # noqa: SLF001
