"""OpenAI (Chat Completions and Responses): tools out, calls in, results back.

The registry is API-neutral; a loop needs three conversions per API, typed
with the OpenAI SDK's own param types so they go straight into
``client.chat.completions.create(...)`` / ``client.responses.create(...)``
under ``mypy --strict`` without a cast:

==========================  ======================================  ==================================
step                        Chat Completions                        Responses
==========================  ======================================  ==================================
tools for the request       :func:`chat_tools`                      :func:`responses_tools`
the model's calls → inputs  :func:`calls_from_chat`                 :func:`calls_from_responses`
results → the next request  :func:`chat_tool_messages`              :func:`responses_outputs`
==========================  ======================================  ==================================

plus :func:`chat_assistant_message`, the assistant reply as the param a chat
loop sends back. Calls come from SDK objects or plain mappings alike. A call
whose arguments cannot be run as sent (not valid JSON, not a JSON object,
cut off by the token limit, an id used twice in one message) still becomes a
``ToolExecutionInput``: its arguments are an :class:`~dsh_tools.UnparsedArguments`
saying why, and executing it settles ``INVALID_ARGS`` with that text, before
policy, so the model is told exactly what it got wrong and observers still
see the call. Needs the ``openai`` extra (``pip install 'dsh-tools[openai]'``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from dsh_tools.adapters._strict import drop_strict_nulls
from dsh_tools.adapters._wire import (
    ProviderCall,
    data_url,
    decode_arguments,
    execution_inputs,
    image_of,
    items_of,
    read,
    require_sdk,
    text_of,
    truncated,
)
from dsh_tools.adapters.tool_params import chat_tools, responses_tools
from dsh_tools.content import ContentBlock
from dsh_tools.execution import ToolExecutionInput, ToolExecutionResult, UnparsedArguments
from dsh_tools.tool_types import ToolSchema

require_sdk("openai", "openai", "dsh_tools.adapters.openai")

if TYPE_CHECKING:
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionContentPartParam,
        ChatCompletionMessage,
        ChatCompletionMessageFunctionToolCallParam,
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )
    from openai.types.chat.chat_completion import Choice
    from openai.types.responses import (
        EasyInputMessageParam,
        ResponseInputContentParam,
        ResponseInputItemParam,
        ResponseOutputItem,
    )
    from openai.types.responses.response_function_call_output_item_param import (
        ResponseFunctionCallOutputItemParam,
    )
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    from dsh_tools.context.context import Agent

__all__ = [
    "calls_from_chat",
    "calls_from_responses",
    "chat_assistant_message",
    "chat_tool_messages",
    "chat_tools",
    "responses_outputs",
    "responses_tools",
]


# -- tools out: written by dsh_tools.adapters.tool_params (no SDK needed) ----


# -- calls in ----------------------------------------------------------------


def calls_from_chat(
    message: ChatCompletionMessage | Choice | Mapping[str, object],
    *,
    agent: Agent | None = None,
    strict_schemas: Iterable[ToolSchema] | None = None,
) -> list[ToolExecutionInput]:
    """One ``ToolExecutionInput`` per entry of the message's ``tool_calls``, in order.

    ``message`` is the assistant message (``completion.choices[0].message``, or
    a mapping of the same shape), or the ``Choice`` itself, which also tells
    whether the reply was cut off (``finish_reason == "length"``): the last
    call of a cut-off reply is not run. No ``tool_calls`` (an answer, a
    refusal) gives ``[]``. A call without an id raises ``ValueError``: nothing
    could answer it. Every other defect settles that call ``INVALID_ARGS``
    (see the module docstring); an unknown name settles ``UNKNOWN_TOOL``.
    """
    finish = read(message, "finish_reason")
    source: object = message
    if finish is not None or read(message, "message") is not None:
        source = read(message, "message")  # a Choice: its message
    calls = [_chat_call(call) for call in items_of(read(source, "tool_calls"))]
    if finish == "length" and calls:
        calls[-1] = calls[-1]._replace(
            arguments=truncated(calls[-1].arguments, "the reply hit the token limit (finish_reason length)")
        )
    return execution_inputs(_unstrict(calls, strict_schemas), agent, "tool call")


def _chat_call(call: object) -> ProviderCall:
    kind = read(call, "type")
    if kind == "custom" or (kind is not None and kind != "function"):
        custom = read(call, "custom")
        return ProviderCall(
            read(call, "id"),
            read(custom, "name"),
            UnparsedArguments(f"tool calls of type {kind!r} are not supported; call the function tools"),
        )
    function = read(call, "function")
    if function is None:
        return ProviderCall(read(call, "id"), "", UnparsedArguments("the call names no function"))
    return ProviderCall(read(call, "id"), read(function, "name"), decode_arguments(read(function, "arguments")))


def calls_from_responses(
    output_items: Iterable[ResponseOutputItem | Mapping[str, object]],
    *,
    agent: Agent | None = None,
    strict_schemas: Iterable[ToolSchema] | None = None,
) -> list[ToolExecutionInput]:
    """One ``ToolExecutionInput`` per ``function_call`` item of ``response.output``, in order.

    Other items (messages, refusals, reasoning) are skipped. A call whose
    ``status`` is ``"incomplete"`` (the response ran out of output tokens)
    is not run; other defects settle as in :func:`calls_from_chat`. The reply
    to a call is keyed by its ``call_id`` (not the item ``id``).
    """
    calls: list[ProviderCall] = []
    for item in items_of(output_items):
        kind = read(item, "type")
        if kind == "function_call":
            arguments = decode_arguments(read(item, "arguments"))
            if read(item, "status") == "incomplete":
                arguments = truncated(arguments, "the response stopped while this call was written (status incomplete)")
            calls.append(ProviderCall(read(item, "call_id"), read(item, "name"), arguments))
        elif kind == "custom_tool_call":
            problem = UnparsedArguments("custom tool calls are not supported; call the function tools")
            calls.append(ProviderCall(read(item, "call_id"), read(item, "name"), problem))
    return execution_inputs(_unstrict(calls, strict_schemas), agent, "function_call item")


def _unstrict(calls: list[ProviderCall], strict_schemas: Iterable[ToolSchema] | None) -> list[ProviderCall]:
    if strict_schemas is None:
        return calls
    by_name = {schema.name: schema.parameters for schema in strict_schemas}
    out: list[ProviderCall] = []
    for call in calls:
        parameters = by_name.get(call.name) if isinstance(call.name, str) else None
        if parameters is None or isinstance(call.arguments, UnparsedArguments):
            out.append(call)
        else:
            out.append(call._replace(arguments=drop_strict_nulls(call.arguments, parameters)))
    return out


def chat_assistant_message(message: ChatCompletionMessage) -> ChatCompletionAssistantMessageParam:
    """The assistant reply as the message param the next request carries (content, refusal, calls)."""
    reply: ChatCompletionAssistantMessageParam = {"role": "assistant", "content": message.content}
    if message.refusal is not None:
        reply["refusal"] = message.refusal
    calls: list[ChatCompletionMessageFunctionToolCallParam] = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.function.name, "arguments": call.function.arguments},
        }
        for call in message.tool_calls or ()
        if call.type == "function"
    ]
    if calls:
        reply["tool_calls"] = calls
    return reply


# -- results back ------------------------------------------------------------


def _split(content: Iterable[ContentBlock]) -> tuple[list[str], list[tuple[str, str]]]:
    texts: list[str] = []
    images: list[tuple[str, str]] = []
    for block in content:
        image = image_of(block)
        if image is None:
            texts.append(text_of(block))
        else:
            images.append(image)
    return texts, images


def _chat_parts(content: Iterable[ContentBlock]) -> list[ChatCompletionContentPartParam]:
    parts: list[ChatCompletionContentPartParam] = []
    for block in content:
        image = image_of(block)
        if image is None:
            parts.append({"type": "text", "text": text_of(block)})
        else:
            parts.append({"type": "image_url", "image_url": {"url": data_url(*image)}})
    return parts


def chat_tool_messages(results: Iterable[ToolExecutionResult]) -> list[ChatCompletionMessageParam]:
    """One ``role: tool`` message per result (in order), then at most one ``role: user`` message.

    A chat tool message holds text only, so a result's images travel in the
    user message that follows every tool message of the step (introduced by
    the call id, and announced in the tool message), together with the
    ``additional_context`` the post-execute listeners attached: call/result
    adjacency stays intact. Non-text, non-image blocks are sent as their JSON.
    """
    messages: list[ChatCompletionMessageParam] = []
    follow_up: list[ChatCompletionContentPartParam] = []
    for result in results:
        texts, images = _split(result.content)
        text = "\n".join(texts)
        if images:
            note = f"[{len(images)} image(s) of this result follow in the next user message]"
            text = f"{text}\n{note}" if text else note
            follow_up.append({"type": "text", "text": f"Images returned by tool call {result.call_id}:"})
            follow_up.extend({"type": "image_url", "image_url": {"url": data_url(*image)}} for image in images)
        tool_message: ChatCompletionToolMessageParam = {
            "role": "tool",
            "tool_call_id": result.call_id,
            "content": text,
        }
        messages.append(tool_message)
        if result.additional_context is not None:
            follow_up.extend(_chat_parts(result.additional_context.content))
    if follow_up:
        user_message: ChatCompletionUserMessageParam = {"role": "user", "content": follow_up}
        messages.append(user_message)
    return messages


def _responses_parts(content: Iterable[ContentBlock]) -> list[ResponseInputContentParam]:
    parts: list[ResponseInputContentParam] = []
    for block in content:
        image = image_of(block)
        if image is None:
            parts.append({"type": "input_text", "text": text_of(block)})
        else:
            parts.append({"type": "input_image", "image_url": data_url(*image), "detail": "auto"})
    return parts


def _output(content: Iterable[ContentBlock]) -> str | list[ResponseFunctionCallOutputItemParam]:
    blocks = list(content)
    if all(image_of(block) is None for block in blocks):
        return "\n".join(text_of(block) for block in blocks)
    output: list[ResponseFunctionCallOutputItemParam] = []
    for block in blocks:
        image = image_of(block)
        if image is None:
            output.append({"type": "input_text", "text": text_of(block)})
        else:
            output.append({"type": "input_image", "image_url": data_url(*image)})
    return output


def responses_outputs(results: Iterable[ToolExecutionResult]) -> list[ResponseInputItemParam]:
    """One ``function_call_output`` item per result (in order), then the step's context.

    Text-only content is sent as a string; content with images as input
    parts (the Responses API takes images in a call's output). The
    ``additional_context`` of the step follows as one user message item.
    """
    items: list[ResponseInputItemParam] = []
    context: list[ResponseInputContentParam] = []
    for result in results:
        output: FunctionCallOutput = {
            "type": "function_call_output",
            "call_id": result.call_id,
            "output": _output(result.content),
        }
        items.append(output)
        if result.additional_context is not None:
            context.extend(_responses_parts(result.additional_context.content))
    if context:
        note: EasyInputMessageParam = {"type": "message", "role": "user", "content": context}
        items.append(note)
    return items

