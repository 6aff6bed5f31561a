"""Run ``mypy --strict`` on a snippet of user code and keep only the snippet's own diagnostics."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

__all__ = ["Checked", "check_snippet", "mypy_cache"]


class Checked:
    """One mypy run: its exit status and the diagnostics that point into the snippet."""

    def __init__(self, returncode: int, errors: list[str], stdout: str) -> None:
        self.returncode = returncode
        self.errors = errors
        self.stdout = stdout


def check_snippet(tmp_path: Path, cache: Path, name: str, source: str) -> Checked:
    """Write ``source`` to ``tmp_path/name`` and type-check it (the package is checked by its own job)."""
    snippet = tmp_path / name
    snippet.write_text(textwrap.dedent(source))
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), "--no-error-summary", str(snippet)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    own = [line for line in done.stdout.splitlines() if line.startswith(name) or f"/{name}:" in line]
    return Checked(done.returncode, own, done.stdout)


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for every snippet test of the session (the package is analysed once)."""
    return tmp_path_factory.mktemp("mypy-cache")
