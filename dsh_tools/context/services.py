"""The typed service keys of the host (``ctx.get(TOOLS)`` and friends)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh_tools.context.keys import ServiceKey
from dsh_tools.context.ports import SYSTEM_PROMPT as SYSTEM_PROMPT, TOOLS as TOOLS

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalService
    from dsh_tools.code_seam import CodeRuntime

__all__ = ["APPROVAL", "CODE_RUNTIME", "SYSTEM_PROMPT", "TOOLS"]

APPROVAL: ServiceKey[ApprovalService] = ServiceKey("approval")
CODE_RUNTIME: ServiceKey[CodeRuntime] = ServiceKey("codeRuntime")
