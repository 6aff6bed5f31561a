"""OpenAI-style chat completions shapes: tools out, tool calls in, tool messages out.

The registry is API-neutral; a chat loop needs three conversions, kept here so
every loop (and the ``dsh-tools schemas --format openai`` command) agrees:

* :func:`openai_tools`: assembled ``ToolSchema``s → the ``tools`` request field;
* :func:`tool_call_inputs`: an assistant message's ``tool_calls`` →
  ``ToolExecutionInput``s (arguments arrive as a JSON *string*; a string that
  does not parse is passed on as the string itself, so the tool's validation
  answers the model with a correctable error instead of the loop crashing);
* :func:`tool_message`: a ``ToolExecutionResult`` → the ``role: tool`` message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from dsh_tools.execution import ToolExecutionInput, ToolExecutionResult
from dsh_tools.json_values import thaw_json
from dsh_tools.schema import ToolSchema

if TYPE_CHECKING:
    from dsh_tools.host.context import Agent

__all__ = ["openai_tool", "openai_tools", "tool_call_inputs", "tool_message"]


def openai_tool(schema: ToolSchema) -> dict[str, Any]:
    """``{"type": "function", "function": {name, description, parameters}}``."""
    return {
        "type": "function",
        "function": {
            "name": schema.name,
            "description": schema.description,
            "parameters": thaw_json(schema.parameters),
        },
    }


def openai_tools(schemas: Iterable[ToolSchema]) -> list[dict[str, Any]]:
    """The ``tools`` field of a chat completions request."""
    return [openai_tool(schema) for schema in schemas]


def tool_call_inputs(message: Mapping[str, Any], agent: Agent | None = None) -> list[ToolExecutionInput]:
    """One ``ToolExecutionInput`` per entry of ``message["tool_calls"]`` (in order)."""
    inputs: list[ToolExecutionInput] = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {} if isinstance(call, Mapping) else {}
        raw = function.get("arguments", "{}") if isinstance(function, Mapping) else "{}"
        try:
            arguments: object = orjson.loads(raw) if isinstance(raw, (str, bytes)) else raw
        except orjson.JSONDecodeError:
            arguments = raw
        call_id = call.get("id") if isinstance(call, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        inputs.append(ToolExecutionInput(call_id, name, arguments, agent=agent))  # type: ignore[arg-type]
    return inputs


def tool_message(result: ToolExecutionResult) -> dict[str, Any]:
    """The ``{"role": "tool", "tool_call_id", "content"}`` message for one result."""
    return {"role": "tool", "tool_call_id": result.call_id, "content": result.text}
