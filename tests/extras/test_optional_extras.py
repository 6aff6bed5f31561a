"""The core works without the optional SDKs; each adapter says which extra it needs.

Each check runs in a fresh interpreter whose import system refuses the
provider packages (a meta-path finder that raises ``ImportError`` for them,
as if they were not installed), so nothing already imported in the test
process can hide a dependency.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

BLOCKER = """
import importlib.abc, sys

class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"openai", "anthropic", "opentelemetry", "httpx", "httpx2", "pydantic"}:
            raise ImportError(f"No module named {name!r} (blocked by the test)", name=name)
        return None

sys.meta_path.insert(0, Blocker())
"""


def run_without_sdks(code: str) -> subprocess.CompletedProcess[str]:
    source = BLOCKER + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", source], cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )


def test_the_core_imports_and_runs_without_any_provider_sdk() -> None:
    result = run_without_sdks(
        """
        import asyncio
        import dsh_tools
        from dsh_tools import ToolExecutionInput, UnparsedArguments, boot

        async def main():
            ctx = boot()
            result = await ctx.tools.execute(ToolExecutionInput("a", "x", UnparsedArguments("broken")))
            print(result.error.code)

        asyncio.run(main())
        assert not any(m.split(".")[0] in {"openai", "anthropic", "opentelemetry"} for m in sys.modules)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "INVALID_ARGS"


@pytest.mark.parametrize(
    ("module", "extra"),
    [("dsh_tools.adapters.openai", "openai"), ("dsh_tools.adapters.anthropic", "anthropic")],
)
def test_an_adapter_without_its_sdk_raises_an_import_error_naming_the_extra(module: str, extra: str) -> None:
    result = run_without_sdks(
        f"""
        try:
            import {module}
        except ImportError as error:
            print(error)
        else:
            raise SystemExit("imported without the SDK")
        """
    )
    assert result.returncode == 0, result.stderr
    assert f"pip install 'dsh-tools[{extra}]'" in result.stdout


def test_instrument_without_opentelemetry_raises_an_import_error_naming_the_extra() -> None:
    result = run_without_sdks(
        """
        from dsh_tools import boot, instrument
        import dsh_tools.tracing
        try:
            instrument(boot())
        except ImportError as error:
            print(error)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'dsh-tools[otel]'" in result.stdout


def test_the_schemas_command_prints_provider_shapes_without_the_extras() -> None:
    """Printing a request's ``tools`` is JSON: the provider SDKs are not needed for it (issue 23)."""
    result = run_without_sdks(
        """
        from dsh_tools.cli import main
        raise SystemExit(main(["schemas", "dsh_tools.demo.tools.text", "--format", "anthropic"]))
        """
    )
    assert result.returncode == 0, result.stderr
    assert '"input_schema": {' in result.stdout and "Traceback" not in result.stderr
