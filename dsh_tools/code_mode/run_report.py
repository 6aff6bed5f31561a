"""What a Code Mode run reports: a ``tool/code-dispatch`` session event per sub-call, and the run's output.

The bridge (:mod:`.bridge`) schedules, parks and replays a program's calls;
this module words what came of them. A dispatch event keeps small arguments
whole and a preview plus the size of large ones, so the session retains a
bounded amount per call; the output is the program's logs and completion
value as text, or a failure the model can correct from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast

from dsh_tools.code_seam import CodeLogEntry, CodeRunResult
from dsh_tools.content import ToolOutput, text_block
from dsh_tools.errors import CodeRunFailedError
from dsh_tools.execution import HookContext, ToolExecutionResult
from dsh_tools.json_values import JsonValue, dumps
from dsh_tools.json_walk import nests_within_limits

__all__ = [
    "ARGUMENTS_LIMIT", "NO_OUTPUT", "PREVIEW_LIMIT", "SUMMARY_LIMIT", "dispatch_event", "render_run_text", "run_output",
]

SUMMARY_LIMIT: Final = 200
"""A dispatch event's ``resultSummary`` (and an effect line of a replay) keeps this many characters of the text."""
ARGUMENTS_LIMIT: Final = 4096
"""Arguments up to this many bytes of JSON are kept whole in a dispatch event."""
PREVIEW_LIMIT: Final = 1024
"""Larger ones are kept as the first this-many bytes of their JSON text, plus "…"."""

NO_OUTPUT: Final = "(run_code completed with no output)"


def dispatch_event(
    parent_call_id: str, sub_id: str, name: str, args: object, result: ToolExecutionResult
) -> dict[str, JsonValue]:
    """The ``tool/code-dispatch`` event of one recorded sub-call (the session freezes it as it appends it)."""
    text = result.text  # what a content binding resolves to (or any binding rejects with)
    return {
        "parentCallId": parent_call_id,
        "subCallId": sub_id,
        "name": name,
        **_arguments_record(args),
        "isError": result.is_error,
        "resultSummary": summary(text),
    }


def summary(text: str) -> str:
    """``text`` cut at :data:`SUMMARY_LIMIT` characters, plus "…" when cut."""
    return text if len(text) <= SUMMARY_LIMIT else text[:SUMMARY_LIMIT] + "…"



def _arguments_record(args: object) -> dict[str, JsonValue]:
    """What a dispatch event keeps of the arguments: the value itself
    (``arguments``) when it is small and the event holding it is still JSON
    (within MAX_DEPTH), else a preview of its JSON text (``argumentsPreview``)
    and its size (``argumentsBytes``). The log then retains a bounded amount per
    call, and any call the pipeline admitted can be recorded."""
    text = dumps(args)
    if len(text) <= ARGUMENTS_LIMIT and nests_within_limits(args):
        return {"arguments": cast("JsonValue", args)}  # JSON: just checked
    head = text[:PREVIEW_LIMIT].decode("utf-8", "ignore")
    return {"argumentsPreview": head + "…", "argumentsBytes": len(text)}


def render_run_text(logs: Sequence[CodeLogEntry], value: JsonValue | None) -> str:
    """Logs one per line, then the completion value (a str as is, else JSON)."""
    lines = [entry.text for entry in logs]
    if value is not None:
        lines.append(value if isinstance(value, str) else dumps(value).decode())
    return "\n".join(lines) if lines else NO_OUTPUT


def run_output(outcome: CodeRunResult, dispatches: int, images: HookContext | None, resumed: str | None = None) -> ToolOutput:
    """``run_code``'s output: the run's text, its logs and dispatch count as ``meta``, sub-call images as context;
    a failed run raises :class:`~dsh_tools.errors.CodeRunFailedError` carrying its kind, message and logs."""
    logs = [entry.to_json() for entry in outcome.logs]
    if outcome.error is not None:
        captured = "\n".join(entry.text for entry in outcome.logs)
        detail = f"\nlogs:\n{captured}" if captured else ""
        # The model's text already starts "Error: "; a plain Error's own name would repeat it.
        message = outcome.error.message.removeprefix("Error: ")
        raise CodeRunFailedError(f"code run failed ({outcome.error.kind}): {message}{detail}")
    text = render_run_text(outcome.logs, outcome.value)
    if resumed is not None:
        text = f"(resumed after the approval of {resumed})\n{text}"
    return ToolOutput([text_block(text)], {"logs": logs, "dispatches": dispatches}, additional_context=images)
