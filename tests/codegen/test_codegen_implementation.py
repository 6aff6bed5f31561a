"""Choosing between the mypyc-compiled renderer and its pure-Python sources.

The compiled extensions may run only when they were built from the sources
on disk; ``DSH_TOOLS_PURE_PYTHON`` forces the sources. Both must give the same
text — the Makefile also runs this whole folder with the variable set.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sysconfig
import sys
from pathlib import Path

import pytest
from codegen_catalog import CATALOG

import dsh_tools_codegen
from dsh_tools_codegen import render_tools_sdk
from dsh_tools_codegen._implementation import COMPILED_MODULES, IMPLEMENTATION, PURE_ENV, SIDECAR, choose

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
PACKAGE_DIR = Path(dsh_tools_codegen.__file__).parent


def built_package(tmp_path: Path, *, extensions: tuple[str, ...] = COMPILED_MODULES, sidecar: object = "match") -> Path:
    """A fake package directory: sources, (empty) extensions and a sidecar."""
    digests: dict[str, str] = {}
    for name in COMPILED_MODULES:
        source = tmp_path / f"{name}.py"
        source.write_text(f"# {name}\n")
        digests[source.name] = hashlib.sha256(source.read_bytes()).hexdigest()
    for name in extensions:
        (tmp_path / f"{name}{SUFFIX}").write_bytes(b"")
    if sidecar == "match":
        (tmp_path / SIDECAR).write_text(json.dumps(digests))
    elif isinstance(sidecar, str):
        (tmp_path / SIDECAR).write_text(sidecar)
    return tmp_path


def test_sources_only_is_pure_without_special_loading(tmp_path: Path) -> None:
    assert choose(built_package(tmp_path, extensions=(), sidecar=None), {}) == ("pure", False)


def test_extensions_built_from_these_sources_run(tmp_path: Path) -> None:
    assert choose(built_package(tmp_path), {}) == ("compiled", False)


def test_the_environment_variable_forces_the_sources(tmp_path: Path) -> None:
    assert choose(built_package(tmp_path), {PURE_ENV: "1"}) == ("pure", True)
    assert choose(built_package(tmp_path), {PURE_ENV: ""}) == ("compiled", False)


def test_an_edited_source_makes_the_extensions_stale(tmp_path: Path) -> None:
    package = built_package(tmp_path)
    with (package / "_schema.py").open("a") as source:
        source.write("# edited after the build\n")
    assert choose(package, {}) == ("pure", True)


@pytest.mark.parametrize("sidecar", [None, "not json", "[1, 2]", '{"_schema.py": 3}', "{}"])
def test_a_missing_or_odd_sidecar_means_stale(tmp_path: Path, sidecar: str | None) -> None:
    assert choose(built_package(tmp_path, sidecar=sidecar), {}) == ("pure", True)


def test_a_partial_build_is_not_used(tmp_path: Path) -> None:
    assert choose(built_package(tmp_path, extensions=COMPILED_MODULES[:-1]), {}) == ("pure", True)


def test_this_process_runs_what_choose_picks() -> None:
    expected, _ = choose(PACKAGE_DIR, os.environ)
    assert IMPLEMENTATION == expected
    import dsh_tools_codegen._schema as schema

    assert schema.__file__ is not None
    assert schema.__file__.endswith(".py") == (IMPLEMENTATION == "pure")


def test_the_other_implementation_renders_the_same_sdk() -> None:
    other = {**os.environ}
    if IMPLEMENTATION == "compiled":
        other[PURE_ENV] = "1"
    else:
        other.pop(PURE_ENV, None)
    script = (
        "import sys, json, orjson\n"
        "from dsh_tools_codegen import render_tools_sdk\n"
        "from dsh_tools_codegen._implementation import IMPLEMENTATION\n"
        "import dsh_tools_codegen._schema as schema\n"
        "tools = orjson.loads(sys.stdin.buffer.read())\n"
        "print(json.dumps([IMPLEMENTATION, schema.__file__, render_tools_sdk(tools)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(CATALOG).encode(),
        capture_output=True,
        env=other,
        check=True,
        timeout=60,
    )
    implementation, module_file, text = json.loads(done.stdout)
    if IMPLEMENTATION == "compiled":
        assert implementation == "pure" and module_file.endswith("_schema.py")
    assert text == render_tools_sdk(CATALOG)


def test_an_install_without_sources_runs_its_extensions(tmp_path: Path) -> None:
    package = built_package(tmp_path)
    for name in COMPILED_MODULES:
        (package / f"{name}.py").unlink()
    assert choose(package, {}) == ("compiled", False)
    assert choose(package, {PURE_ENV: "1"}) == ("compiled", False)  # nothing else to run


def test_a_damaged_build_falls_back_to_the_sources(tmp_path: Path) -> None:
    if IMPLEMENTATION != "compiled":
        pytest.skip("needs the compiled build (make test builds it)")
    copy = tmp_path / "dsh_tools_codegen"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    damaged = list(copy.glob("_text__mypyc*"))
    assert damaged, "expected mypyc's separate runtime library for _text"
    for path in damaged:
        path.unlink()
    script = (
        # only the damaged copy may be found, not this checkout through the editable install's finder
        "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in str(getattr(f, '__module__', ''))]\n"
        "import dsh_tools_codegen, dsh_tools_codegen._schema as schema\n"
        "from dsh_tools_codegen._implementation import IMPLEMENTATION\n"
        "from dsh_tools_codegen import json_schema_to_ts\n"
        "assert dsh_tools_codegen.__file__.startswith(sys.argv[1]), dsh_tools_codegen.__file__\n"
        "print(IMPLEMENTATION, schema.__file__.endswith('.py'), json_schema_to_ts({'type': 'string'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import sys\n" + script, str(tmp_path)],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == ["pure", "True", "string"]


def test_a_machine_that_can_compile_runs_the_compiled_renderer() -> None:
    # The build falls back to pure Python silently (by design, for users); our
    # own runs must notice when it did so on a machine that could compile.
    if os.environ.get(PURE_ENV):
        pytest.skip("the pure-Python run was asked for")
    compiler = str(sysconfig.get_config_var("CC") or "").split()
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not compiler or shutil.which(compiler[0]) is None or not headers.exists():
        pytest.skip("no C toolchain here: the pure-Python build is the expected one")
    assert IMPLEMENTATION == "compiled", (
        "the mypyc build fell back to pure Python or is stale; `make` rebuilds it, "
        "`pip install -v -e .` shows why it failed"
    )


def test_the_build_and_the_makefile_name_the_same_compiled_modules() -> None:
    # setup.py cannot import the package it builds, so it repeats these names; keep them in step
    root = PACKAGE_DIR.parent
    constants = {
        target.id: ast.literal_eval(node.value)
        for node in ast.parse((root / "setup.py").read_text()).body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id in {"MODULES", "SIDECAR", "PURE_ENV"}
    }
    assert constants == {"MODULES": COMPILED_MODULES, "SIDECAR": SIDECAR, "PURE_ENV": PURE_ENV}
    makefile = (root / "Makefile").read_text()
    assert f"dsh_tools_codegen/,{' '.join(f'{name}.py' for name in COMPILED_MODULES)})" in makefile
