"""The package's exports: one list (``dsh_tools/__init__.pyi``), lazy at run time, typed for mypy.

Type checkers read the stub's ``from dsh_tools.x import Name as Name`` lines;
``dsh_tools.__getattr__`` reads the same lines (with a plain split, not
``ast``) to load each name on first use. These tests hold the two readings
of the one list together.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dsh_tools

INIT = Path(dsh_tools.__file__)
STUB = INIT.with_name("__init__.pyi")
EXPORTS = dsh_tools._export_table()


def stub_imports() -> dict[str, str]:
    """Name → module, read from the stub by ``ast`` (what a type checker reads)."""
    found: dict[str, str] = {}
    for statement in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(statement, (ast.Expr, ast.FunctionDef)):  # the docstring, _export_table
            continue
        assert isinstance(statement, ast.ImportFrom) and statement.module, ast.dump(statement)
        for alias in statement.names:
            assert alias.asname == alias.name, f"write `{alias.name} as {alias.name}` (an explicit re-export)"
            found[alias.name] = statement.module
    return found


def test_the_runtime_reads_the_stub_as_a_type_checker_does() -> None:
    assert EXPORTS == stub_imports()
    assert getattr(dsh_tools, "__all__") == list(EXPORTS)  # the stub declares no __all__: mypy would export only it
    assert len(EXPORTS) > 100


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_every_export_is_the_object_its_module_defines(name: str) -> None:
    module = importlib.import_module(EXPORTS[name])
    assert getattr(dsh_tools, name) is getattr(module, name)
    assert name in dir(dsh_tools)


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'dsh_tools' has no attribute 'no_such_name'"):
        dsh_tools.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    assert not hasattr(dsh_tools, "no_such_name_either")


def run_python(source: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(source)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_the_package_loads_nothing_else() -> None:
    loaded = run_python(
        """
        import sys
        before = set(sys.modules)
        import dsh_tools
        new = set(sys.modules) - before
        # The interpreter's own import machinery (importlib, types, warnings) may
        # or may not be loaded already, depending on how site set up the path;
        # nothing else of ours, no dependency and no heavy stdlib package may be.
        ours_or_third_party = [m for m in new if m.split(".")[0] not in sys.stdlib_module_names]
        heavy_stdlib = [m for m in new if m.split(".")[0] in ("asyncio", "logging", "inspect", "typing", "json", "ssl")]
        print(sorted(ours_or_third_party + heavy_stdlib))
        """
    )
    assert loaded == "['dsh_tools']"


def test_a_native_mode_program_never_loads_deno_the_cli_the_demo_or_adapters() -> None:
    loaded = run_python(
        """
        import asyncio, sys
        from dsh_tools import ToolExecutionInput, boot, define_tool, Prop, text_block

        async def main():
            async def echo(args, exec):
                return [text_block("hi")]
            ctx = boot()
            ctx.tools.register(define_tool(name="echo", description="Echo.", parameters={}, execute=echo))
            return (await ctx.tools.execute(ToolExecutionInput("c", "echo", {}))).text

        assert asyncio.run(main()) == "hi"
        heavy = ("dsh_tools.code_mode.deno", "dsh_tools.cli", "dsh_tools.demo", "dsh_tools.adapters")
        print(sorted(m for m in sys.modules if m.startswith(heavy)))
        """
    )
    assert loaded == "[]"


def test_a_submodule_never_shadows_the_export_it_defines() -> None:
    shadowed = [name for name, module in EXPORTS.items() if module == f"dsh_tools.{name}"]
    assert shadowed == ["boot"]  # dsh_tools.boot (the module) defines boot (the function)
    out = run_python(
        """
        import dsh_tools.boot
        import dsh_tools
        from dsh_tools import boot
        print(callable(boot), dsh_tools.boot is boot, boot.__module__)
        """
    )
    assert out == "True True dsh_tools.boot"


def test_no_submodule_is_named_like_an_export_it_does_not_define() -> None:
    """``import dsh_tools.x`` sets the package's ``x``: a module named like another module's export would hide it."""
    import pkgutil

    names = {module.name for module in pkgutil.iter_modules(dsh_tools.__path__)}
    assert sorted(name for name in names & set(EXPORTS) if EXPORTS[name] != f"dsh_tools.{name}") == []


def test_star_import_gives_every_export() -> None:
    out = run_python(
        """
        import dsh_tools
        namespace = {}
        exec("from dsh_tools import *", namespace)
        print(sorted(set(dsh_tools.__all__) - set(namespace)))
        """
    )
    assert out == "[]"


def test_mypy_sees_the_exports_typed_and_rejects_unknown_names(tmp_path: Path) -> None:
    snippet = tmp_path / "uses_exports.py"
    snippet.write_text(
        "import dsh_tools\n"
        "from dsh_tools import Context, boot\n\n"
        "ctx: Context = boot()\n"
        "wrong: int = dsh_tools.boot()\n"
        "dsh_tools.no_such_name\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--no-error-summary", str(snippet)],
        capture_output=True, text=True, timeout=300, check=False, cwd=INIT.parents[1],
    )
    errors = [line.split(": error: ")[1] for line in done.stdout.splitlines() if ": error: " in line]
    assert errors == [
        'Incompatible types in assignment (expression has type "Context", variable has type "int")  [assignment]',
        'Module has no attribute "no_such_name"  [attr-defined]',
    ], done.stdout
