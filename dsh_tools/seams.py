"""The pipeline's seam types: what a stage is handed (a host), what a gate answers, what a call settles as.

``PipelineHost`` is the narrow view of a registry that the stages need.
Stages are plain functions over records; this protocol is their only
dependency on the outside world. ``ToolRegistry`` implements it, and so can a
test double or a user's custom host. A host may also offer ``orphans`` (an
:class:`~dsh_tools.orphans.Orphans`: the grace a cancelled body gets and
where it is kept past it); without one, the default grace applies.

They live below the context and the registry (``dsh_tools.pipeline``
re-exports each where it always named it: ``pipeline/host.py``,
``pipeline/outcomes.py``, ``pipeline/compose.py``, ``pipeline/classify.py``)
because ``ctx.tools``'s contract (``context/ports.py``) names them, and a
floor that names a type must not import the package that uses it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias

from returns.result import Result

from dsh_tools.context.events import EventBus
from dsh_tools.execution import ToolExecution, ToolExecutionResult, ToolExecutionToken
from dsh_tools.record import Record
from dsh_tools.tool_types import RegisteredTool

if TYPE_CHECKING:
    from dsh_tools.approval import ApprovalService
    from dsh_tools.context.context import Agent

__all__ = ["ExecutionMode", "Gate", "Guard", "PipelineHost", "Settled"]

Guard = Callable[[ToolExecution], "str | None"]
"""A monotonic, synchronous veto: a returned ``str`` is a final denial reason."""

ExecutionMode: TypeAlias = Literal["parallel", "exclusive"]
"""How a call may run beside others in a batch: overlapping them, or alone."""


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


class Settled(Record):
    """A call that has its final result: the failure track of the gates.

    Early exits (invalid input, a denial, a failed listener) carry the
    execution with them, because ``tools/result`` observers are told about
    *every* call, including the ones that never reached a tool.
    """

    execution: ToolExecution
    result: ToolExecutionResult


Gate: TypeAlias = Callable[[PipelineHost, ToolExecution], Awaitable[Result[ToolExecution, Settled]]]
"""A stage that lets the call through (``Success``) or settles it (``Failure``)."""
