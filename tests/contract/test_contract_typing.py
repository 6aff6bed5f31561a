"""API.md: "mypy ``--strict`` passes on ... the examples and tests" and
"``mypy --strict`` must reject an ``execute`` whose args type does not match ``args=``"."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SNIPPET = Path(__file__).resolve().parent / "snippets" / "user_code.py"


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("contract-mypy-cache")


def mypy(cache: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), "--no-error-summary", *map(str, files)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_user_code_passes_mypy_strict(cache_dir: Path) -> None:
    done = mypy(cache_dir, SNIPPET)
    assert done.returncode == 0, done.stdout + done.stderr


def load_user_code() -> ModuleType:
    spec = importlib.util.spec_from_file_location("contract_user_code", SNIPPET)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the importlib recipe: TypedDict hints resolve via sys.modules
    spec.loader.exec_module(module)
    return module


async def test_user_code_runs_as_typed() -> None:
    out = await load_user_code().main()
    assert out["read"] == "read /a from 0"
    assert out["code"] == "called\nraw"
    assert out["tools"] == "extra,raw,read_file,run_code"  # code-point order (API.md "Order")
    assert out["prompt"].startswith("You are careful.\n\nagent\n\n")
    assert out["prompt"].endswith("\n\nBe brief.")
    assert "read_file(args: {" in out["sdk"]
    # the custom pipeline: budget of one call per agent
    assert out["custom"] == "False/True"


PRELUDE = """
from collections.abc import Mapping
from typing import NotRequired, TypedDict
from dsh_tools import ContentBlock, GenericCallView, JsonValue, Prop, ToolExecution, define_tool, text_block

class ReadArgs(TypedDict):
    path: str
    offset: NotRequired[int]

class OtherArgs(TypedDict):
    count: int
"""

NEGATIVES = {
    "execute_args_mismatch": """
async def count(args: OtherArgs, exec: ToolExecution) -> list[ContentBlock]:
    return []

tool = define_tool(name="count", description="Count.", args=ReadArgs, execute=count)
""",
    "spec_execute_wants_typed_dict": """
async def read(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
    return []

tool = define_tool(name="read", description="Read.", parameters={"path": Prop("string")}, execute=read)
""",
    "present_call_args_mismatch": """
async def read(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
    return []

def present(args: OtherArgs) -> GenericCallView:
    return GenericCallView(title=str(args["count"]))

tool = define_tool(name="read", description="Read.", args=ReadArgs, execute=read, present_call=present)
""",
    "execute_returns_str": """
async def read(args: ReadArgs, exec: ToolExecution) -> str:
    return args["path"]

tool = define_tool(name="read", description="Read.", args=ReadArgs, execute=read)
""",
}


@pytest.mark.parametrize("name", sorted(NEGATIVES))
def test_mypy_rejects_mismatched_definitions(name: str, cache_dir: Path, tmp_path: Path) -> None:
    snippet = tmp_path / f"negative_{name}.py"
    snippet.write_text(textwrap.dedent(PRELUDE + NEGATIVES[name]))
    done = mypy(cache_dir, snippet)
    assert done.returncode == 1, done.stdout + done.stderr
    own = [line for line in done.stdout.splitlines() if line.startswith(str(snippet)) and ": error:" in line]
    assert own, done.stdout
    assert all("define_tool" in line or "overload" in line or "Argument" in line for line in own), own


def test_mypy_rejects_mistyped_listener_for_known_event(cache_dir: Path, tmp_path: Path) -> None:
    snippet = tmp_path / "negative_listener.py"
    snippet.write_text(
        textwrap.dedent(
            """
            from dsh_tools import ToolExecution, ToolExecutionResult, boot
            ctx = boot()
            def wrong(exec: ToolExecution, result: ToolExecutionResult) -> int:
                return 1
            ctx.on("tools/pre-execute", wrong)
            """
        )
    )
    done = mypy(cache_dir, snippet)
    assert done.returncode == 1, done.stdout
