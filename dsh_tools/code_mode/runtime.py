"""Finding the Code Mode runtime a context provides, and checking the language it runs.

The seam itself (:class:`CodeRuntime`, its request and result records) lives
in :mod:`dsh_tools.code_seam`; this module re-exports every name of it, as it
always had them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args

from dsh_tools.context.services import CODE_RUNTIME
from dsh_tools.code_seam import (
    Binding as Binding,
    CodeBindingNamespace as CodeBindingNamespace,
    CodeLanguage as CodeLanguage,
    CodeLogEntry as CodeLogEntry,
    CodeRunFailure as CodeRunFailure,
    CodeRunRequest as CodeRunRequest,
    CodeRunResult as CodeRunResult,
    CodeRuntime as CodeRuntime,
    FailureKind as FailureKind,
    LogSource as LogSource,
    MAX_LOOKUP_NAME as MAX_LOOKUP_NAME,
)

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
