"""Build hook: compile the SDK renderer's hot modules with mypyc, if possible.

Everything is declared in ``pyproject.toml``; this file only adds the
optional native build. The modules named in ``COMPILED_MODULES`` (see
``dsh_tools_codegen/_implementation.py``) are strictly typed Python, and
mypyc (part of mypy) compiles that same source to C extensions, which makes a
cold ``render_tools_sdk`` two to three times as fast. The build is best-effort:
without mypyc or a C compiler, or with ``DSH_TOOLS_PURE_PYTHON=1`` set, the
package installs as pure Python and behaves identically, only slower.

Next to the extensions the build writes ``_compiled_sources.json``, the
SHA-256 of each compiled source. At import the package compares it with the
sources on disk and ignores extensions built from other sources (an editable
install whose ``.py`` files were edited after the build), so stale native
code can never run.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

PACKAGE = "dsh_tools_codegen"
# The same names as dsh_tools_codegen/_implementation.py (this file cannot
# import the package it builds; a test keeps the two in step).
MODULES = ("_text", "_read", "_schema", "_sdk", "_pytypes", "_python", "_catalog")
SIDECAR = "_compiled_sources.json"
PURE_ENV = "DSH_TOOLS_PURE_PYTHON"


def _digests(directory: Path) -> dict[str, str]:
    return {f"{name}.py": hashlib.sha256((directory / f"{name}.py").read_bytes()).hexdigest() for name in MODULES}


class OptionalMypycBuild(build_ext):
    """``build_ext`` that compiles with mypyc, or leaves pure Python on any failure."""

    def finalize_options(self) -> None:
        # without extensions setuptools would skip build_ext, and run() must
        # still clear the outputs of an earlier compiled build
        self.distribution.ext_modules = _mypyc_extensions() or [_PLACEHOLDER]
        super().finalize_options()

    def run(self) -> None:
        if _DIGESTS is None:  # not compiling: a pure build must not ship (or keep) an earlier compiled one
            self._remove_outputs()
            self.extensions = []
            return
        try:
            super().run()
            # next to the extensions this build wrote (in place for an editable
            # install, else in the build tree), never beside older ones
            built = Path(self.get_ext_fullpath(f"{PACKAGE}._sdk")).parent
            (built / SIDECAR).write_text(json.dumps(_DIGESTS, indent=2, sort_keys=True) + "\n")
        except Exception as error:  # no compiler, no headers, ...
            self._remove_outputs()
            self.extensions = []
            self.warn(f"mypyc build failed, installing pure Python ({type(error).__name__}: {error})")

    def _roots(self) -> tuple[Path, Path]:
        """Where outputs land: the build tree (wheels) and the source tree (editable installs)."""
        return (Path(self.build_lib), Path("."))

    def _remove_outputs(self) -> None:
        """All or nothing: compiled modules import each other's native parts."""
        for root in self._roots():
            for module in MODULES:
                for name in (module, f"{module}__mypyc"):
                    (root / self.get_ext_filename(f"{PACKAGE}.{name}")).unlink(missing_ok=True)
            (root / PACKAGE / SIDECAR).unlink(missing_ok=True)


_EXTENSIONS: list[Extension] | None = None
_DIGESTS: dict[str, str] | None = None


def _mypyc_extensions() -> list[Extension]:
    """mypyc's extensions for ``MODULES`` (once per process), or ``[]``.

    The sources' digests are taken before compiling, so a source edited
    during the build is never recorded as what the extensions were built from.
    """
    global _EXTENSIONS, _DIGESTS
    if _EXTENSIONS is None:
        _EXTENSIONS = []
        if os.environ.get(PURE_ENV):
            print(f"{PURE_ENV} is set: installing pure Python")
        else:
            try:
                from mypyc.build import mypycify

                _DIGESTS = _digests(Path(PACKAGE))
                sources = [f"{PACKAGE}/{name}.py" for name in MODULES]
                # orjson and pyrsistent are build requirements too, so mypyc sees
                # the same types as `make typecheck` and compiles their calls precisely
                _EXTENSIONS = mypycify(["--ignore-missing-imports", *sources], opt_level="3", separate=True)
            except (Exception, SystemExit) as error:  # mypyc exits on a type error
                _DIGESTS = None
                print(f"warning: mypyc unavailable, installing pure Python ({type(error).__name__}: {error})")
    return _EXTENSIONS


# A placeholder so setuptools runs build_ext (and tags the wheel per
# platform); OptionalMypycBuild swaps in mypyc's extensions, or builds nothing.
_PLACEHOLDER = Extension(f"{PACKAGE}._placeholder", sources=[])
setup(ext_modules=[_PLACEHOLDER], cmdclass={"build_ext": OptionalMypycBuild})
