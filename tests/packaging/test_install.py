"""The user path from a plain install: build the wheel, install it into a fresh
virtual environment, and use it from a directory outside the checkout.

Slow (a wheel build, a venv, the dependencies from the package registries), so
marked ``slow``; ``make test`` runs it (``pytest -m "not slow"`` skips it while
iterating). Every subprocess runs without the caller's ``PYTHONPATH``, so the
installed package answers, never the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

pytestmark = pytest.mark.slow

REPO: Final = Path(__file__).resolve().parents[2]
IGNORED: Final = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".mypy_cache", ".pytest_cache", "*.so"
)
TIMEOUT: Final = 900.0


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a command with a clean environment (no PYTHONPATH, no active venv); fail loudly."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, f"{command}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


class Installed:
    """A fresh venv that has the wheel (and its dependencies) installed; paths to use it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.source = root / "source"  # a copy of the working tree: the build writes nothing into the checkout
        self.venv = root / "venv"
        self.elsewhere = root / "elsewhere"  # a directory outside any checkout
        self.bin = self.venv / "bin"

    def build(self) -> None:
        shutil.copytree(REPO, self.source, ignore=IGNORED)
        self.elsewhere.mkdir()
        run(sys.executable, "-m", "venv", self.venv, cwd=self.root)
        run(self.bin / "python", "-m", "pip", "wheel", "--no-deps", "-w", self.root / "dist", self.source, cwd=self.root)
        (self.wheel,) = (self.root / "dist").glob("dsh_tools-*.whl")
        run(self.bin / "python", "-m", "pip", "install", self.wheel, cwd=self.root)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    env = Installed(tmp_path_factory.mktemp("install"))
    env.build()
    yield env


def test_the_wheel_installs_and_the_commands_work_outside_the_checkout(installed: Installed) -> None:
    run(installed.bin / "python", "-m", "pip", "install", "--no-deps", "--force-reinstall", installed.wheel,
        cwd=installed.root)
    where = run(installed.bin / "python", "-c", "import dsh_tools; print(dsh_tools.__file__)", cwd=installed.elsewhere)
    assert Path(where.stdout.strip()).is_relative_to(installed.venv), "the checkout answered, not the install"
    # the wheel was built on this machine, so it carries the SDK renderer this checkout's install built
    from dsh_tools_codegen._implementation import IMPLEMENTATION

    probe = "from dsh_tools_codegen._implementation import IMPLEMENTATION; print(IMPLEMENTATION)"
    build = run(installed.bin / "python", "-c", probe, cwd=installed.elsewhere)
    assert build.stdout.strip() == IMPLEMENTATION

    help_text = run(installed.bin / "dsh-tools", "--help", cwd=installed.elsewhere).stdout
    assert help_text.startswith("usage: dsh-tools")
    for command in ("demo", "sdk", "schemas", "catalog", "run-code"):
        assert command in help_text

    demo = run(installed.bin / "dsh-tools", "demo", cwd=installed.elsewhere).stdout
    assert demo.startswith("dsh-tools demo: a scripted agent session in mode 'both'")
    assert "== Step 9. " in demo and "Skipped" not in demo  # the Code Mode steps ran, Deno included
    sdk = run(installed.bin / "dsh-tools", "sdk", "dsh_tools.demo.tools", cwd=installed.elsewhere).stdout
    assert "  read_file(args: {\n" in sdk and "  build_status(args: {\n" in sdk
    assert list(installed.elsewhere.iterdir()) == [], "the commands left files behind"


def test_an_editable_install_is_one_mypy_follows(installed: Installed) -> None:
    run(installed.bin / "python", "-m", "pip", "install", "--no-deps", "-e", installed.source, cwd=installed.root)
    project = installed.root / "other-project"
    project.mkdir(exist_ok=True)
    (project / "app.py").write_text(
        "from dsh_tools import Context, boot\n"
        "from dsh_tools.demo.tools import make_tools\n\n"
        "ctx: Context = boot()\n"
        "wrong: int = boot()\n",
        encoding="utf-8",
    )
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-executable",
         str(installed.bin / "python"), "app.py"],
        cwd=project, capture_output=True, text=True, timeout=TIMEOUT, check=False,
        env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
    )
    assert "Cannot find implementation or library stub" not in mypy.stdout, mypy.stdout
    # The one error proves mypy read dsh_tools' real types (an Any would pass silently).
    assert mypy.stdout.splitlines() == [
        'app.py:5: error: Incompatible types in assignment (expression has type "Context", variable has type "int")'
        "  [assignment]",
        "Found 1 error in 1 file (checked 1 source file)",
    ], mypy.stdout
    # And the editable install follows the source tree: a new module is importable at once.
    (installed.source / "dsh_tools" / "_editable_probe.py").write_text("VALUE = 42\n", encoding="utf-8")
    probe = run(installed.bin / "python", "-c", "import dsh_tools._editable_probe as p; print(p.VALUE)",
                cwd=installed.elsewhere)
    assert probe.stdout.strip() == "42"


def test_the_sdist_ships_docs_and_examples_and_the_wheel_does_not(installed: Installed) -> None:
    """README, "Examples": the examples and docs travel with the source, not with the installed package."""
    import tarfile
    import zipfile

    run(installed.bin / "python", "-m", "pip", "install", "setuptools>=77", cwd=installed.root)
    made = run(installed.bin / "python", "-c",
               "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))",
               installed.root / "sdist", cwd=installed.source)
    sdist = installed.root / "sdist" / made.stdout.strip().splitlines()[-1]
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    expected = {f"examples/{path.name}" for path in (REPO / "examples").glob("*.py")}
    expected |= {f"docs/{path.name}" for path in (REPO / "docs").glob("*.md")}
    assert expected <= names, sorted(expected - names)
    with zipfile.ZipFile(installed.wheel) as wheel:
        assert not [name for name in wheel.namelist() if name.startswith(("examples/", "docs/"))]
