"""Responses API: function_call items in, function_call_output items out; hostile items."""

from __future__ import annotations

import pytest
from openai.types.responses import Response

from provider_support import PIXEL, function_call, output_text, response_body
from dsh_tools import HookContext, PluginSource, ToolExecutionResult, ToolSchema, UnparsedArguments, image_block, text_block
from dsh_tools.adapters.openai import calls_from_responses, responses_outputs, responses_tools


def test_function_calls_are_read_from_sdk_items_and_mappings_other_items_skipped() -> None:
    body = response_body(output_text("thinking aloud"), function_call("c1", "echo", '{"text": "hi"}'))
    response = Response.model_validate(body)
    for source in (response.output, body["output"]):
        (call,) = calls_from_responses(source)
        assert (call.call_id, call.name, call.arguments) == ("c1", "echo", {"text": "hi"})


def test_an_incomplete_call_is_not_run_and_bad_json_says_so() -> None:
    items = [function_call("c1", "echo", '{"text": "hi"}', status="incomplete"), function_call("c2", "echo", "{")]
    first, second = calls_from_responses(items)
    assert isinstance(first.arguments, UnparsedArguments) and "status incomplete" in first.arguments.problem
    assert isinstance(second.arguments, UnparsedArguments) and "not valid JSON" in second.arguments.problem


def test_duplicates_custom_calls_and_missing_call_ids() -> None:
    items = [
        function_call("c1", "echo", "{}"),
        function_call("c1", "echo", "{}"),
        {"type": "custom_tool_call", "call_id": "c3", "name": "grep", "input": "x"},
    ]
    first, duplicate, custom = calls_from_responses(items)
    assert first.arguments == {}
    assert isinstance(duplicate.arguments, UnparsedArguments) and isinstance(custom.arguments, UnparsedArguments)
    with pytest.raises(ValueError, match="function_call item 0 has no id"):
        calls_from_responses([{"type": "function_call", "name": "echo", "arguments": "{}"}])
    assert calls_from_responses([]) == [] and calls_from_responses([output_text("refused")]) == []


def test_outputs_carry_text_as_a_string_images_as_parts_and_context_as_a_user_message() -> None:
    context = HookContext([text_block("note"), image_block(PIXEL, "image/png")], PluginSource("audit"))
    results = [
        ToolExecutionResult("c1", [text_block("a"), text_block("b")], False),
        ToolExecutionResult("c2", [text_block("see"), image_block(PIXEL, "image/png")], False, additional_context=context),
    ]
    assert responses_outputs(results) == [
        {"type": "function_call_output", "call_id": "c1", "output": "a\nb"},
        {
            "type": "function_call_output",
            "call_id": "c2",
            "output": [
                {"type": "input_text", "text": "see"},
                {"type": "input_image", "image_url": f"data:image/png;base64,{PIXEL}"},
            ],
        },
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "note"},
                {"type": "input_image", "image_url": f"data:image/png;base64,{PIXEL}", "detail": "auto"},
            ],
        },
    ]


def test_responses_tools_always_say_strict_and_check_names() -> None:
    schema = ToolSchema("echo", "Echo.", {"type": "object", "properties": {"text": {"type": "string"}}})
    (plain,) = responses_tools([schema])
    assert plain == {"type": "function", "name": "echo", "description": "Echo.",
                     "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}, "strict": False}
    (strict,) = responses_tools([schema], strict=True)
    assert strict["strict"] is True and strict["parameters"] == {
        "type": "object",
        "properties": {"text": {"type": ["string", "null"]}},
        "required": ["text"],
        "additionalProperties": False,
    }
    with pytest.raises(ValueError, match="'a b'"):
        responses_tools([ToolSchema("a b", "x", {"type": "object"})])
