"""Running ``dsh-tools`` as a user would: the installed console script, in a subprocess.

The script sits next to the interpreter running the tests (the venv's
``bin/``); tests fail loudly if it is missing rather than silently falling back
to importing the CLI in-process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Final

REPO: Final = Path(__file__).resolve().parents[2]
DEMO_TOOLS: Final = REPO / "dsh_tools" / "demo" / "tools"
"""The packaged demo tools, for tests that load tools by file path."""
DSH_TOOLS: Final = Path(sys.executable).parent / "dsh-tools"


def run_cli(
    *args: str, cwd: Path | None = None, timeout: float = 60, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``dsh-tools ARGS...`` (``stdin`` as its standard input); never raises on a non-zero exit."""
    assert DSH_TOOLS.is_file(), f"console script missing: {DSH_TOOLS} (pip install -e .)"
    return subprocess.run(
        [str(DSH_TOOLS), *args],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
    )


def write_module(directory: Path, name: str, source: str) -> Path:
    """Write ``directory/name.py`` from a dedented source; its path."""
    path = directory / f"{name}.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def assert_usage_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit 2, nothing on stdout, one clear message naming the culprit, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.startswith("dsh-tools: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


TOOL_BODY: Final = '''
from collections.abc import Mapping
from dsh_tools import ToolExecution, define_tool, text_block, Prop

async def _echo(args: Mapping[str, object], exec: ToolExecution) -> list[dict[str, object]]:
    return [text_block(str(args.get("text", "")))]

def make(name: str):
    return define_tool(
        name=name,
        description=f"The {name} tool.",
        parameters={"text": Prop("string", required=True, description="What to echo")},
        execute=_echo,
    )
'''
"""Module source prefix defining ``make(name)``: a SchemaSpec echo tool."""
