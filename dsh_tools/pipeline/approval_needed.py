"""``needs_approval``: a tool that asks for a human by default, declared on the tool itself.

A tool that moves money or deletes data should not depend on someone
remembering to install an ``Ask`` listener for it. ``needs_approval=True`` (or
a predicate over the call) on the definition makes the pre-execute
waterfall's *default* decision ``Ask``: the answer when no listener decided,
so a listener's ``Deny`` or own ``Ask`` still wins and an explicit ``Allow``
lifts it (MCP elicitation answers that way). Because it lives inside
``run_pre_execute``, every pipeline built from the public stages honours it.

Nobody is asked about a call that could not run anyway: the arguments are
validated first, and invalid ones settle ``INVALID_ARGS``. The predicate is
read only when the default is reached; one that raises, or answers anything
but ``False``, counts as ``True``: a broken predicate fails towards asking.
"""

from __future__ import annotations

import logging

from dsh_tools.awaitables import is_awaitable
from dsh_tools.decisions import Allow, Ask, PreToolDecision
from dsh_tools.errors import ToolArgsError
from dsh_tools.execution import ToolExecution
from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import StageFailure, report_failure
from dsh_tools.tool_types import RegisteredTool

__all__ = ["default_decision", "invalid_arguments"]

_ALLOW = Allow()


def invalid_arguments(tool: RegisteredTool, execution: ToolExecution) -> StageFailure | None:
    """``INVALID_ARGS`` for arguments the tool's own validator refuses (``None``: valid, or no validator)."""
    validate = tool.validate
    if validate is None:
        return None
    try:
        problems: object = validate(execution.arguments)
    except Exception as error:  # noqa: BLE001 - a validator that raises refuses the call
        return StageFailure.raised(ToolArgsError([f"the arguments could not be validated: {type(error).__name__}"]))
    if type(problems) is list and problems:
        return StageFailure.raised(ToolArgsError([str(problem) for problem in problems]))
    return None


async def default_decision(tool: RegisteredTool, execution: ToolExecution, logger: logging.Logger) -> PreToolDecision:
    """``Ask('tool "NAME" needs approval')`` unless the tool's predicate answers exactly ``False``."""
    needs = tool.needs_approval
    if needs is True:
        return Ask(f'tool "{tool.name}" needs approval')
    answer: object = True
    if callable(needs):
        try:
            answer = needs(execution)
            if is_awaitable(answer):
                answer = await answer
        except BaseException as error:  # noqa: BLE001 - a broken predicate asks
            propagate_if_fatal(error)
            report_failure(logger, f'needs_approval of tool "{tool.name}"', needs, error)
            answer = True
    return _ALLOW if answer is False else Ask(f'tool "{tool.name}" needs approval')
