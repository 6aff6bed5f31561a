"""Chat Completions: full round trips over the real ``AsyncOpenAI`` client, and hostile replies."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageParam

from provider_support import PIXEL, ScriptedServer, booted, chat_call, chat_completion
from dsh_tools import (
    Accept,
    HookContext,
    PluginSource,
    PostNext,
    PostToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolSchema,
    UnparsedArguments,
    text_block,
)
from dsh_tools.adapters.openai import calls_from_chat, chat_assistant_message, chat_tool_messages, chat_tools
from dsh_tools.json_values import MAX_DEPTH
from examples.openai_loop import chat_loop


def tool_messages(messages: list[ChatCompletionMessageParam]) -> list[dict[str, Any]]:
    return [dict(m) for m in messages if m["role"] == "tool"]


async def test_the_model_calls_the_registry_runs_and_the_results_go_back() -> None:
    ctx, agent = booted()
    server = ScriptedServer(
        chat_completion(
            chat_call("a", "echo", '{"text": "ab", "times": 2}'),
            chat_call("b", "echo", "{not json"),
            chat_call("c", "nope", "{}"),
            chat_call("d", "fail", ""),
        ),
        chat_completion(content="done"),
    )
    messages = await chat_loop(ctx, agent, server.openai(), "go")
    first, second = server.requests
    assert server.paths == ["/v1/chat/completions", "/v1/chat/completions"]
    assert sorted(t["function"]["name"] for t in first["tools"]) == ["echo", "fail", "snapshot"]
    echo = next(t["function"] for t in first["tools"] if t["function"]["name"] == "echo")
    assert echo["parameters"]["required"] == ["text"]
    sent = [m for m in second["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in sent] == ["a", "b", "c", "d"]
    assert sent[0]["content"] == "abab"
    assert sent[1]["content"].startswith("Error: invalid arguments: the arguments are not valid JSON (")
    assert sent[2]["content"] == 'Error: unknown tool "nope"'
    assert sent[3]["content"] == "Error: disk on fire"
    assistant = second["messages"][2]
    assert assistant["role"] == "assistant" and [c["id"] for c in assistant["tool_calls"]] == ["a", "b", "c", "d"]
    assert messages[-1] == {"role": "assistant", "content": "done"}


async def test_an_unparsable_call_is_one_invalid_args_result_that_observers_see_with_the_raw_text() -> None:
    ctx, agent = booted()
    seen: list[tuple[ToolExecution, ToolExecutionResult]] = []
    ctx.on("tools/result", lambda execution, result: seen.append((execution, result)))
    ran: list[str] = []

    async def pre(execution: ToolExecution, next: Any) -> Any:
        ran.append(execution.name)
        return await next()

    ctx.on("tools/pre-execute", pre)
    (call,) = calls_from_chat({"tool_calls": [chat_call("x", "echo", '{"text": ')]}, agent=agent)
    assert isinstance(call.arguments, UnparsedArguments)
    result = await ctx.tools.execute(call)
    assert result.is_error and result.error is not None and result.error.code == "INVALID_ARGS"
    assert result.error.name == "ToolArgsError"
    assert "not valid JSON" in result.text
    assert ran == []  # settled before policy
    assert [(e.call_id, e.name, e.arguments) for e, _ in seen] == [("x", "echo", '{"text": ')]


def test_sdk_objects_and_plain_mappings_read_alike() -> None:
    body = chat_completion(chat_call("a", "echo", '{"text": "hi"}'))
    message = ChatCompletionMessage.model_validate(body["choices"][0]["message"])
    from_sdk = calls_from_chat(message)
    from_mapping = calls_from_chat(body["choices"][0]["message"])
    assert [(c.call_id, c.name, c.arguments) for c in from_sdk] == [("a", "echo", {"text": "hi"})]
    assert [(c.call_id, c.name, c.arguments) for c in from_mapping] == [("a", "echo", {"text": "hi"})]


def test_no_calls_answers_and_refusals_give_no_inputs() -> None:
    assert calls_from_chat({"role": "assistant", "content": "hello"}) == []
    refusal = ChatCompletionMessage.model_validate({"role": "assistant", "content": None, "refusal": "no"})
    assert calls_from_chat(refusal) == []
    assert chat_assistant_message(refusal) == {"role": "assistant", "content": None, "refusal": "no"}
    assert calls_from_chat({"tool_calls": "garbage"}) == []
    assert calls_from_chat({"tool_calls": None}) == []


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ("[1, 2]", "the arguments must be a JSON object, got array"),
        ('"text"', "the arguments must be a JSON object, got string"),
        ("null", "the arguments must be a JSON object, got null"),
        ("3", "the arguments must be a JSON object, got number"),
        ("{} {}", "the arguments are not valid JSON"),
        ("NaN", "the arguments are not valid JSON"),
        ("[" * 2000 + "]" * 2000, "the arguments are not valid JSON"),  # beyond orjson's nesting
        ('{"a": ' * (MAX_DEPTH + 5) + "1" + "}" * (MAX_DEPTH + 5), "the arguments cannot be used: "),
    ],
)
def test_arguments_that_are_no_json_object_say_so(arguments: str, problem: str) -> None:
    (call,) = calls_from_chat({"tool_calls": [chat_call("a", "echo", arguments)]})
    assert isinstance(call.arguments, UnparsedArguments)
    assert call.arguments.problem.startswith(problem), call.arguments.problem
    assert call.arguments.raw == arguments


async def test_too_many_values_for_the_json_boundary_is_an_invalid_args_result() -> None:
    ctx, agent = booted()
    huge = orjson.dumps({"text": "x", "junk": [0] * 1_000_001}).decode()
    (call,) = calls_from_chat({"tool_calls": [chat_call("a", "echo", huge)]}, agent=agent)
    result = await ctx.tools.execute(call)
    assert result.error is not None and result.error.code == "INVALID_ARGS"
    assert "cannot be used" in result.text


def test_empty_arguments_mean_no_arguments() -> None:
    (call,) = calls_from_chat({"tool_calls": [chat_call("a", "snapshot", "  ")]})
    assert call.arguments == {}


def test_missing_fields_settle_the_call_or_raise_when_no_reply_could_match() -> None:
    no_function = calls_from_chat({"tool_calls": [{"id": "a", "type": "function"}]})
    assert isinstance(no_function[0].arguments, UnparsedArguments)
    assert no_function[0].arguments.problem == "the call names no function"
    no_arguments = calls_from_chat({"tool_calls": [{"id": "a", "type": "function", "function": {"name": "echo"}}]})
    assert isinstance(no_arguments[0].arguments, UnparsedArguments)
    nameless = calls_from_chat({"tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]})
    assert nameless[0].name == ""
    with pytest.raises(ValueError, match="tool call 1 has no id"):
        calls_from_chat({"tool_calls": [chat_call("a", "echo", "{}"), {"function": {"name": "echo"}}]})
    with pytest.raises(ValueError, match="has no id"):
        calls_from_chat({"tool_calls": [chat_call("", "echo", "{}")]})


def test_an_sdk_object_built_without_its_fields_is_read_as_missing_fields() -> None:
    from openai.types.chat import ChatCompletionMessageFunctionToolCall

    broken = ChatCompletionMessageFunctionToolCall.model_construct(id="a", type="function")
    message = ChatCompletionMessage.model_construct(role="assistant", tool_calls=[broken])
    (call,) = calls_from_chat(message)
    assert isinstance(call.arguments, UnparsedArguments) and call.call_id == "a"


async def test_a_duplicate_call_id_runs_once_and_the_second_call_says_why() -> None:
    ctx, agent = booted()
    runs: list[str] = []
    ctx.on("tools/result", lambda execution, result: runs.append(execution.call_id))
    calls = calls_from_chat(
        {"tool_calls": [chat_call("a", "echo", '{"text": "1"}'), chat_call("a", "echo", '{"text": "2"}')]}, agent=agent
    )
    results = [await ctx.tools.execute(call) for call in calls]
    assert results[0].text == "1"
    assert results[1].is_error and 'call id "a" is used by an earlier call' in results[1].text
    assert runs == ["a", "a"]


def test_custom_tool_calls_are_refused_per_call() -> None:
    (call,) = calls_from_chat({"tool_calls": [{"id": "a", "type": "custom", "custom": {"name": "grep", "input": "x"}}]})
    message = ChatCompletionMessage.model_validate({"role": "assistant", "content": None, "tool_calls": [
        {"id": "f", "type": "function", "function": {"name": "echo", "arguments": "{}"}},
        {"id": "a", "type": "custom", "custom": {"name": "grep", "input": "x"}},
    ]})
    sent = chat_assistant_message(message)  # the reply carries every call that gets an answer, or the API refuses it
    assert [c["id"] for c in sent.get("tool_calls", ())] == [c.call_id for c in calls_from_chat(message)] == ["f", "a"]
    assert call.name == "grep" and isinstance(call.arguments, UnparsedArguments)
    assert "'custom' are not supported" in call.arguments.problem


def test_the_last_call_of_a_reply_cut_off_by_the_token_limit_is_not_run() -> None:
    from openai.types.chat.chat_completion import Choice

    body = chat_completion(chat_call("a", "echo", '{"text": "1"}'), chat_call("b", "echo", '{"text": "2"}'), finish="length")
    choice = Choice.model_validate(body["choices"][0])
    first, last = calls_from_chat(choice)
    assert first.arguments == {"text": "1"}
    assert isinstance(last.arguments, UnparsedArguments) and "token limit" in last.arguments.problem


async def test_images_travel_in_a_user_message_after_every_tool_message_with_the_context() -> None:
    ctx, agent = booted()

    async def note(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        return Accept(additional_context=HookContext([text_block(f"noted {execution.call_id}")], PluginSource("audit")))

    ctx.on("tools/post-execute", note)
    calls = [ToolExecutionInput("s", "snapshot", {}, agent=agent), ToolExecutionInput("e", "echo", {"text": "x"}, agent=agent)]
    messages = chat_tool_messages([await ctx.tools.execute(call) for call in calls])
    assert [m["role"] for m in messages] == ["tool", "tool", "user"]
    assert messages[0] == {
        "role": "tool",
        "tool_call_id": "s",
        "content": "the screen:\n[1 image(s) of this result follow in the next user message]",
    }
    user = messages[2]
    assert user["role"] == "user"
    assert list(user["content"]) == [
        {"type": "text", "text": "Images returned by tool call s:"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}},
        {"type": "text", "text": "noted s"},
        {"type": "text", "text": "noted e"},
    ]


def test_plain_results_give_tool_messages_only_and_other_blocks_as_json() -> None:
    result = ToolExecutionResult("a", [text_block("one"), {"type": "resource", "uri": "file:///x"}], False)
    assert chat_tool_messages([result]) == [
        {"role": "tool", "tool_call_id": "a", "content": 'one\n{"type":"resource","uri":"file:///x"}'}
    ]
    assert chat_tool_messages([]) == []


@pytest.mark.parametrize("name", ["has space", "x" * 65, "ümlaut", "a.b", "name\n"])
def test_tool_names_the_provider_rejects_raise_naming_them(name: str) -> None:
    with pytest.raises(ValueError, match="is not accepted by the provider") as caught:
        chat_tools([ToolSchema(name, "d", {"type": "object", "properties": {}})])
    assert repr(name) in str(caught.value)


def test_chat_tools_are_the_function_calling_shape_in_the_order_given() -> None:
    schemas = [ToolSchema("b", "B.", {"type": "object", "properties": {}}), ToolSchema("a", "A.", {"type": "object"})]
    assert chat_tools(schemas) == [
        {"type": "function", "function": {"name": "b", "description": "B.", "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "function": {"name": "a", "description": "A.", "parameters": {"type": "object"}}},
    ]


async def test_a_strict_round_trip_drops_the_nulls_strict_mode_makes_the_model_send() -> None:
    ctx, agent = booted()
    server = ScriptedServer(
        chat_completion(chat_call("a", "echo", '{"text": "ab", "times": null}')),
        chat_completion(content="done"),
    )
    await chat_loop(ctx, agent, server.openai(), "go", strict=True)
    echo = server.requests[0]["tools"][0]["function"]
    assert echo["strict"] is True
    assert echo["parameters"]["required"] == ["text", "times"]
    assert echo["parameters"]["properties"]["times"]["type"] == ["integer", "null"]
    assert echo["parameters"]["additionalProperties"] is False
    sent = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert sent[0]["content"] == "ab"  # times=null read as "absent": the tool's default applied
