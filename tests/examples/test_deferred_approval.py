"""examples/deferred_approval.py: a parked call survives a UI restart and is resumed once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from examples.deferred_approval import main

REPO = Path(__file__).resolve().parents[2]

EXPECTED = [
    'agent got: Error: tool "write_file" is waiting for approval',
    "ui shows: write_file README.md (8 B)",
    "after approval: wrote 8 bytes to README.md",
    "on disk: {'README.md': '# Hello\\n'}",
    "still waiting: 0",
]


async def test_the_flow_parks_restarts_and_resumes() -> None:
    assert await main() == EXPECTED


def test_the_example_runs_as_a_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "examples.deferred_approval"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == EXPECTED
