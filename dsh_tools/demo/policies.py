"""The demo's policy plugins: a workspace gate, an output redactor, a scripted approver.

Each is an ordinary listener or service a real deployment could mount, and
each shows one seam of the pipeline:

* :func:`workspace_gate` (``tools/pre-execute``) denies paths outside the
  workspace and ``secrets.txt`` outright, and asks for approval before
  ``write_file`` changes anything;
* :func:`redact_tokens` (``tools/post-execute``) replaces API tokens in
  successful output and tells the model why with ``additional_context``;
* :class:`ScriptedApprover` (``APPROVAL``) answers each ask from a script,
  standing in for the human an interactive harness would prompt.

:func:`install_policies` mounts the first two, for the demo session and for
the demo tools' ``register(ctx)`` (so ``dsh-tools mcp-serve dsh_tools.demo.tools``
asks before ``write_file``, through the MCP client).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

from dsh_tools.approval import ApprovalOutcome, ApprovalRequest
from dsh_tools.content import text_block
from dsh_tools.decisions import Accept, Ask, Deny, PostToolDecision, PreToolDecision
from dsh_tools.execution import HookContext, PluginSource, ToolExecution, ToolExecutionResult
from dsh_tools.hooks import PostNext, PreExecuteListener, PreNext
from dsh_tools.context.context import Context

__all__ = [
    "REDACTED",
    "REDACTOR",
    "TOKEN_PATTERN",
    "ScriptedApprover",
    "install_policies",
    "redact_tokens",
    "workspace_gate",
]

TOKEN_PATTERN: Final = re.compile(r"\bsk-[A-Za-z0-9-]{8,}")
REDACTED: Final = "[REDACTED]"
REDACTOR: Final = "demo-redactor"
SECRET_FILES: Final = frozenset({"secrets.txt"})
NEEDS_APPROVAL: Final = frozenset({"write_file"})


def workspace_gate(root: Path) -> PreExecuteListener:
    """A pre-execute listener confining ``path`` arguments to ``root``."""
    base = root.resolve()

    async def gate(execution: ToolExecution, next: PreNext) -> PreToolDecision:  # noqa: A002
        arguments = execution.arguments
        path = arguments.get("path") if isinstance(arguments, Mapping) else None
        if isinstance(path, str):
            target = (base / path).resolve()
            if target != base and not target.is_relative_to(base):
                return Deny(f'{execution.name}: "{path}" is outside the workspace')
            if target.name in SECRET_FILES:
                return Deny(f'{execution.name}: "{path}" holds credentials and is off limits to the agent')
            if execution.name in NEEDS_APPROVAL:
                return Ask(f'{execution.name} would change "{path}"')
        return await next()

    return gate


async def redact_tokens(
    execution: ToolExecution, result: ToolExecutionResult, next: PostNext  # noqa: A002
) -> PostToolDecision:
    """Replace API tokens in a successful result, and say so in a ``HookContext``."""
    if result.is_error:
        return await next()
    hits = 0
    content = []
    for block in result.content:
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str):
            text, count = TOKEN_PATTERN.subn(REDACTED, text)
            hits += count
            content.append(text_block(text))
        else:
            content.append(block)
    if not hits:
        return await next()
    note = (
        f"{REDACTOR}: {hits} API token{'s' if hits != 1 else ''} in the output of {execution.name} "
        f"replaced with {REDACTED}. Do not ask for the real value; refer to it by its variable name."
    )
    return Accept(content=content, additional_context=HookContext([text_block(note)], PluginSource(REDACTOR)))


class ScriptedApprover:
    """An ``ApprovalService`` answering from a script; records every question asked."""

    def __init__(self, outcomes: Iterable[ApprovalOutcome]) -> None:
        self._script: deque[ApprovalOutcome] = deque(outcomes)
        self.answers: dict[str, ApprovalOutcome] = {}
        """call id → the answer given."""
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        """The next scripted answer (``"unavailable"`` once the script runs out)."""
        self.requests.append(request)
        outcome: ApprovalOutcome = self._script.popleft() if self._script else "unavailable"
        self.answers[request.call_id] = outcome
        return outcome


def install_policies(ctx: Context, root: Path) -> None:
    """Mount :func:`workspace_gate` for ``root`` and :func:`redact_tokens` through ``ctx`` (tied to its lifetime).

    No approver: whoever hosts the tools answers ``Ask`` (the demo's script, an
    MCP client's elicitation), and with no one to answer the registry denies.
    """
    ctx.on("tools/pre-execute", workspace_gate(root))
    ctx.on("tools/post-execute", redact_tokens)
