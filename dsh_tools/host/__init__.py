"""The plugin host: contexts, agents, services, events, session logs."""

from dsh_tools.host.context import Agent, Context, ContextBound, ScopeKey, ServiceKey, scope_of
from dsh_tools.host.events import EventBus
from dsh_tools.host.services import APPROVAL, CODE_RUNTIME, SYSTEM_PROMPT, TOOLS
from dsh_tools.host.session import SessionLog

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
    "scope_of",
]
