"""What one attempt at a tool body did, for a ``tools/execute`` wrapper that may run it again.

A wrapper sees results, not exceptions: the body's error boundary
(:func:`~dsh_tools.pipeline.dispatch.invoke_tool`) has already turned a raise
into an ``is_error`` result. A retry wrapper needs two facts the result does
not carry: *which exception* the body raised (to match ``Retry(on=...)`` by
type), and *whether the body is still running* (a body that ignored its
timeout's cancellation is orphaned, and no retry may overlap it). The wrapper
opens an :class:`Attempt` around each ``next()`` (:func:`watching`); the
error boundary fills it in. It travels in a context variable, which tasks
inherit (the timeout wrapper's body task sees it), and it answers only for
the call that opened it (a nested call's body, which inherits it too, is not
that call).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from dsh_tools.execution import ToolExecution, ToolExecutionToken

__all__ = ["Attempt", "body_attempt", "watching"]


class Attempt:
    """One run of a call's body: the exception it raised, and whether it is still running."""

    __slots__ = ("raised", "running", "token")

    def __init__(self, token: ToolExecutionToken) -> None:
        self.token = token
        self.raised: BaseException | None = None
        self.running = False


_CURRENT: ContextVar[Attempt | None] = ContextVar("dsh_tools_attempt", default=None)


@contextmanager
def watching(execution: ToolExecution) -> Iterator[Attempt]:
    """An :class:`Attempt` that the body's error boundary fills in while the block runs."""
    attempt = Attempt(execution.token)
    reset = _CURRENT.set(attempt)
    try:
        yield attempt
    finally:
        _CURRENT.reset(reset)


def body_attempt(execution: ToolExecution) -> Attempt | None:
    """The attempt watching this call's body, if a wrapper opened one (``None`` for other calls)."""
    attempt = _CURRENT.get()
    return attempt if attempt is not None and attempt.token is execution.token else None
