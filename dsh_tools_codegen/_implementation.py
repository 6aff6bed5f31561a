"""Which implementation of the renderer runs: mypyc-compiled or pure Python.

The build (``setup.py``) compiles :data:`COMPILED_MODULES` with mypyc when it
can; the compiled extensions sit next to their ``.py`` sources and Python's
import system prefers them. They are used only when they were built from the
sources on disk: the build records each source's SHA-256 in
:data:`SIDECAR`, and if any digest differs (an editable install edited after
its build), a source is missing, or ``DSH_TOOLS_PURE_PYTHON`` is set, the
sources are loaded instead, before anything else in the package imports them.
Stale native code therefore never runs, and the pure path can be exercised
on a machine that has the compiled one.

Two more cases fall back rather than fail: extensions that cannot be
imported (a damaged build) give way to the sources, and an install without
sources runs its extensions unchecked, as there is nothing else to run.

Both give the same text; the compiled one renders a cold SDK two to three
times as fast. :data:`IMPLEMENTATION` says which one was chosen.

Compiled code checks every declared type at run time (a tuple where the
source says ``list[str]`` raises ``TypeError``), so these modules annotate
what a value is, never what it is pretended to be: ``cast`` to
``Sequence[str]``, not a ``list`` it may not be. ``make test`` runs
``tests/codegen`` on both builds to hold them to the same text.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final, Literal

import orjson

__all__ = ["COMPILED_MODULES", "IMPLEMENTATION", "PURE_ENV", "SIDECAR", "choose"]

COMPILED_MODULES: Final = ("_text", "_read", "_schema", "_sdk", "_pytypes", "_python", "_catalog")
"""The modules ``setup.py`` compiles, in dependency order."""
SIDECAR: Final = "_compiled_sources.json"
"""Written by the build next to the extensions: ``{"<module>.py": sha256}``."""
PURE_ENV: Final = "DSH_TOOLS_PURE_PYTHON"
"""Set (non-empty) to run the pure-Python sources even when compiled ones exist."""

Implementation = Literal["compiled", "pure"]


def choose(directory: Path, environ: Mapping[str, str]) -> tuple[Implementation, bool]:
    """``(implementation, sources must be loaded explicitly)`` for ``directory``.

    The second item is true when compiled extensions are present but must
    not run (stale, or pure Python requested), so the import system's
    preference for them has to be overridden.
    """
    built = [name for name in COMPILED_MODULES if _extension(directory, name) is not None]
    if not built:
        return ("pure", False)
    if not _has_sources(directory):
        return ("compiled", False)  # no sources to check against or fall back to
    if environ.get(PURE_ENV) or len(built) != len(COMPILED_MODULES) or not _fresh(directory):
        return ("pure", True)
    return ("compiled", False)


def _has_sources(directory: Path) -> bool:
    return all((directory / f"{name}.py").exists() for name in COMPILED_MODULES)


def _extension(directory: Path, name: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = directory / f"{name}{suffix}"
        if path.exists():
            return path
    return None


def _fresh(directory: Path) -> bool:
    """Whether the recorded digests match every compiled module's source."""
    try:
        recorded = orjson.loads((directory / SIDECAR).read_bytes())
        for name in COMPILED_MODULES:
            source = f"{name}.py"
            if recorded.get(source) != hashlib.sha256((directory / source).read_bytes()).hexdigest():
                return False
        return True
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return False


def _load_sources(package: str, directory: Path) -> None:
    """Import :data:`COMPILED_MODULES` from their ``.py`` files, bypassing
    the extensions, so every later ``from ._x import`` gets the source."""
    import importlib.util  # only on this path: the usual import needs none of it
    parent = sys.modules[package]
    for name in COMPILED_MODULES:
        qualified = f"{package}.{name}"
        spec = importlib.util.spec_from_file_location(qualified, directory / f"{name}.py")
        if spec is None or spec.loader is None:  # pragma: no cover - a .py path always has a loader
            raise ImportError(f"cannot load {qualified} from source")
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module
        spec.loader.exec_module(module)
        setattr(parent, name, module)


def _select() -> Implementation:
    package = __name__.rpartition(".")[0]
    directory = Path(__file__).parent
    implementation, load_sources = choose(directory, os.environ)
    if load_sources:
        _load_sources(package, directory)
    elif implementation == "compiled" and _has_sources(directory):
        try:
            for name in COMPILED_MODULES:
                importlib.import_module(f"{package}.{name}")
        except ImportError:  # a damaged build: forget whatever half-loaded, use the sources
            for loaded in [key for key in sys.modules if key.startswith(f"{package}.") and key != __name__]:
                del sys.modules[loaded]
            _load_sources(package, directory)
            return "pure"
    return implementation


IMPLEMENTATION: Final[Implementation] = _select()
"""``"compiled"`` when the mypyc extensions run, else ``"pure"``."""
