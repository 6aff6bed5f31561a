"""A step's answer in each provider's shape, written without the providers' SDKs.

The answer to an assistant turn's tool calls is plain JSON, so writing it
needs nothing from the SDKs; it is written here once and re-exported by
:mod:`dsh_tools.adapters.openai` (``chat_tool_messages``,
``responses_outputs``) and :mod:`dsh_tools.adapters.anthropic`
(``tool_result_message``). A store fills a thread's step from whatever
process settles its last call (the CLI, the inspector, another replica),
where neither SDK need be installed: :func:`render_answer` is what it uses.
The shapes are still typed with the SDKs' own ``TypedDict`` params (imported
for the type checker only), so mypy holds each literal to the SDK's definition.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, Literal

from dsh_tools.adapters._wire import data_url, image_of
from dsh_tools.content import ContentBlock, block_text
from dsh_tools.execution import ToolExecutionResult

if TYPE_CHECKING:
    from anthropic.types import ImageBlockParam, MessageParam, TextBlockParam, ToolResultBlockParam
    from openai.types.chat import (
        ChatCompletionContentPartParam,
        ChatCompletionMessageParam,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )
    from openai.types.responses import EasyInputMessageParam, ResponseInputContentParam, ResponseInputItemParam
    from openai.types.responses.response_function_call_output_item_param import ResponseFunctionCallOutputItemParam
    from openai.types.responses.response_input_item_param import FunctionCallOutput

__all__ = ["PROVIDERS", "Provider", "chat_tool_messages", "render_answer", "responses_outputs", "tool_result_message"]

Provider = Literal["openai-chat", "openai-responses", "anthropic"]
"""The message shapes a thread can hold (taken from its first turn)."""

PROVIDERS: Final[tuple[Provider, ...]] = ("openai-chat", "openai-responses", "anthropic")


def render_answer(provider: str, results: Iterable[ToolExecutionResult]) -> list[object]:
    """The messages that answer one step's calls, in ``provider``'s shape (``ValueError`` for another provider)."""
    if provider == "openai-chat":
        return list(chat_tool_messages(results))
    if provider == "openai-responses":
        return list(responses_outputs(results))
    if provider == "anthropic":
        return [tool_result_message(results)]
    raise ValueError(f"a thread's provider is one of {', '.join(PROVIDERS)}, got {provider!r}")


# -- OpenAI Chat Completions ---------------------------------------------------


def _split(content: Iterable[ContentBlock]) -> tuple[list[str], list[tuple[str, str]]]:
    texts: list[str] = []
    images: list[tuple[str, str]] = []
    for block in content:
        image = image_of(block)
        if image is None:
            texts.append(block_text(block))
        else:
            images.append(image)
    return texts, images


def _chat_parts(content: Iterable[ContentBlock]) -> list[ChatCompletionContentPartParam]:
    parts: list[ChatCompletionContentPartParam] = []
    for block in content:
        image = image_of(block)
        if image is None:
            parts.append({"type": "text", "text": block_text(block)})
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


# -- OpenAI Responses -------------------------------------------------------------


def _responses_parts(content: Iterable[ContentBlock]) -> list[ResponseInputContentParam]:
    parts: list[ResponseInputContentParam] = []
    for block in content:
        image = image_of(block)
        if image is None:
            parts.append({"type": "input_text", "text": block_text(block)})
        else:
            parts.append({"type": "input_image", "image_url": data_url(*image), "detail": "auto"})
    return parts


def _output(content: Iterable[ContentBlock]) -> str | list[ResponseFunctionCallOutputItemParam]:
    blocks = list(content)
    if all(image_of(block) is None for block in blocks):
        return "\n".join(block_text(block) for block in blocks)
    output: list[ResponseFunctionCallOutputItemParam] = []
    for block in blocks:
        image = image_of(block)
        if image is None:
            output.append({"type": "input_text", "text": block_text(block)})
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


# -- Anthropic Messages --------------------------------------------------------------

MediaType = Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
_MEDIA_TYPES: Final[dict[str, MediaType]] = {
    "image/jpeg": "image/jpeg",
    "image/png": "image/png",
    "image/gif": "image/gif",
    "image/webp": "image/webp",
}
"""The image types the Messages API takes inline."""


def _blocks(content: Iterable[ContentBlock]) -> list[TextBlockParam | ImageBlockParam]:
    blocks: list[TextBlockParam | ImageBlockParam] = []
    for block in content:
        image = image_of(block)
        if image is None:
            blocks.append({"type": "text", "text": block_text(block)})
            continue
        data, mime = image
        media_type = _MEDIA_TYPES.get(mime)
        if media_type is None:
            blocks.append(
                {"type": "text", "text": f"[an image of type {mime} was left out: Anthropic takes JPEG, PNG, GIF, WebP]"}
            )
        else:
            blocks.append({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}})
    return blocks


def tool_result_message(results: Iterable[ToolExecutionResult]) -> MessageParam:
    """The ``user`` message answering a step: one ``tool_result`` per result, in order.

    Each carries ``is_error`` and its content as text and image blocks (other
    kinds as their JSON). The ``additional_context`` the post-execute
    listeners attached follows the results in the same message, so every
    ``tool_result`` stays right after its ``tool_use``. ``ValueError`` for no
    results (the API refuses an empty message).
    """
    content: list[ToolResultBlockParam | TextBlockParam | ImageBlockParam] = []
    context: list[TextBlockParam | ImageBlockParam] = []
    for result in results:
        block: ToolResultBlockParam = {
            "type": "tool_result",
            "tool_use_id": result.call_id,
            "content": _blocks(result.content),
            "is_error": result.is_error,
        }
        content.append(block)
        if result.additional_context is not None:
            context.extend(_blocks(result.additional_context.content))
    if not content:
        raise ValueError("tool_result_message needs at least one result")
    content.extend(context)
    return {"role": "user", "content": content}
