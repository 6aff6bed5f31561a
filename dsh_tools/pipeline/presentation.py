"""The presentation gate: in Code Mode, only ``run_code`` is a direct call.

An agent whose effective mode is ``code`` was shown one wire tool. A direct
call (no ``parent``) naming anything else did not come from that surface, so
it settles as ``UNKNOWN_TOOL`` before policy, with a text that routes the
model back to ``run_code``. Sub-calls of a program carry their ``run_code``
call as ``parent`` and pass; ``both`` and ``native`` keep direct calls.

The gate reads the host's optional ``mode_for(agent)``; a host without
presentation modes (a custom :class:`~dsh_tools.pipeline.PipelineHost`) has
nothing to check.
"""

from __future__ import annotations

from typing import Final

from returns.result import Failure, Result, Success

from dsh_tools.errors import ToolNotFoundError
from dsh_tools.execution import ToolExecution
from dsh_tools.pipeline.compose import STANDARD_GATES, Gate
from dsh_tools.pipeline.host import PipelineHost
from dsh_tools.pipeline.outcomes import Settled, exception_result

__all__ = ["REGISTRY_GATES", "check_presentation", "code_mode_route_back"]

RUN_CODE: Final = "run_code"


def code_mode_route_back(name: str) -> str:
    """The text of a direct call that Code Mode refuses."""
    return f"only `{RUN_CODE}` is callable directly; call `{name}` from inside a run_code program instead"


async def check_presentation(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
    """Refuse a code-mode agent's direct call of anything but ``run_code`` (``UNKNOWN_TOOL``)."""
    if execution.parent is not None or execution.name == RUN_CODE:
        return Success(execution)
    mode_for = getattr(host, "mode_for", None)
    if mode_for is None or mode_for(execution.agent) != "code":
        return Success(execution)
    error = ToolNotFoundError(execution.name, code_mode_route_back(execution.name))
    return Failure(Settled(execution, exception_result(execution.call_id, error)))


REGISTRY_GATES: tuple[Gate, ...] = (check_presentation, *STANDARD_GATES)
"""What ``ToolRegistry.execute`` runs: the presentation gate, then the standard gates."""
