"""``boot``: a ready context in one call (system prompt, registry, timeouts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from typing import Literal

from dsh_tools.approval import ApprovalService, DeferringApprovalService
from dsh_tools.code_mode.runtime import CodeLanguage, CodeRuntime, language_of
from dsh_tools.context.context import Context
from dsh_tools.context.services import APPROVAL, CODE_RUNTIME
from dsh_tools.orphans import DEFAULT_GRACE_MS
from dsh_tools.pipeline.batch import DEFAULT_MAX_PARALLEL
from dsh_tools.registry.approvals import DEFAULT_LEASE_SECONDS, DEFAULT_MAX_PARKED
from dsh_tools.code_mode.plugin import Catalog
from dsh_tools.code_mode.search.builtins import DEFAULT_CATALOG_CHARS
from dsh_tools.registry.registry import ToolMode, ToolRegistry
from dsh_tools.call_store import CallStore
from dsh_tools.store.url import open_store
from dsh_tools.system_prompt.service import SystemPrompt
from dsh_tools.retry_policy import RetryPolicy
from dsh_tools.timeout_policy import TimeoutPolicy

__all__ = ["boot"]


def boot(
    mode: ToolMode = "native",
    tool_order: Sequence[str] | None = None,
    timeouts: bool = True,
    *,
    code_runtime: CodeRuntime | None = None,
    code_language: CodeLanguage | None = None,
    max_parallel_sub_calls: int = DEFAULT_MAX_PARALLEL,
    store: CallStore | str | None = None,
    max_parked_per_agent: int = DEFAULT_MAX_PARKED,
    lease_seconds: float = DEFAULT_LEASE_SECONDS,
    cancel_grace_ms: float = DEFAULT_GRACE_MS,
    approval: Literal["defer"] | ApprovalService | None = None,
    catalog: Catalog = "full",
    catalog_chars: int = DEFAULT_CATALOG_CHARS,
    max_inline_bytes: int | None = None,
    queues: Mapping[str, str | None] | None = None,
    approval_ttl_seconds: float | None = None,
) -> Context:
    """A root context with ``SystemPrompt``, ``ToolRegistry``, ``RetryPolicy`` and (by default) ``TimeoutPolicy``.

    ``code_runtime`` is provided as ``CODE_RUNTIME`` when given (Code Mode
    needs one: ``DenoCodeRuntime()`` for TypeScript, ``MontyCodeRuntime()``
    for Python). ``code_language`` (``"typescript"`` or ``"python"``) is what
    programs are written in; it defaults to the runtime's ``language`` (else
    TypeScript), and one that differs from the runtime's is a ``ValueError``.
    ``max_parallel_sub_calls`` bounds how many of a program's concurrency-safe
    binding calls dispatch at once (see ``ToolRegistry``). ``cancel_grace_ms``
    is how long a cancelled call waits for a body that ignores the
    cancellation before orphaning it (``ctx.tools.orphans``).
    ``store`` keeps parked calls and the call journal: a
    :class:`~dsh_tools.store.CallStore`, a URL for
    :func:`~dsh_tools.store.open_store` (``"sqlite:///calls.db"``), or
    ``None`` for a fresh ``MemoryStore``. ``max_parked_per_agent`` caps the
    calls one agent may have waiting for approval; ``lease_seconds`` is how
    long a claim on a parked call outlives its process (see ``docs/durability.md``).
    ``approval="defer"`` provides a :class:`~dsh_tools.DeferringApprovalService`
    (every ``Ask`` parks the call in the store for a human to decide later),
    ``approval=<service>`` provides that service, ``None`` provides none (an
    ``Ask`` is then denied). ``approval_ttl_seconds`` makes a parked call
    expire when nobody decided it in time: the first store operation that
    touches it then settles it ``APPROVAL_EXPIRED`` (see ``docs/durability.md``).
    The store's optional protocols (threads, rules, expiry, spilled results) are checked here.
    ``catalog="search"`` (Code Mode only) declares the tools in the SDK only
    while the whole section stays within ``catalog_chars`` characters, the
    author's ``tool_order`` first, and gives programs ``tools.$search`` and
    ``tools.$describe`` to find the rest (see ``docs/code-mode.md``, "Large catalogs").
    ``max_inline_bytes`` bounds the UTF-8 bytes of result text the model
    reads: a longer text reaches it (and observers, the journal, threads) as
    its head and tail and a locator, its whole kept once in the store for the
    built-in ``read_result`` tool to page through (``docs/writing-tools.md``).
    """
    service = _approval_service(approval)
    language = language_of(code_runtime, code_language)
    if isinstance(store, str):
        store = open_store(store)
    ctx = Context()
    SystemPrompt(ctx, tool_order=tool_order)
    ToolRegistry(
        ctx,
        mode=mode,
        max_parallel_sub_calls=max_parallel_sub_calls,
        store=store,
        max_parked_per_agent=max_parked_per_agent,
        lease_seconds=lease_seconds,
        cancel_grace_ms=cancel_grace_ms,
        code_language=language,
        catalog=catalog,
        catalog_chars=catalog_chars,
        max_inline_bytes=max_inline_bytes,
        queues=queues,
        approval_ttl_seconds=approval_ttl_seconds,
    )
    RetryPolicy(ctx)  # outermost: each attempt gets the timeout afresh
    if timeouts:
        TimeoutPolicy(ctx)
    if code_runtime is not None:
        ctx.provide(CODE_RUNTIME, code_runtime)
    if service is not None:
        ctx.provide(APPROVAL, service)
    return ctx


def _approval_service(approval: object) -> ApprovalService | None:
    """``approval=`` as a service: ``"defer"`` parks every request; anything else must answer ``request``."""
    if approval is None:
        return None
    if isinstance(approval, str):
        if approval != "defer":
            raise ValueError(f'approval must be "defer", an ApprovalService or None, got {approval!r}')
        return DeferringApprovalService()
    if not callable(getattr(approval, "request", None)):
        raise TypeError(f'approval must be "defer", an ApprovalService or None, got {type(approval).__name__}')
    return approval  # type: ignore[return-value]  # it has a request method: the Protocol's one member
