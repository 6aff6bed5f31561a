"""System-prompt assembly: sections + tool schemas, a listener waterfall, protections.

See ``docs/prompt-assembly.md`` for the rules. The service is
:class:`SystemPrompt`; everything else here is an immutable record or a pure
function.
"""

from dsh_tools.system_prompt.records import (
    TOOL_ORDER_REST,
    AssembleContext,
    AssembledSection,
    Preflight,
    PromptAssembly,
    PromptSection,
    SectionText,
    ToolProvider,
    ToolProviderResult,
)
from dsh_tools.system_prompt.render import render_prompt
from dsh_tools.system_prompt.service import ASSEMBLE_EVENT, SystemPrompt

__all__ = [
    "ASSEMBLE_EVENT",
    "TOOL_ORDER_REST",
    "AssembleContext",
    "AssembledSection",
    "Preflight",
    "PromptAssembly",
    "PromptSection",
    "SectionText",
    "SystemPrompt",
    "ToolProvider",
    "ToolProviderResult",
    "render_prompt",
]
