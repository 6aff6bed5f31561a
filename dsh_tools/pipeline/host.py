"""``PipelineHost``: the narrow view of a registry that the stages need.

Stages are plain functions over records; this protocol is their only
dependency on the outside world. ``ToolRegistry`` implements it, and so can a
test double or a user's custom host. A host may also offer ``orphans`` (an
:class:`~dsh_tools.pipeline.orphans.Orphans`: the grace a cancelled body
gets and where it is kept past it); without one, the default grace applies.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from dsh_tools.execution import ToolExecution, ToolExecutionToken
from dsh_tools.context.events import EventBus
from dsh_tools.tool_types import RegisteredTool

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalService
    from dsh_tools.context.context import Agent

__all__ = ["Guard", "PipelineHost"]

Guard = Callable[[ToolExecution], "str | None"]
"""A monotonic, synchronous veto: a returned ``str`` is a final denial reason."""


class PipelineHost(Protocol):
    """What the stages read: listeners, tools, guards, approval, tokens, logger."""

    @property
    def events(self) -> EventBus:
        """Listeners by event name and scope."""
        ...

    @property
    def logger(self) -> logging.Logger:
        """Where contained observer failures go."""
        ...

    def resolve(self, name: str, agent: Agent | None) -> RegisteredTool | None:
        """The tool ``agent`` would run under ``name`` (shadowing and restrictions applied)."""
        ...

    def guards_for(self, agent: Agent | None) -> Sequence[Guard]:
        """Global guards, then the agent's, each in registration order."""
        ...

    def approval(self) -> ApprovalService | None:
        """The approval service, looked up at use time."""
        ...

    def mint_token(self) -> ToolExecutionToken:
        """A fresh token this host will later recognise as its own."""
        ...

    def issued(self, token: object) -> bool:
        """Whether ``token`` was minted by this host (forged parents are not)."""
        ...
