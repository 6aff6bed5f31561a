"""Anthropic Messages: tool_use blocks in, one tool_result message out; stop reasons and hostile blocks."""

from __future__ import annotations

import pytest
from anthropic.types import Message

from provider_support import PIXEL, anthropic_message, tool_use
from dsh_tools import HookContext, PluginSource, ToolExecutionResult, ToolSchema, UnparsedArguments, image_block, text_block
from dsh_tools.adapters.anthropic import anthropic_tools, calls_from_message, tool_result_message


def test_tool_use_blocks_read_alike_from_sdk_objects_and_mappings() -> None:
    body = anthropic_message({"type": "text", "text": "hm"}, tool_use("t1", "echo", {"text": "hi"}), stop="tool_use")
    for source in (Message.model_validate(body), body):
        (call,) = calls_from_message(source)
        assert (call.call_id, call.name, call.arguments) == ("t1", "echo", {"text": "hi"})
    assert calls_from_message(anthropic_message({"type": "text", "text": "hello"})) == []


def test_a_call_cut_off_by_max_tokens_is_not_run_but_earlier_ones_are() -> None:
    body = anthropic_message(tool_use("t1", "echo", {"text": "a"}), tool_use("t2", "echo", {}), stop="max_tokens")
    first, last = calls_from_message(body)
    assert first.arguments == {"text": "a"}
    assert isinstance(last.arguments, UnparsedArguments) and "max_tokens" in last.arguments.problem


def test_a_refusal_runs_no_call_but_every_tool_use_still_gets_an_answer() -> None:
    (call,) = calls_from_message(anthropic_message(tool_use("t1", "echo", {"text": "a"}), stop="refusal"))
    assert isinstance(call.arguments, UnparsedArguments) and "refused" in call.arguments.problem


def test_hostile_blocks() -> None:
    no_input = {"type": "tool_use", "id": "t1", "name": "echo"}
    first, duplicate, listed = calls_from_message(
        {"content": [no_input, tool_use("t1", "echo", {}), tool_use("t3", "echo", [1])]}
    )
    assert isinstance(first.arguments, UnparsedArguments) and first.arguments.problem == "the call carries no input"
    assert isinstance(duplicate.arguments, UnparsedArguments) and "earlier call" in duplicate.arguments.problem
    assert isinstance(listed.arguments, UnparsedArguments) and "got array" in listed.arguments.problem
    with pytest.raises(ValueError, match="tool_use block 0 has no id"):
        calls_from_message({"content": [{"type": "tool_use", "name": "echo", "input": {}}]})
    assert calls_from_message({"content": None}) == [] and calls_from_message({}) == []


def test_the_result_message_has_is_error_images_unsupported_images_and_context_last() -> None:
    context = HookContext([text_block("note")], PluginSource("audit"))
    results = [
        ToolExecutionResult("t1", [text_block("ok"), image_block(PIXEL, "image/png")], False, additional_context=context),
        ToolExecutionResult("t2", [image_block("PD94", "image/svg+xml")], True),
    ]
    message = tool_result_message(results)
    assert message["role"] == "user"
    assert list(message["content"]) == [
        {
            "type": "tool_result",
            "tool_use_id": "t1",
            "content": [
                {"type": "text", "text": "ok"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PIXEL}},
            ],
            "is_error": False,
        },
        {
            "type": "tool_result",
            "tool_use_id": "t2",
            "content": [{"type": "text", "text": "[an image of type image/svg+xml was left out: Anthropic takes JPEG, PNG, GIF, WebP]"}],
            "is_error": True,
        },
        {"type": "text", "text": "note"},
    ]
    with pytest.raises(ValueError, match="at least one result"):
        tool_result_message([])


def test_anthropic_tools_and_names() -> None:
    schema = ToolSchema("echo", "Echo.", {"type": "object", "properties": {}})
    assert anthropic_tools([schema]) == [
        {"name": "echo", "description": "Echo.", "input_schema": {"type": "object", "properties": {}}}
    ]
    with pytest.raises(ValueError, match="'x' \\* 65|is not accepted"):
        anthropic_tools([ToolSchema("x" * 65, "d", {"type": "object"})])
