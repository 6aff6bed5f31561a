"""Replies a model or a proxy can send that the other adapter suites do not: every call still gets a result.

A proxy (or the SDKs themselves, which read the HTTP body with Python's
``json``) hands over strings that hold lone surrogates, since Python's
``json`` turns a ``"\\ud800"`` escape into one; and over plain mappings a
field can hold any Python value at all.
"""

from __future__ import annotations

import json

import orjson
import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletionMessage
from openai.types.responses import Response

from provider_support import anthropic_message, booted, chat_call, chat_completion, function_call, response_body, tool_use
from dsh_tools import ToolExecution, ToolExecutionInput, ToolExecutionResult, UnparsedArguments
from dsh_tools.adapters.anthropic import calls_from_message, tool_result_message
from dsh_tools.adapters.openai import calls_from_chat, calls_from_responses, chat_tool_messages, responses_outputs
from dsh_tools.json_values import MAX_DEPTH


def as_the_sdk_reads_it(body: object) -> object:
    """``body`` after the wire: encoded with escapes, decoded by Python's ``json`` (as the SDKs do)."""
    return json.loads(json.dumps(body))


def sdk_chat_message(*calls: dict[str, object]) -> ChatCompletionMessage:
    message = as_the_sdk_reads_it(chat_completion(*calls)["choices"][0]["message"])
    return ChatCompletionMessage.model_validate(message)


async def test_a_tool_name_with_a_lone_surrogate_is_an_unknown_tool_result_on_every_api() -> None:
    ctx, agent = booted()
    chat = calls_from_chat(sdk_chat_message(chat_call("a", "echo\ud800", "{}")), agent=agent)
    responses = calls_from_responses(
        Response.model_validate(as_the_sdk_reads_it(response_body(function_call("b", "\udfff", "{}")))).output, agent=agent
    )
    anthropic = calls_from_message(
        Message.model_validate(as_the_sdk_reads_it(anthropic_message(tool_use("c", "\ud83d", {}), stop="tool_use"))),
        agent=agent,
    )
    results = [await ctx.tools.execute(call) for call in (*chat, *responses, *anthropic)]
    assert [(r.is_error, r.error.code if r.error else None) for r in results] == [(True, "UNKNOWN_TOOL")] * 3
    assert [r.text for r in results] == [
        'Error: unknown tool "echo\ufffd"', 'Error: unknown tool "\ufffd"', 'Error: unknown tool "\ufffd"'
    ]
    orjson.dumps(chat_tool_messages(results[:1]))  # what goes back is Unicode text
    orjson.dumps(responses_outputs(results[1:2]))
    orjson.dumps(tool_result_message(results[2:]))


async def test_arguments_text_with_a_lone_surrogate_is_invalid_args_and_observers_see_the_text() -> None:
    ctx, agent = booted()
    seen: list[tuple[ToolExecution, ToolExecutionResult]] = []
    ctx.on("tools/result", lambda execution, result: seen.append((execution, result)))
    message = sdk_chat_message(chat_call("a", "echo", '{"text": "\ud800"}'))
    (call,) = calls_from_chat(message, agent=agent)
    assert isinstance(call.arguments, UnparsedArguments) and call.arguments.raw == '{"text": "\ud800"}'
    result = await ctx.tools.execute(call)
    assert result.error is not None and result.error.code == "INVALID_ARGS"
    assert result.text.startswith("Error: invalid arguments: the arguments are not valid JSON (")
    ((execution, recorded),) = seen
    assert recorded == result and execution.arguments == '{"text": "\ufffd"}'  # the text, as Unicode


async def test_a_problem_text_with_a_lone_surrogate_still_settles() -> None:
    ctx, agent = booted()
    result = await ctx.tools.execute(ToolExecutionInput("a", "echo", UnparsedArguments("bad \udc00"), agent=agent))
    assert result.error is not None and result.error.code == "INVALID_ARGS"
    assert result.text == "Error: invalid arguments: bad \ufffd"


@pytest.mark.parametrize("stop", [["max_tokens"], {"max_tokens": 1}])
def test_an_unhashable_stop_reason_reads_as_an_unknown_one(stop: object) -> None:
    (call,) = calls_from_message({"content": [tool_use("t1", "echo", {"text": "a"})], "stop_reason": stop})
    assert call.arguments == {"text": "a"}


@pytest.mark.parametrize(
    "arguments",
    ['{"text": NaN}', '{"text": Infinity}', '{"text": -Infinity}', '{"text": 1e400}', "{'text': 'a'}", '{"text": "a",}',
     '{"text": "\\ud800"}', '{"text": "\\x41"}', '{"text": "a"} trailing'],
)
def test_python_json_literals_and_bad_escapes_are_not_valid_json(arguments: str) -> None:
    (call,) = calls_from_chat({"tool_calls": [chat_call("a", "echo", arguments)]})
    assert isinstance(call.arguments, UnparsedArguments)
    assert call.arguments.problem.startswith("the arguments are not valid JSON ("), call.arguments.problem


@pytest.mark.parametrize("name", ["../../etc/passwd", "echo\x00", "ECHO", " echo", "echo ", "é", "x" * 10_000])
async def test_odd_names_on_a_call_are_unknown_tools_not_near_misses(name: str) -> None:
    ctx, agent = booted()
    (call,) = calls_from_chat({"tool_calls": [chat_call("a", name, '{"text": "x"}')]}, agent=agent)
    result = await ctx.tools.execute(call)
    assert result.error is not None and result.error.code == "UNKNOWN_TOOL"


def test_arguments_sent_as_an_object_instead_of_a_text_say_so() -> None:
    (chat,) = calls_from_chat({"tool_calls": [{"id": "a", "type": "function", "function": {"name": "echo", "arguments": {"text": "x"}}}]})
    (responses,) = calls_from_responses([{"type": "function_call", "call_id": "b", "name": "echo", "arguments": ["x"]}])
    for call in (chat, responses):
        assert isinstance(call.arguments, UnparsedArguments)
    assert isinstance(chat.arguments, UnparsedArguments) and chat.arguments.problem == "the arguments must be a JSON text, got dict"
    assert isinstance(responses.arguments, UnparsedArguments) and responses.arguments.problem.endswith("got list")


def test_a_tool_use_input_beyond_the_json_boundary_settles_that_call_only() -> None:
    deep: object = {}
    for _ in range(MAX_DEPTH + 5):
        deep = {"a": deep}
    blocks = [tool_use("t1", "echo", deep), tool_use("t2", "echo", {"n": 2**64}), tool_use("t3", "echo", {"text": "ok"})]
    first, second, third = calls_from_message(as_the_sdk_reads_it(anthropic_message(*blocks)))  # type: ignore[arg-type]
    assert isinstance(first.arguments, UnparsedArguments) and "nesting deeper than" in first.arguments.problem
    assert isinstance(second.arguments, UnparsedArguments) and "64-bit range" in second.arguments.problem
    assert third.arguments == {"text": "ok"}


async def test_thousands_of_calls_in_one_message_all_get_a_result_in_order() -> None:
    ctx, agent = booted()
    count = 5_000
    calls = [chat_call(f"c{i}", "echo", orjson.dumps({"text": str(i)}).decode()) for i in range(count)]
    calls.append(chat_call("c0", "echo", '{"text": "again"}'))
    inputs = calls_from_chat(sdk_chat_message(*calls), agent=agent)
    assert [call.call_id for call in inputs] == [f"c{i}" for i in range(count)] + ["c0"]
    results = [await ctx.tools.execute(call) for call in inputs]
    messages = chat_tool_messages(results)
    assert [m.get("tool_call_id") for m in messages] == [f"c{i}" for i in range(count)] + ["c0"]
    assert results[count - 1].text == str(count - 1)
    assert results[-1].is_error and "earlier call" in results[-1].text
