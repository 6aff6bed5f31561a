"""examples/deferred_approval.py: a parked call survives a restart, is decided elsewhere, and runs once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from examples.deferred_approval import main

REPO = Path(__file__).resolve().parents[2]

EXPECTED = [
    'agent got: Error: tool "write_file" is waiting for approval (approval-pending)',
    "ui shows: write_file README.md (8 B) for agent editor-1",
    "after approval: wrote 8 bytes to README.md",
    "on disk: '# Hello\\n'",
    "still waiting: 0",
]


def test_the_flow_parks_restarts_and_resumes_across_processes() -> None:
    assert main() == EXPECTED


def test_the_example_runs_as_a_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "examples.deferred_approval"], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == EXPECTED
