"""Every example runs as its docstring says (``python -m examples.<name>``) and prints what it shows.

Each runs in a subprocess from the repository root, as a reader would run
it; none needs a network or a key (the model loops play a scripted API, the
MCP client starts its own server). The MCP server example is a server: its
standard output is the protocol, so it prints nothing and ends at EOF.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
HELPERS = {"__init__", "scripted_api"}
"""Modules the examples import, not examples themselves."""
FIRST_LINES = {
    "anthropic_loop": "user: Please greet Ada.",
    "custom_pipeline": "c1 read_file: read a.txt",
    "deferred_approval": "agent got: Error: tool \"write_file\" is waiting for approval (approval-pending)",
    "mcp_client": "registered: wx_weather, wx_to_fahrenheit, wx_delete_forecasts",
    "openai_loop": "user: Please greet Ada.",
}
"""What each example prints first (the rest is its own business)."""


def run(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", f"examples.{name}"],
        cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )


def test_every_example_has_a_main_and_a_check() -> None:
    names = {path.stem for path in EXAMPLES.glob("*.py")} - HELPERS
    assert names == set(FIRST_LINES) | {"mcp_server"}
    for name in names:
        assert 'if __name__ == "__main__":' in (EXAMPLES / f"{name}.py").read_text(encoding="utf-8"), name


@pytest.mark.parametrize("name", sorted(FIRST_LINES))
def test_an_example_runs_and_prints_what_it_shows(name: str) -> None:
    result = run(name)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == FIRST_LINES[name], result.stdout
    assert len(result.stdout.splitlines()) >= 3


def test_the_mcp_server_example_serves_until_eof_and_prints_nothing_else() -> None:
    result = run("mcp_server")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
