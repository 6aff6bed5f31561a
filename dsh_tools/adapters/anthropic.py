"""Anthropic (Messages API): tools out, ``tool_use`` blocks in, one ``tool_result`` message back.

Typed with the Anthropic SDK's own param types, so the output goes straight
into ``client.messages.create(...)`` under ``mypy --strict``:

* :func:`anthropic_tools`: ``ToolSchema``\\ s → the request's ``tools``;
* :func:`calls_from_message`: the reply's ``tool_use`` blocks → ``ToolExecutionInput``\\ s;
* :func:`tool_result_message`: the step's results → the one ``user`` message
  that answers every ``tool_use`` (``is_error``, images, then the
  post-execute listeners' ``additional_context``).

Calls that cannot be run as sent (input that is not an object or exceeds the
JSON boundary's limits, the last call of a reply cut off by ``max_tokens``,
an id used twice, a refusal) settle ``INVALID_ARGS`` saying why, through
:class:`~dsh_tools.UnparsedArguments`, so every ``tool_use`` still gets its
``tool_result``. Needs the ``anthropic`` extra (``pip install 'dsh-tools[anthropic]'``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Final, Literal

from dsh_tools.adapters._wire import (
    ProviderCall,
    execution_inputs,
    image_of,
    items_of,
    object_arguments,
    read,
    require_sdk,
    text_of,
    truncated,
)
from dsh_tools.adapters.tool_params import anthropic_tools
from dsh_tools.content import ContentBlock
from dsh_tools.execution import ToolExecutionInput, ToolExecutionResult, UnparsedArguments

require_sdk("anthropic", "anthropic", "dsh_tools.adapters.anthropic")

if TYPE_CHECKING:
    from anthropic.types import (
        ImageBlockParam,
        Message,
        MessageParam,
        TextBlockParam,
        ToolResultBlockParam,
    )

    from dsh_tools.context.context import Agent

__all__ = ["anthropic_tools", "calls_from_message", "tool_result_message"]

MediaType = Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
_MEDIA_TYPES: Final[dict[str, MediaType]] = {
    "image/jpeg": "image/jpeg",
    "image/png": "image/png",
    "image/gif": "image/gif",
    "image/webp": "image/webp",
}
"""The image types the Messages API takes inline."""

_CUT_OFF: Final = frozenset({"max_tokens", "model_context_window_exceeded"})


def calls_from_message(
    message: Message | Mapping[str, object], *, agent: Agent | None = None
) -> list[ToolExecutionInput]:
    """One ``ToolExecutionInput`` per ``tool_use`` block of the reply, in order.

    No ``tool_use`` blocks gives ``[]``. With ``stop_reason`` ``max_tokens``
    (or ``model_context_window_exceeded``) a ``tool_use`` that is the reply's
    last block was being written when the reply stopped: it is not run. With
    ``stop_reason`` ``refusal`` no call runs. A block without an id raises
    ``ValueError`` (no ``tool_result`` could answer it).
    """
    blocks = items_of(read(message, "content"))
    stop = read(message, "stop_reason")
    calls: list[ProviderCall] = []
    for position, block in enumerate(blocks):
        if read(block, "type") != "tool_use":
            continue
        raw = read(block, "input")
        arguments = UnparsedArguments("the call carries no input") if raw is None else object_arguments(raw)
        if stop == "refusal":
            arguments = UnparsedArguments("the model refused (stop_reason refusal), so no call of this reply was run")
        elif type(stop) is str and stop in _CUT_OFF and position == len(blocks) - 1:
            arguments = truncated(arguments, f"the reply stopped while this call was written (stop_reason {stop})")
        calls.append(ProviderCall(read(block, "id"), read(block, "name"), arguments))
    return execution_inputs(calls, agent, "tool_use block")


def _blocks(content: Iterable[ContentBlock]) -> list[TextBlockParam | ImageBlockParam]:
    blocks: list[TextBlockParam | ImageBlockParam] = []
    for block in content:
        image = image_of(block)
        if image is None:
            blocks.append({"type": "text", "text": text_of(block)})
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
