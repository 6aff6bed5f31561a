"""The Code Mode backend for commands that run programs (``demo``, ``run-code``).

Imported lazily so ``sdk``/``schemas``/``catalog`` never pay for (or depend
on) the Deno backend; a broken backend is a clear ``CliError``, not a traceback.
"""

from __future__ import annotations

import importlib

from dsh_tools.cli.errors import CliError
from dsh_tools.code_mode.runtime import CodeRuntime

__all__ = ["code_runtime", "deno_runtime"]


def deno_runtime() -> CodeRuntime:
    """A fresh ``DenoCodeRuntime()`` (the caller disposes it)."""
    try:
        module = importlib.import_module("dsh_tools.code_mode.deno")
        runtime: CodeRuntime = module.DenoCodeRuntime()
    except Exception as error:  # noqa: BLE001 - any backend failure becomes a usage-level error
        raise CliError(f"the Deno code runtime is not available: {type(error).__name__}: {error}") from None
    return runtime


def code_runtime(language: str) -> CodeRuntime:
    """A fresh runtime for ``language``: ``MontyCodeRuntime()`` for Python, else ``DenoCodeRuntime()``."""
    if language != "python":
        return deno_runtime()
    try:
        module = importlib.import_module("dsh_tools.code_mode.monty")
        importlib.import_module("pydantic_monty")
        runtime: CodeRuntime = module.MontyCodeRuntime()
    except Exception as error:  # noqa: BLE001 - any backend failure becomes a usage-level error
        raise CliError(
            f"the Python code runtime is not available (pip install 'dsh-tools[python]'): {type(error).__name__}: {error}"
        ) from None
    return runtime
