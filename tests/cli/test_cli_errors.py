"""Usage errors: exit 2, a message naming the culprit, no traceback."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import REPO, TOOL_BODY, assert_usage_error, run_cli, write_module


def test_missing_module_says_where_it_looked() -> None:
    result = run_cli("sdk", "no_such_module_xyz")
    assert_usage_error(
        result,
        "cannot import 'no_such_module_xyz': no module named 'no_such_module_xyz'",
        f"in the current directory ({REPO})",
        "PYTHONPATH",
        "as `python -m` does",
        "give its path (path/to/no_such_module_xyz.py)",
    )


def test_missing_module_file() -> None:
    assert_usage_error(
        run_cli("schemas", "nowhere/tools.py"), "file not found: nowhere/tools.py", f"current directory, {REPO}"
    )
    assert_usage_error(
        run_cli("schemas", "nowhere/tools"),
        "file not found: nowhere/tools, nowhere/tools.py, nowhere/tools/__init__.py",
    )


def test_a_tool_body_named_by_attr_is_explained_with_the_wrapping(tmp_path: Path) -> None:
    write_module(
        tmp_path, "bodies",
        "async def get_weather(args, exec):\n    return []\n"
        "def sync_body(args, exec):\n    return []\n"
        "async def one_arg(args):\n    return []\n",
    )
    for attr in ("get_weather", "sync_body", "one_arg"):
        result = run_cli("sdk", f"bodies:{attr}", cwd=tmp_path)
        assert_usage_error(
            result,
            f"bodies:{attr}: {attr} looks like a tool body (args, exec), not a tool",
            f"TOOL = define_tool(name='{attr}', description=\"...\", parameters={{...}}, execute={attr})",
            "then load bodies:TOOL",
        )


def test_module_that_fails_to_import(tmp_path: Path) -> None:
    write_module(tmp_path, "broken", "import no_such_dependency_xyz\n")
    assert_usage_error(run_cli("sdk", "broken", cwd=tmp_path), "'broken' failed to import", "no_such_dependency_xyz")


def test_module_with_no_tools(tmp_path: Path) -> None:
    write_module(tmp_path, "empty", "VALUE = 1\n")
    assert_usage_error(run_cli("catalog", "empty", cwd=tmp_path), "empty: defines no tools", "TOOLS")
    write_module(tmp_path, "silent", "def register(ctx):\n    pass\n")
    assert_usage_error(run_cli("sdk", "silent", cwd=tmp_path), "silent: defines no tools")


def test_missing_attribute_and_wrong_attribute_kind(tmp_path: Path) -> None:
    write_module(tmp_path, "listed", TOOL_BODY + "TOOLS = [make('alpha')]\nNUMBER = 3\nMIXED = [make('b'), 'oops']\n")
    assert_usage_error(run_cli("sdk", "listed:NOPE", cwd=tmp_path), "listed:NOPE", "no attribute 'NOPE'")
    assert_usage_error(run_cli("sdk", "listed:NUMBER", cwd=tmp_path), "listed:NUMBER", "int is not a tool")
    assert_usage_error(run_cli("sdk", "listed:MIXED", cwd=tmp_path), "listed:MIXED[1]", "str is not a tool")


def test_duplicate_tool_across_modules_names_both(tmp_path: Path) -> None:
    write_module(tmp_path, "first", TOOL_BODY + "TOOLS = [make('shared'), make('only_first')]\n")
    write_module(tmp_path, "second", TOOL_BODY + "def register(ctx):\n    ctx.tools.register(make('shared'))\n")
    assert_usage_error(
        run_cli("schemas", "first", "second", cwd=tmp_path), 'duplicate tool name "shared"', "first", "second"
    )


def test_a_schema_the_registry_rejects_is_attributed_to_its_module(tmp_path: Path) -> None:
    write_module(
        tmp_path, "raw",
        "class Bad:\n    name = 'bad'\n    description = 'bad'\n    parameters = {'type': 'object', 'x': float('nan')}\n"
        "    async def execute(self, args, exec):\n        return []\nTOOLS = [Bad()]\n",
    )
    assert_usage_error(run_cli("sdk", "raw", cwd=tmp_path), "raw: cannot register its tools", '"bad"', "not JSON")


def test_missing_program_file() -> None:
    assert_usage_error(
        run_cli("run-code", "no_such_program.ts", "--tools", "dsh_tools.demo.tools.build"),
        "file not found: no_such_program.ts",
    )


def test_argparse_usage_errors_exit_2() -> None:
    result = run_cli("sdk")
    assert result.returncode == 2 and "usage:" in result.stderr
    result = run_cli("frobnicate")
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_version_prints_the_installed_distribution_version() -> None:
    from importlib.metadata import version

    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"dsh-tools {version('dsh-tools')}\n"
