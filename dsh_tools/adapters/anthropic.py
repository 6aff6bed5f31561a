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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from dsh_tools.adapters._wire import (
    ProviderCall,
    execution_inputs,
    items_of,
    object_arguments,
    read,
    require_sdk,
    truncated,
    verbatim,
)
from dsh_tools.adapters.answers import tool_result_message
from dsh_tools.adapters.tool_params import anthropic_tools
from dsh_tools.execution import ToolExecutionInput, UnparsedArguments
from dsh_tools.threads.turn import run_step

require_sdk("anthropic", "anthropic", "dsh_tools.adapters.anthropic")

if TYPE_CHECKING:
    from anthropic.types import Message

    from dsh_tools.context.context import Agent, Context
    from dsh_tools.threads import Thread

__all__ = ["anthropic_tools", "calls_from_message", "run_turn", "tool_result_message"]

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




async def run_turn(ctx: Context, thread: Thread, message: Message | Mapping[str, object], *, agent: Agent) -> Thread:
    """Run a Messages reply into ``thread``: the assistant message committed verbatim, then its ``tool_use`` calls.

    Every content block is kept as sent (``thinking`` and
    ``redacted_thinking`` with their signatures, which the API wants back);
    the step's answer is :func:`tool_result_message`, appended once the last
    call settled, by whichever process settles it. Otherwise as
    ``dsh_tools.adapters.openai.run_chat_turn``.
    """
    content = read(message, "content")
    if not isinstance(content, (list, tuple)):
        raise ValueError("the reply has no content blocks")
    reply = {"role": "assistant", "content": [verbatim(block) for block in content]}
    calls = calls_from_message(message, agent=agent)  # a tool_use without an id raises here, before anything is written
    return await run_step(ctx, thread, "anthropic", agent, [reply], calls)
