"""The readable rendering of a demo transcript, for a person at a terminal.

Numbered steps with a heading and a short explanation, then each call as
``→ tool {args}`` and its outcome as ``← ok`` or ``← error CODE``, with the
text the model reads indented below. Long texts are cut to a few lines: the
point is to see what happened, the ``--json`` transcript keeps everything.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any, Final

import orjson

from dsh_tools.demo.transcript import CallRecord, Step, Transcript

__all__ = ["render_transcript"]

WIDTH: Final = 100
MAX_LINES: Final = 14


def render_transcript(transcript: Transcript) -> str:
    """The whole session as text."""
    out = [
        f"dsh-tools demo: a scripted agent session in mode {transcript.mode!r} (no model is called)",
        f"workspace: {transcript.workspace}",
        f"  files: {', '.join(transcript.files)}",
        f"  tools: {', '.join(transcript.tools)}",
    ]
    for step in transcript.steps:
        out += ["", *_step(step)]
    out += ["", f"Done: {len(transcript.steps)} steps in {transcript.wall_ms} ms."]
    return "\n".join(out) + "\n"


def _step(step: Step) -> list[str]:
    heading = f"== Step {step.number}. {step.title} "
    lines = [heading + "=" * max(3, WIDTH - len(heading))]
    lines += textwrap.wrap(step.explanation, WIDTH)
    if step.note:
        lines += textwrap.wrap(f"(note: {step.note})", WIDTH)
    prefix = "  py| " if step.details.get("language") == "python" else "  ts| "
    for call in step.calls:
        lines += ["", *_call(call, prefix)]
    lines += _details(step.key, step.details)
    return lines


def _call(call: CallRecord, prefix: str = "  ts| ") -> list[str]:
    arguments = _one_line(call.arguments)
    if call.tool == "run_code" and isinstance(call.arguments, Mapping):
        lines = [f"→ {call.tool} [{call.call_id}] with the program:", *_indented(str(call.arguments.get("code")), prefix)]
    else:
        lines = [f"→ {call.tool} {arguments}   [{call.call_id}]"]
    if call.approval is not None:
        lines.append(f"  approver answered: {call.approval}")
    outcome = "ok" if not call.is_error else f"error {call.error_code or '(no error code)'}"
    if call.error_name:
        outcome += f" ({call.error_name})"
    lines.append(f"← {outcome}, is_error={call.is_error}")
    lines += _indented(call.text, "  | ")
    if call.additional_context is not None:
        lines.append(f"  + additional context from {call.context_source}:")
        lines += _indented(call.additional_context, "  + ")
    return lines


def _details(key: str, details: Mapping[str, Any]) -> list[str]:
    if key == "prompt":
        lines = ["", f"wire tools: {', '.join(details['wireTools'])}"]
        lines.append(f"prompt sections: {', '.join(details['sections'])}")
        lines.append("system prompt text:")
        wrapped = [part for line in details["prompt"].splitlines() for part in textwrap.wrap(line, WIDTH - 4) or [""]]
        return lines + _indented("\n".join(wrapped), "  | ", limit=80)
    if key == "approval":
        return ["", *(f"approval asked: {r['tool']} [{r['callId']}] because {r['reason']!r} → {r['answer']}"
                      for r in details["requests"])]
    if key == "dispatch-log" and "events" in details:
        lines = ["", f"{len(details['events'])} tool/code-dispatch events:"]
        for event in details["events"]:
            flag = "isError=true " if event["isError"] else "isError=false"
            summary = " ".join(str(event["resultSummary"]).split())
            lines.append(f"  {event['subCallId']}  {event['name']:<12} {flag}  {_one_line(event['arguments'])}")
            lines.append(f"      summary: {textwrap.shorten(summary, WIDTH - 15)}")
        return lines
    if key == "parallel" and "timeline" in details:
        lines = ["", "dispatch timeline (ms since the step started):"]
        for row in details["timeline"]:
            span = "not dispatched" if row["startMs"] is None else f"{row['startMs']:>6} → {row['endMs']:>6}"
            lines.append(f"  {row['callId']:<8} {row['tool']:<12} {row['mode']:<9} {span}")
        lines.append(
            f"{len(details['timeline'])} calls in {details['wallMs']} ms; one at a time they would take at least "
            f"{details['serialMs']} ms"
        )
        return lines
    if key == "code-mode" and "runMs" in details:
        sandbox = "Monty" if details.get("language") == "python" else "Deno"
        return ["", f"(the {sandbox} run took {details['runMs']} ms)"]
    if key == "paused-program" and "resumed" in details:
        sub = details["subCall"]
        lines = ["", f"parked: approval {details['approvalId']} for {sub['tool']} [{sub['callId']}]",
                 "a human approves it (store.decide), and resume_decided reruns the program:"]
        resumed = details["resumed"]
        lines.append(f"← {resumed['outcome']} [{resumed['callId']}]")
        lines += _indented(resumed["text"], "  | ")
        lines.append("the journal of the run and its calls:")
        lines += [f"  {row['callId']:<16} {row['tool']:<12} {row['outcome']}" for row in details["journal"]]
        return lines
    return []


def _indented(text: str, prefix: str, *, limit: int = MAX_LINES) -> list[str]:
    lines = text.splitlines() or [""]
    shown = [prefix + line for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"{prefix}… ({len(lines) - limit} more lines)")
    return shown


def _one_line(value: object) -> str:
    return orjson.dumps(value).decode()


