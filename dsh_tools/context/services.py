"""The typed service keys of the host (``ctx.get(TOOLS)`` and friends)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh_tools.context.keys import ServiceKey

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalService
    from dsh_tools.code_seam import CodeRuntime
    from dsh_tools.registry.registry import ToolRegistry
    from dsh_tools.system_prompt.service import SystemPrompt

__all__ = ["APPROVAL", "CODE_RUNTIME", "SYSTEM_PROMPT", "TOOLS"]

TOOLS: ServiceKey[ToolRegistry] = ServiceKey("tools")
SYSTEM_PROMPT: ServiceKey[SystemPrompt] = ServiceKey("systemPrompt")
APPROVAL: ServiceKey[ApprovalService] = ServiceKey("approval")
CODE_RUNTIME: ServiceKey[CodeRuntime] = ServiceKey("codeRuntime")
