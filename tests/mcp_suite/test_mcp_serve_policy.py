"""``dsh-tools mcp-serve``: a module's ``register(ctx)`` brings its policy; without one the command warns.

Real servers: the command runs as a subprocess on stdio, and our own
``mcp_tools`` client talks to it over the protocol.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dsh_tools import ToolExecutionInput, boot
from dsh_tools.mcp import StdioServerParameters, mcp_tools

REPO = Path(__file__).resolve().parents[2]
SERVED_TOOLS = Path(__file__).with_name("served_tools.py")
ENV = {"PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}


def serve_until_eof(module: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``mcp-serve MODULE`` with an empty standard input: it starts, sees EOF, and stops."""
    return subprocess.run(
        [sys.executable, "-m", "dsh_tools.cli", "mcp-serve", module],
        cwd=cwd, env={**os.environ, **ENV}, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_a_module_without_register_is_served_with_a_warning_on_stderr(tmp_path: Path) -> None:
    served = serve_until_eof(str(SERVED_TOOLS), tmp_path)
    assert served.returncode == 0, served.stderr
    assert served.stdout == ""  # standard output is the protocol's alone
    assert f"dsh-tools: warning: {SERVED_TOOLS} defines no register(ctx), so its tools are served with no policy" in (
        served.stderr
    )


def test_a_module_with_register_is_served_without_a_warning(tmp_path: Path) -> None:
    served = serve_until_eof("dsh_tools.demo.tools", tmp_path)
    assert served.returncode == 0, served.stderr
    assert "warning" not in served.stderr


async def test_the_demo_tools_served_over_mcp_keep_the_ask_on_write_file(tmp_path: Path) -> None:
    """The client (which cannot answer an elicitation) is refused; nothing is written in the server's directory."""
    (tmp_path / "notes.txt").write_text("hello\n")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "dsh_tools.cli", "mcp-serve", "dsh_tools.demo.tools"], env=ENV, cwd=tmp_path
    )
    ctx = boot()
    toolset = await mcp_tools(ctx, params, allow=["write_file", "read_file"])
    try:
        written = await ctx.tools.execute(
            ToolExecutionInput(call_id="w", name="write_file", arguments={"path": "out.txt", "content": "pwned"})
        )
        assert written.is_error and written.text.endswith('Error: write_file would change "out.txt"')
        assert not (tmp_path / "out.txt").exists()
        secret = await ctx.tools.execute(ToolExecutionInput(call_id="r", name="read_file", arguments={"path": "../x"}))
        assert secret.is_error and secret.text.endswith('Error: read_file: "../x" is outside the workspace')
        read = await ctx.tools.execute(ToolExecutionInput(call_id="n", name="read_file", arguments={"path": "notes.txt"}))
        assert not read.is_error and "hello" in read.text
    finally:
        await toolset.aclose()
