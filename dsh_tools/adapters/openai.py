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
loop sends back, and :func:`run_chat_turn` / :func:`run_responses_turn`, which
run a reply into a durable thread (``dsh_tools.threads``). Calls come from SDK objects or plain mappings alike. A call
whose arguments cannot be run as sent (not valid JSON, not a JSON object,
cut off by the token limit, an id used twice in one message) still becomes a
``ToolExecutionInput``: its arguments are an :class:`~dsh_tools.UnparsedArguments`
saying why, and executing it settles ``INVALID_ARGS`` with that text, before
policy, so the model is told exactly what it got wrong and observers still
see the call. Needs the ``openai`` extra (``pip install 'dsh-tools[openai]'``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Final, cast

from dsh_tools.adapters._strict import drop_strict_nulls
from dsh_tools.adapters._wire import (
    ProviderCall,
    decode_arguments,
    execution_inputs,
    items_of,
    read,
    require_sdk,
    truncated,
    verbatim,
)
from dsh_tools.adapters.answers import chat_tool_messages, responses_outputs
from dsh_tools.adapters.tool_params import chat_tools, responses_tools
from dsh_tools.execution import ToolExecutionInput, UnparsedArguments
from dsh_tools.threads.turn import run_step
from dsh_tools.tool_types import ToolSchema

require_sdk("openai", "openai", "dsh_tools.adapters.openai")

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion, ChatCompletionAssistantMessageParam, ChatCompletionMessage
    from openai.types.chat.chat_completion import Choice
    from openai.types.responses import Response, ResponseOutputItem

    from dsh_tools.context.context import Agent, Context
    from dsh_tools.threads import Thread

__all__ = [
    "calls_from_chat",
    "calls_from_responses",
    "chat_assistant_message",
    "chat_tool_messages",
    "chat_tools",
    "responses_outputs",
    "responses_tools",
    "run_chat_turn",
    "run_responses_turn",
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
    """The assistant reply as the message param the next request carries (content, refusal, every call).

    Every tool call goes back, custom ones too: :func:`calls_from_chat`
    answers each (a custom call with an error), and a reply that answers a
    call the assistant message does not carry is refused by the API. The
    same reply a thread keeps.
    """
    return cast("ChatCompletionAssistantMessageParam", _chat_reply(message))


# -- a turn into a thread ------------------------------------------------------------

_ASSISTANT_KEYS: Final = ("role", "content", "refusal", "tool_calls", "function_call", "name")
"""What an assistant reply keeps when it is sent back (the response's ``annotations`` are not a param)."""


def _chat_reply(message: object) -> dict[str, object]:
    fields = verbatim(message)
    assert isinstance(fields, dict)
    reply = {key: fields[key] for key in _ASSISTANT_KEYS if fields.get(key) is not None}  # an unset field is left out
    reply["role"] = "assistant"
    reply.setdefault("content", None)
    audio = fields.get("audio")
    if isinstance(audio, Mapping) and isinstance(audio.get("id"), str):
        reply["audio"] = {"id": audio["id"]}  # the reply refers to its audio by id
    return reply


async def run_chat_turn(
    ctx: Context, thread: Thread, completion: ChatCompletion | Mapping[str, object], *, agent: Agent
) -> Thread:
    """Run a Chat Completions reply into ``thread``: its message committed verbatim, then its calls into their slots.

    The assistant message (content, refusal, every tool call) is committed
    with an open step before any call runs; each call runs with idempotency
    key ``"<thread_id>:<tool_call_id>"``, and its settlement fills its slot;
    the step's answer (:func:`chat_tool_messages`) is appended once the last
    call settled, in this process or, for a call that parked, whichever
    settles it. Returns the thread after the turn (``ready``, or ``waiting``).
    ``ValueError`` for a thread of another provider or agent, a completion
    with no choice, a call without an id or with a repeated one, or a
    message too large; ``ThreadConflictError``/``ThreadWaitingError`` as for
    ``append``: nothing is written then.
    """
    choices = items_of(read(completion, "choices"))
    if not choices:
        raise ValueError("the completion has no choices: there is no assistant message to commit")
    message = read(choices[0], "message")
    if message is None:
        raise ValueError("the completion's first choice has no message")
    calls = calls_from_chat(choices[0], agent=agent)  # type: ignore[arg-type]  # read totally; a call without an id raises here
    return await run_step(ctx, thread, "openai-chat", agent, [_chat_reply(message)], calls)


async def run_responses_turn(
    ctx: Context, thread: Thread, response: Response | Mapping[str, object], *, agent: Agent
) -> Thread:
    """Run a Responses reply into ``thread``: every output item committed in order (reasoning included), then its calls.

    As :func:`run_chat_turn`; the answer is :func:`responses_outputs`, and
    ``thread.responses_input()`` is the whole conversation for the next
    request (no ``previous_response_id`` needed).
    """
    output = read(response, "output")
    if output is None:
        raise ValueError("the response has no output")
    items = items_of(output)
    calls = calls_from_responses(items, agent=agent)  # type: ignore[arg-type]  # SDK objects or mappings, read totally
    return await run_step(ctx, thread, "openai-responses", agent, [verbatim(item) for item in items], calls)
