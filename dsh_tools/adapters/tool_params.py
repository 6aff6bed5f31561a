"""The ``tools`` field of an OpenAI or Anthropic request, written without their SDKs.

A request's tool list is plain JSON, so writing it needs nothing from the
provider's SDK: ``dsh-tools schemas --format openai|anthropic`` prints it on a
machine where neither SDK is installed. The shapes are still typed with the
SDKs' own ``TypedDict`` params (imported for the type checker only, so mypy
holds each literal below to the SDK's definition), and
:mod:`dsh_tools.adapters.openai` and :mod:`dsh_tools.adapters.anthropic`
re-export these functions: there is one writer of each shape.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from dsh_tools.adapters._strict import strict_parameters
from dsh_tools.adapters._wire import checked_name, parameters_of
from dsh_tools.tool_types import ToolSchema

if TYPE_CHECKING:
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.responses import FunctionToolParam
    from openai.types.shared_params import FunctionDefinition

__all__ = ["anthropic_tools", "chat_tools", "responses_tools"]


def _parameters(schema: ToolSchema, strict: bool) -> dict[str, object]:
    parameters = parameters_of(schema)
    return strict_parameters(parameters, schema.name) if strict else parameters


def chat_tools(schemas: Iterable[ToolSchema], *, strict: bool = False) -> list[ChatCompletionToolParam]:
    """The ``tools`` field of a chat completions request, in the order given.

    ``strict=True`` emits OpenAI's strict-mode schemas (every property
    required, optional ones nullable, ``additionalProperties: false``,
    ``default`` dropped) with ``"strict": true``; a schema strict mode cannot
    express raises ``ValueError`` naming the tool and the place. Pass the same
    schemas to ``calls_from_chat`` as ``strict_schemas`` so the nulls strict
    mode makes the model send for omitted fields are dropped again. A tool name
    OpenAI rejects raises ``ValueError`` naming it.
    """
    tools: list[ChatCompletionToolParam] = []
    for schema in schemas:
        function: FunctionDefinition = {
            "name": checked_name(schema.name),
            "description": schema.description,
            "parameters": _parameters(schema, strict),
        }
        if strict:
            function["strict"] = True
        tools.append({"type": "function", "function": function})
    return tools


def responses_tools(schemas: Iterable[ToolSchema], *, strict: bool = False) -> list[FunctionToolParam]:
    """The ``tools`` field of a Responses request (same rules as :func:`chat_tools`).

    ``strict`` is always written out: the Responses API treats an absent
    ``strict`` as ``true``, which would reject an ordinary schema.
    """
    return [
        {
            "type": "function",
            "name": checked_name(schema.name),
            "description": schema.description,
            "parameters": _parameters(schema, strict),
            "strict": strict,
        }
        for schema in schemas
    ]


def anthropic_tools(schemas: Iterable[ToolSchema]) -> list[ToolParam]:
    """The ``tools`` field of a Messages request; a name Anthropic rejects raises ``ValueError``."""
    return [
        {
            "name": checked_name(schema.name),
            "description": schema.description,
            "input_schema": parameters_of(schema),
        }
        for schema in schemas
    ]
