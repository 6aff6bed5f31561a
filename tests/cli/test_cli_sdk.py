"""``dsh-tools sdk``: the tools:sdk text, from every way a module can expose tools."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import DEMO_TOOLS, TOOL_BODY, run_cli, write_module
from dsh_tools.cli.loading import import_module_spec
from dsh_tools_codegen import SDK_USAGE, render_tools_sdk


def sdk_of(*specs: str, cwd: Path | None = None) -> str:
    result = run_cli("sdk", *specs, cwd=cwd)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def test_sdk_of_a_tools_file_is_the_registry_section_text() -> None:
    out = sdk_of(str(DEMO_TOOLS / "files.py"))
    assert out.startswith(SDK_USAGE)
    assert "declare const tools: {" in out
    assert "  list_dir(args: {\n" in out
    assert "    path?: string;\n" in out
    assert '  }): Promise<{\n    name: string;\n    kind: "file" | "dir";\n  }[]>;\n' in out  # list_dir, typed
    assert out[out.index("  write_file("):].endswith("  }): Promise<string>;\n};\n```\n")  # a content tool
    assert "  read_file(args: {\n" in out
    assert "    limit?: number;\n" in out
    assert out.index("list_dir(") < out.index("read_file(") < out.index("write_file(")  # lexicographic
    module = import_module_spec(str(DEMO_TOOLS / "files.py"))
    expected = render_tools_sdk(tool_schema(tool) for tool in module.TOOLS)
    assert out == expected + "\n"


def tool_schema(tool: object) -> dict[str, object]:
    return {"name": getattr(tool, "name"), "description": getattr(tool, "description"),
            "parameters": getattr(tool, "parameters"), "output_schema": getattr(tool, "output_schema")}


def test_sdk_is_byte_identical_across_runs() -> None:
    specs = ["dsh_tools.demo.tools.files", "dsh_tools.demo.tools.text", "dsh_tools.demo.tools.build"]
    first = run_cli("sdk", *specs)
    second = run_cli("sdk", *reversed(specs))
    assert first.returncode == second.returncode == 0
    assert first.stdout.encode() == second.stdout.encode()
    for name in ("build_status", "count_words", "list_dir", "read_file", "search_text", "write_file"):
        assert f"  {name}(args: " in first.stdout
    assert "}): Promise<{\n    words: number;\n    lines: number;\n    characters: number;\n  }>;" in first.stdout


def test_module_forms_and_attribute_selection(tmp_path: Path) -> None:
    write_module(tmp_path, "listed", TOOL_BODY + "TOOLS = [make('alpha'), make('beta')]\nstray = make('unlisted')\n")
    write_module(tmp_path, "registering", TOOL_BODY + "def register(ctx):\n    ctx.tools.register(make('gamma'))\n")
    write_module(tmp_path, "loose", TOOL_BODY + "delta = make('delta')\nepsilon = make('epsilon')\n")
    write_module(
        tmp_path, "chooser",
        TOOL_BODY + "ONE = make('zeta')\ndef factory():\n    return [make('eta')]\n"
        "def install(ctx):\n    ctx.tools.register(make('theta'))\nTOOLS = [make('iota')]\n",
    )
    assert "alpha(" in sdk_of("listed", cwd=tmp_path) and "unlisted" not in sdk_of("listed", cwd=tmp_path)
    assert "gamma(" in sdk_of("registering", cwd=tmp_path)
    loose = sdk_of(str(tmp_path / "loose.py"))
    assert "delta(" in loose and "epsilon(" in loose
    for attr, name in (("ONE", "zeta"), ("factory", "eta"), ("install", "theta"), ("TOOLS", "iota")):
        out = sdk_of(f"chooser:{attr}", cwd=tmp_path)
        assert f"  {name}(args: " in out, attr
        assert out.count("(args: ") == 1, attr


def test_dotted_module_in_a_package(tmp_path: Path) -> None:
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    write_module(package, "tools", TOOL_BODY + "TOOLS = [make('kappa')]\n")
    assert "  kappa(args: {\n    /** What to echo */\n    text: string;\n  }): Promise<string>;" in sdk_of(
        "mypkg.tools", cwd=tmp_path
    )


def test_modules_elsewhere_resolve_as_python_m_and_paths_do(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    write_module(project, "mytools", TOOL_BODY + "TOOLS = [make('lambda_')]\n")
    write_module(project / "pkg", "__init__", TOOL_BODY + "TOOLS = [make('mu')]\n")
    assert "  lambda_(args: " in sdk_of("mytools", cwd=project)  # the current directory, as python -m
    assert "  lambda_(args: " in sdk_of("proj.mytools", cwd=tmp_path)  # a namespace package, as python -m
    assert "  lambda_(args: " in sdk_of("proj/mytools.py", cwd=tmp_path)
    assert "  lambda_(args: " in sdk_of("proj/mytools", cwd=tmp_path)  # NAME finds NAME.py
    assert "  mu(args: " in sdk_of("proj/pkg", cwd=tmp_path)  # a package directory
    assert "  mu(args: " in sdk_of("proj/pkg/__init__.py", cwd=tmp_path)
    elsewhere = run_cli("sdk", "mytools", cwd=tmp_path)
    assert elsewhere.returncode == 2
    assert f"no module named 'mytools' in the current directory ({tmp_path})" in elsewhere.stderr
    assert "path/to/mytools.py" in elsewhere.stderr


def test_a_module_register_is_called_even_beside_a_tools_list(tmp_path: Path) -> None:
    """``register(ctx)`` is the module's own installation: every command calls it when it exists."""
    write_module(
        tmp_path, "both",
        TOOL_BODY + "TOOLS = [make('listed')]\ndef register(ctx):\n    ctx.tools.register(make('installed'))\n",
    )
    out = sdk_of("both", cwd=tmp_path)
    assert "  installed(args: " in out and "listed(" not in out
