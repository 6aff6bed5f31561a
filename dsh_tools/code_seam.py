"""The code-execution seam: what a Code Mode backend must provide, and Code Mode's words the registry's API uses.

The registry only ever talks to a :class:`CodeRuntime`. A backend receives the
program and one namespace of async bindings per global (``tools``), runs the
program as the body of an async function, and resolves with a
:class:`CodeRunResult` for every program outcome: a thrown error, a timeout, an
abort or a dead worker are *results* with ``error`` set, never exceptions.

It lives below the context and the registry (``dsh_tools.code_mode.runtime``
re-exports every name, as it always had them) because ``ctx.tools``'s
contract (``context/ports.py``) and the ``CODE_RUNTIME`` key (``context/services.py``) name these
types, and a floor that names a type must not import the package that uses it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Final, Literal, Protocol

from dsh_tools.json_values import JsonValue
from dsh_tools.record import Record
from dsh_tools.signals import AbortSignal

__all__ = [
    "MAX_LOOKUP_NAME",
    "Binding",
    "Catalog",
    "CodeBindingNamespace",
    "CodeLanguage",
    "CodeLogEntry",
    "CodeRunFailure",
    "CodeRunRequest",
    "CodeRunResult",
    "CodeRuntime",
    "FailureKind",
    "LogSource",
    "ToolMode",
]

ToolMode = Literal["native", "code", "both"]
"""How tools are presented to the model: as native tools, through ``run_code``, or both."""
Catalog = Literal["full", "search"]
"""How a Code Mode SDK declares the tools: all of them, or within ``catalog_chars`` with ``$search``/``$describe``."""

Binding = Callable[[JsonValue], Awaitable[JsonValue]]
"""One host function the program can await: JSON in, JSON out (or it raises)."""

CodeLanguage = Literal["typescript", "python"]
"""What Code Mode programs are written in: the runtime's ``language`` and the registry's ``code_language``."""
LogSource = Literal["console", "stdout", "stderr"]
FailureKind = Literal["exception", "timeout", "abort", "worker-exit"]

MAX_LOOKUP_NAME: Final = 1024
"""Characters of a binding name an open namespace's ``lookup`` is asked for; a longer one names no tool
worth a lookup (every runtime refuses it before asking)."""


class CodeBindingNamespace(Record):
    """``global_name.fn(args)`` inside the program calls ``functions[fn](args)``.

    Two optional parts let a namespace serve names it does not list (Code
    Mode's ``catalog="search"``, where thousands of tools could be called but
    only a few are declared): ``lookup(name)`` is asked for a name that
    ``functions`` lacks when the program calls it (TypeScript:
    ``global_name.any_name(args)`` or ``global_name["any name"](args)``;
    Python: ``global_name["any name"](...)``, since a name that is not bound
    is no attribute) and gives its binding, or ``None`` to refuse it as
    unknown; ``aliases`` maps further attribute names to names of
    ``functions`` (Python's ``tools.search_tools`` for ``tools["$search"]``),
    set after the functions' own, so an alias wins an attribute while
    ``global_name["alias"]`` still reaches a function of that name. A runtime
    that ignores both serves the listed functions only.
    """

    _wire_skip = frozenset({"functions", "lookup", "aliases"})
    global_name: str
    functions: Mapping[str, Binding]
    lookup: Callable[[str], Binding | None] | None = None
    aliases: Mapping[str, str] = MappingProxyType({})


class CodeRunRequest(Record):
    """One program to run, with its bindings and an optional abort signal.

    ``seed`` and ``clock`` make a rerun repeat its first run (a program that
    waited for a human is run again from the start): a runtime that honours
    them draws ``Math.random()`` from ``seed`` and answers the program's first
    clock reads (``Date.now()``, ``new Date()``, ``performance.now()``) with
    ``clock``, in order, then the real clock. A runtime may ignore them;
    a rerun that then makes different calls is detected as a divergence.
    """

    _wire_skip = frozenset({"bindings", "signal"})
    program: str
    bindings: Sequence[CodeBindingNamespace]
    signal: AbortSignal | None = None
    seed: int | None = None
    clock: Sequence[float] = ()


class CodeLogEntry(Record):
    """One captured line: a console call (with its level) or raw stdout/stderr bytes."""

    source: LogSource
    text: str
    level: str | None = None


class CodeRunFailure(Record):
    """Why a run did not complete normally."""

    kind: FailureKind
    message: str


class CodeRunResult(Record):
    """Everything a run produced: logs, the completion value, or the failure.

    ``clock`` is what the program's clock reads returned, in order, as far as
    the runtime saw them (a rerun gets them back as ``CodeRunRequest.clock``).
    """

    _json_fields = frozenset({"value"})
    logs: Sequence[CodeLogEntry]
    value: JsonValue | None = None
    error: CodeRunFailure | None = None
    clock: Sequence[float] = ()


class CodeRuntime(Protocol):
    """A sandboxed program runner; ``language`` is ``"typescript"`` or ``"python"``."""

    @property
    def language(self) -> str: ...
    @property
    def isolation(self) -> str: ...
    async def run(self, request: CodeRunRequest, /) -> CodeRunResult: ...
    async def dispose(self) -> None: ...

