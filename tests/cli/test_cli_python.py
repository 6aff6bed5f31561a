"""``dsh-tools run-code --language python`` and ``dsh-tools demo --mode code --language python`` (real Monty)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from cli_helpers import run_cli


def test_run_code_runs_a_python_program(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one two three\nfour\n")
    source = (
        "entries = await tools.list_dir()\n"
        'print("entries:", len(entries), ",".join(entry["kind"] for entry in entries))\n'
        'counted = await tools.count_words(path="notes.txt")\n'
        'return [counted["words"], counted["lines"]]\n'
    )
    path = tmp_path / "program.py"
    path.write_text(source, encoding="utf-8")
    result = run_cli(
        "run-code", str(path), "--language", "python",
        "--tools", "dsh_tools.demo.tools.files,dsh_tools.demo.tools.text", "--dispatches", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "entries: 2 file,file\n[4,2]\n"
    assert [line.split()[1] for line in result.stderr.splitlines()] == ["list_dir", "count_words"]


def test_run_code_reports_a_python_syntax_error_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("x = 1\nif x\n    pass\n", encoding="utf-8")
    result = run_cli("run-code", str(path), "--language", "python", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("Error: code run failed (exception)") and "line 2" in result.stdout


def test_demo_in_python() -> None:
    result = run_cli("demo", "--json", "--mode", "code", "--language", "python")
    assert result.returncode == 0, result.stderr
    transcript: dict[str, Any] = orjson.loads(result.stdout)
    steps = {step["key"]: step for step in transcript["steps"]}
    assert "```python" in steps["prompt"]["details"]["sdk"]
    code = steps["code-mode"]
    assert code["details"]["language"] == "python" and code["title"].endswith("(Python in Monty)")
    (call,) = code["calls"]
    assert not call["isError"] and call["text"].endswith('{"dirs":2,"todos":3,"words":24}')
    assert "secrets.txt denied: Error: read_file" in call["text"]
    assert steps["paused-program"]["details"]["resumed"]["outcome"] == "ok"


def test_sdk_in_python_is_the_registry_section_text() -> None:
    from cli_helpers import DEMO_TOOLS

    from dsh_tools import MontyCodeRuntime, boot
    from dsh_tools.cli.loading import load_tools
    from dsh_tools.code_mode.install import sdk_section_text

    result = run_cli("sdk", str(DEMO_TOOLS / "files.py"), "--language", "python")
    assert result.returncode == 0, result.stderr
    assert "```python" in result.stdout and "async def list_dir(self" in result.stdout
    ctx = boot(mode="code", code_runtime=MontyCodeRuntime())
    load_tools([str(DEMO_TOOLS / "files.py")]).install(ctx)
    assert result.stdout == sdk_section_text(ctx.tools, None) + "\n"
