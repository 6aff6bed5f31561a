"""The extra stays optional: the core never imports the SDK, and the package says what is missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)


def test_importing_dsh_tools_does_not_import_mcp() -> None:
    done = run_python(
        "import sys, dsh_tools, dsh_tools.cli; "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types', 'dsh_tools.mcp'))))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_the_sdk_the_package_names_the_extra() -> None:
    done = run_python(
        "import sys; sys.modules['mcp'] = None\n"  # what an environment without the extra looks like
        "import dsh_tools\n"
        "try:\n    import dsh_tools.mcp\nexcept ImportError as e:\n    print(e)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "dsh_tools.mcp needs the optional extra: pip install 'dsh-tools[mcp]'"


def test_without_the_sdk_mcp_serve_is_a_usage_error() -> None:
    done = run_python(
        "import sys; sys.modules['mcp'] = None\n"
        "from dsh_tools.cli import main\n"
        "sys.exit(main(['mcp-serve', 'tests/mcp/served_tools.py']))\n"
    )
    assert done.returncode == 2
    assert "dsh-tools: error: dsh_tools.mcp needs the optional extra" in done.stderr
