"""The Code Mode backend for commands that run programs (``demo``, ``run-code``, ``mcp-serve``).

Imported lazily so ``sdk``/``schemas``/``catalog`` never pay for (or depend
on) the Deno backend; a broken backend is a clear ``CliError``, not a traceback.

A program that runs out of memory kills V8, which writes its GC history and a
C stack trace to standard error; the runtime faithfully captures that as the
run's logs. On a terminal that dump buries the one fact that matters, so the
CLI's runtime (:class:`OutOfMemoryInOneLine`) replaces it with one line naming
the limit and the flag that raises it. Library users keep the raw logs.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Final

from dsh_tools.cli.errors import CliError
from dsh_tools.code_mode.runtime import CodeLogEntry, CodeRunFailure, CodeRunRequest, CodeRunResult, CodeRuntime

__all__ = ["OutOfMemoryInOneLine", "code_runtime", "deno_runtime"]


_V8_DUMP: Final = ("<--- Last few GCs", "Fatal JavaScript out of memory", "JavaScript heap out of memory")
_RSS_KILL: Final = "its memory exceeded"


def deno_runtime(**budgets: int) -> CodeRuntime:
    """A fresh ``DenoCodeRuntime(**budgets)`` whose out-of-memory ends read as one line (the caller disposes it)."""
    try:
        module = importlib.import_module("dsh_tools.code_mode.deno")
        runtime: CodeRuntime = module.DenoCodeRuntime(**budgets)
        heap_mb = budgets.get("max_heap_mb", inspect.signature(module.DenoCodeRuntime).parameters["max_heap_mb"].default)
    except ValueError as error:  # a budget the runtime refuses
        raise CliError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any backend failure becomes a usage-level error
        raise CliError(f"the Deno code runtime is not available: {type(error).__name__}: {error}") from None
    return OutOfMemoryInOneLine(runtime, heap_mb)


class OutOfMemoryInOneLine:
    """A ``CodeRuntime`` that forwards to another and rewrites an out-of-memory end as one line."""

    def __init__(self, inner: CodeRuntime, heap_mb: int) -> None:
        self._inner = inner
        self._heap_mb = heap_mb

    @property
    def language(self) -> str:
        return self._inner.language

    @property
    def isolation(self) -> str:
        return self._inner.isolation

    async def run(self, request: CodeRunRequest, /) -> CodeRunResult:
        result = await self._inner.run(request)
        error = result.error
        if error is None or error.kind != "worker-exit":
            return result
        dump = next((i for i, entry in enumerate(result.logs) if _starts_dump(entry)), None)
        if dump is None and _RSS_KILL not in error.message:
            return result  # a crash that is not about memory keeps everything
        kept = [entry for i, entry in enumerate(result.logs) if dump is None or i < dump or entry.source != "stderr"]
        while kept and kept[-1].source == "stderr" and not kept[-1].text.strip():
            kept.pop()  # the blank lines V8 writes before its dump
        message = (
            f"out of memory: the program needed more than its {self._heap_mb} MB heap "
            "(run-code --memory-mb MB raises the limit)"
        )
        return CodeRunResult(logs=kept, value=result.value, error=CodeRunFailure(kind="worker-exit", message=message))

    async def dispose(self) -> None:
        await self._inner.dispose()


def _starts_dump(entry: CodeLogEntry) -> bool:
    return entry.source == "stderr" and any(marker in entry.text for marker in _V8_DUMP)


def code_runtime(language: str, **budgets: int) -> CodeRuntime:
    """A fresh runtime for ``language`` with ``budgets``: ``MontyCodeRuntime`` for Python, else Deno's."""
    if language != "python":
        return deno_runtime(**budgets)
    try:
        module = importlib.import_module("dsh_tools.code_mode.monty")
        importlib.import_module("pydantic_monty")
        runtime: CodeRuntime = module.MontyCodeRuntime(**budgets)
    except ValueError as error:  # a budget the runtime refuses
        raise CliError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any backend failure becomes a usage-level error
        raise CliError(
            f"the Python code runtime is not available (pip install 'dsh-tools[python]'): {type(error).__name__}: {error}"
        ) from None
    return runtime
