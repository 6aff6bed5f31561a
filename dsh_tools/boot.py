"""``boot``: a ready context in one call (system prompt, registry, timeouts)."""

from __future__ import annotations

from collections.abc import Sequence

from dsh_tools.code_mode.runtime import CodeRuntime
from dsh_tools.host.context import Context
from dsh_tools.host.services import CODE_RUNTIME
from dsh_tools.pipeline.orphans import DEFAULT_GRACE_MS
from dsh_tools.pipeline.batch import DEFAULT_MAX_PARALLEL
from dsh_tools.registry.registry import ToolMode, ToolRegistry
from dsh_tools.system_prompt.service import SystemPrompt
from dsh_tools.timeout_policy import TimeoutPolicy

__all__ = ["boot"]


def boot(
    mode: ToolMode = "native",
    tool_order: Sequence[str] | None = None,
    timeouts: bool = True,
    *,
    code_runtime: CodeRuntime | None = None,
    max_parallel_sub_calls: int = DEFAULT_MAX_PARALLEL,
    cancel_grace_ms: float = DEFAULT_GRACE_MS,
) -> Context:
    """A root context with ``SystemPrompt``, ``ToolRegistry`` and (by default) ``TimeoutPolicy``.

    ``code_runtime`` is provided as ``CODE_RUNTIME`` when given (Code Mode
    needs one; ``DenoCodeRuntime()`` is the shipped backend).
    ``max_parallel_sub_calls`` bounds how many of a program's concurrency-safe
    binding calls dispatch at once (see ``ToolRegistry``). ``cancel_grace_ms``
    is how long a cancelled call waits for a body that ignores the
    cancellation before orphaning it (``ctx.tools.orphans``).
    """
    ctx = Context()
    SystemPrompt(ctx, tool_order=tool_order)
    ToolRegistry(ctx, mode=mode, max_parallel_sub_calls=max_parallel_sub_calls, cancel_grace_ms=cancel_grace_ms)
    if timeouts:
        TimeoutPolicy(ctx)
    if code_runtime is not None:
        ctx.provide(CODE_RUNTIME, code_runtime)
    return ctx
