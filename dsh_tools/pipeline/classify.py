"""Classification: may this call's dispatch overlap its siblings' (``parallel``) or not (``exclusive``)?

A definition opts in with ``is_concurrency_safe(args)``. The answer is read
from the definition the calling agent resolves, with the call's frozen
arguments, and only an exact ``True`` means parallel: no classifier, an
unknown tool, the Code Mode transport, a classifier that raises or answers
anything else (``1``, ``"yes"``, a coroutine) all mean exclusive. Being wrong
in the safe direction costs time; being wrong the other way corrupts state.
"""

from __future__ import annotations

from types import CoroutineType

from dsh_tools.execution import ToolExecution, ToolExecutionInput
from dsh_tools.json_values import JsonValue, freeze_json
from dsh_tools.pipeline.admit import identity_problem
from dsh_tools.pipeline.cancellation import propagate_if_fatal
from dsh_tools.pipeline.outcomes import report_failure
from dsh_tools.seams import ExecutionMode as ExecutionMode, PipelineHost

__all__ = ["ExecutionMode", "classify", "classify_input"]


def _mode(host: PipelineHost, name: str, agent: object, arguments: JsonValue) -> ExecutionMode:
    tool = host.resolve(name, agent)  # type: ignore[arg-type]
    classifier = tool.is_concurrency_safe if tool is not None else None
    if classifier is None:
        return "exclusive"
    try:
        verdict: object = classifier(arguments)
    except BaseException as error:  # noqa: BLE001 - a broken classifier means exclusive
        propagate_if_fatal(error)
        report_failure(host.logger, f'is_concurrency_safe of tool "{name}"', classifier, error)
        return "exclusive"
    if type(verdict) is CoroutineType:  # classifiers are synchronous; do not leak an un-awaited coroutine
        verdict.close()
    return "parallel" if verdict is True else "exclusive"


def classify(host: PipelineHost, execution: ToolExecution) -> ExecutionMode:
    """The mode of an admitted call (its arguments are already frozen)."""
    return _mode(host, execution.name, execution.agent, execution.arguments)


def classify_input(host: PipelineHost, call: object) -> ExecutionMode:
    """The mode of a caller's input, judged as admission would: anything invalid is exclusive."""
    if type(call) is not ToolExecutionInput or identity_problem(call) is not None:
        return "exclusive"
    arguments = freeze_json(call.arguments)
    return arguments.map(lambda frozen: _mode(host, call.name, call.agent, frozen)).value_or("exclusive")
