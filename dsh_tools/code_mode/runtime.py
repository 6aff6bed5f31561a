"""The code-execution seam: what a Code Mode backend must provide.

The registry only ever talks to a :class:`CodeRuntime`. A backend receives the
program and one namespace of async bindings per global (``tools``), runs the
program as the body of an async function, and resolves with a
:class:`CodeRunResult` for every program outcome: a thrown error, a timeout, an
abort or a dead worker are *results* with ``error`` set, never exceptions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, get_args

from dsh_tools.context.services import CODE_RUNTIME
from dsh_tools.json_values import JsonValue
from dsh_tools.record import Record
from dsh_tools.signals import AbortSignal

if TYPE_CHECKING:
    from dsh_tools.context.context import Context

__all__ = [
    "Binding",
    "CodeBindingNamespace",
    "CodeLanguage",
    "CodeLogEntry",
    "CodeRunFailure",
    "CodeRunRequest",
    "CodeRunResult",
    "CodeRuntime",
    "FailureKind",
    "LogSource",
    "MAX_LOOKUP_NAME",
    "check_choice",
    "code_runtime",
    "language_label",
    "language_of",
]

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


def code_runtime(ctx: Context, language: str = "typescript") -> CodeRuntime | str:
    """The ``CODE_RUNTIME`` Code Mode can use for ``language``, or the reason there is none (one
    check, three callers: prompt assembly refuses early, ``run_code`` and resuming at call time)."""
    runtime = ctx.get(CODE_RUNTIME)
    if runtime is None:
        shipped = "MontyCodeRuntime()" if language == "python" else "DenoCodeRuntime()"
        return f"no CODE_RUNTIME is provided; provide one with ctx.provide(CODE_RUNTIME, {shipped})"
    actual = getattr(runtime, "language", None)
    if actual != language:
        return (
            f"the provided CODE_RUNTIME runs {actual!r}, not {language!r} (the registry's code_language: "
            "set it with boot(code_language=...) or ToolRegistry(ctx, code_language=...))"
        )
    return runtime


def check_choice(keyword: str, value: object, choices: Any) -> None:
    """``ValueError`` unless ``value`` is one of the ``Literal`` type ``choices`` (Code Mode's keywords)."""
    allowed = get_args(choices)
    if value not in allowed:
        raise ValueError(f"{keyword} must be one of {', '.join(allowed)}; got {value!r}")


def language_of(runtime: CodeRuntime | None, language: CodeLanguage | None) -> CodeLanguage:
    """``boot``'s ``code_language``: the one given, else the runtime's, else TypeScript; a mismatch fails at boot."""
    actual = getattr(runtime, "language", None)
    if language is None:
        return "python" if actual == "python" else "typescript"
    check_choice("code_language", language, CodeLanguage)
    if runtime is not None and actual != language:
        raise ValueError(f"code_language is {language!r} but the code runtime runs {actual!r}")
    return language


def language_label(language: str) -> str:
    """``"TypeScript"`` or ``"Python"``: the language as error messages name it."""
    return "Python" if language == "python" else "TypeScript"
