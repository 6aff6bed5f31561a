"""The plugin host: contexts, agents, services, events, session logs."""

from dsh_tools.context.context import Agent, Context, ContextBound, ScopeKey, ServiceKey, scope_of
from dsh_tools.context.events import EventBus
from dsh_tools.context.ports import SystemPromptPort, ToolsPort
from dsh_tools.context.services import APPROVAL, CODE_RUNTIME, SYSTEM_PROMPT, TOOLS
from dsh_tools.context.session import SessionLog

__all__ = [
    "APPROVAL",
    "CODE_RUNTIME",
    "SYSTEM_PROMPT",
    "TOOLS",
    "Agent",
    "Context",
    "ContextBound",
    "EventBus",
    "ScopeKey",
    "ServiceKey",
    "SessionLog",
    "SystemPromptPort",
    "ToolsPort",
    "scope_of",
]
