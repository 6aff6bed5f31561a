"""The demo transcript: what each step did, as data (``--json``) and for rendering.

Plain frozen dataclasses with ``to_json()`` in the harness's camelCase, so the
machine-readable transcript reads like the session-log records it explains.
Step ``key`` values are stable identifiers tests and tools can look up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CallRecord", "Step", "Transcript"]


@dataclass(frozen=True)
class CallRecord:
    """One pipeline call: what was asked and what the model would read back."""

    call_id: str
    tool: str
    arguments: Any
    is_error: bool
    text: str
    error_code: str | None = None
    error_name: str | None = None
    additional_context: str | None = None
    context_source: str | None = None
    approval: str | None = None
    """The approver's answer, when the call was put to one."""

    def to_json(self) -> dict[str, Any]:
        return {
            "callId": self.call_id,
            "tool": self.tool,
            "arguments": self.arguments,
            "isError": self.is_error,
            "errorCode": self.error_code,
            "errorName": self.error_name,
            "text": self.text,
            "additionalContext": self.additional_context,
            "contextSource": self.context_source,
            "approval": self.approval,
        }


@dataclass(frozen=True)
class Step:
    """One numbered step of the session; ``details`` carries step-specific JSON data."""

    number: int
    key: str
    title: str
    explanation: str
    calls: tuple[CallRecord, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    note: str | None = None
    skipped: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "key": self.key,
            "title": self.title,
            "explanation": self.explanation,
            "calls": [call.to_json() for call in self.calls],
            "details": dict(self.details),
            "note": self.note,
            "skipped": self.skipped,
        }


@dataclass(frozen=True)
class Transcript:
    """The whole session: mode, workspace, tools, steps, and how long it took."""

    mode: str
    workspace: str
    files: tuple[str, ...]
    tools: tuple[str, ...]
    steps: tuple[Step, ...]
    wall_ms: int

    def step(self, key: str) -> Step:
        """The step with ``key`` (``KeyError`` if the session has none)."""
        for step in self.steps:
            if step.key == key:
                return step
        raise KeyError(key)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "workspace": self.workspace,
            "files": list(self.files),
            "tools": list(self.tools),
            "steps": [step.to_json() for step in self.steps],
            "wallMs": self.wall_ms,
        }
