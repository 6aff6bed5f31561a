"""``run_code``: the reserved wire tool through which the model sends a program.

Its schema is one required string, ``code``. Its body is the bridge
(:func:`~dsh_tools.code_mode.bridge.run_program`); its presentation is a generic
``execute`` card whose title is the program and whose result shows the logs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.code_mode.bridge import run_program
from dsh_tools.code_mode.runtime import CodeLanguage, language_label
from dsh_tools.content import ToolOutput
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import freeze_json
from dsh_tools.presentation import GenericCallView, GenericResultView, ToolResult
from dsh_tools.tool_types import RegisteredTool

if TYPE_CHECKING:
    from dsh_tools.context.ports import ToolsPort

__all__ = ["RUN_CODE_DESCRIPTION", "RUN_CODE_DESCRIPTION_PYTHON", "make_run_code", "present_run_code_call", "present_run_code_result"]

RUN_CODE_DESCRIPTION: Final = (
    "Run a TypeScript program against the tools SDK described in the system prompt. "
    "The program is the body of an async function: use await, call tools as "
    "`await tools.name({...})`, and console.log or return what you want to see. "
    "Only what it prints or returns comes back."
)

RUN_CODE_DESCRIPTION_PYTHON: Final = (
    "Run a Python program against the tools SDK described in the system prompt. "
    "The program is the body of an async function: use await, call tools as "
    '`await tools.name(key="value")`, and print or return what you want to see. '
    "Only what it prints or returns comes back."
)


def make_run_code(registry: ToolsPort, code_language: CodeLanguage) -> RegisteredTool:
    """The transport snapshot for ``registry`` (its body dispatches through it), described in ``code_language``."""

    async def execute(args: Any, execution: ToolExecution) -> ToolOutput:
        return await run_program(registry, args, execution)

    program = f"The {language_label(code_language)} program (an async function body)."
    return RegisteredTool(
        name=RUN_CODE_NAME,
        description=RUN_CODE_DESCRIPTION_PYTHON if code_language == "python" else RUN_CODE_DESCRIPTION,
        parameters=freeze_json(
            {"type": "object", "properties": {"code": {"type": "string", "description": program}}, "required": ["code"]}
        ).unwrap(),
        execute=execute,
        present_call=present_run_code_call,
        present_result=present_run_code_result,
    )


def present_run_code_call(args: object) -> GenericCallView | None:
    """A generic ``execute`` card titled with the program; ``None`` if ``code`` is not a str."""
    code = args.get("code") if isinstance(args, Mapping) else None
    if type(code) is not str:
        return None
    return GenericCallView(title=code, kind="execute", raw_input=code)


def present_run_code_result(args: object, result: ToolResult) -> GenericResultView | None:
    """The captured logs as one text block (no content when there were none)."""
    meta = result.meta
    logs = meta.get("logs") if isinstance(meta, Mapping) else None
    if not isinstance(logs, (list, tuple)):
        return None
    texts = [entry.get("text") for entry in logs if isinstance(entry, Mapping)]
    if len(texts) != len(logs) or not all(type(text) is str for text in texts):
        return None
    if not texts:
        return GenericResultView()
    return GenericResultView(content=[{"type": "text", "text": "\n".join(texts)}])  # type: ignore[arg-type]
