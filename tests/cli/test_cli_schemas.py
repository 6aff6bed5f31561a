"""``dsh-tools schemas``: the registry's schemas as JSON, plain or in a provider's tool shape."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from cli_helpers import DEMO_TOOLS, REPO, assert_usage_error, run_cli, write_module


def schemas(*args: str) -> Any:
    result = run_cli("schemas", *args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("[\n  {")  # indented
    return orjson.loads(result.stdout)


def test_plain_schemas_are_name_description_parameters_in_registration_order() -> None:
    data = schemas(str(DEMO_TOOLS / "files.py"), "dsh_tools.demo.tools.build")
    assert [entry["name"] for entry in data] == ["read_file", "write_file", "list_dir", "build_status"]
    assert all(set(entry) == {"name", "description", "parameters"} for entry in data)
    read = data[0]
    assert read["parameters"]["type"] == "object"
    assert read["parameters"]["required"] == ["path"]
    assert read["parameters"]["properties"]["offset"] == {"type": "integer", "description": "First line to return (1-based)"}
    assert "timeout_ms" not in orjson.dumps(data).decode()  # never on the wire


def test_openai_format_is_the_function_calling_wire_shape() -> None:
    plain = schemas("dsh_tools.demo.tools.text")
    wrapped = schemas("dsh_tools.demo.tools.text", "--format", "openai")
    assert wrapped == [{"type": "function", "function": entry} for entry in plain]
    search = wrapped[1]["function"]
    assert search["name"] == "search_text"
    assert search["parameters"]["properties"]["max_results"]["default"] == 50


def test_output_is_deterministic() -> None:
    first = run_cli("schemas", "dsh_tools.demo.tools.text", "--format", "openai")
    second = run_cli("schemas", "dsh_tools.demo.tools.text", "--format", "openai")
    assert first.stdout == second.stdout and first.returncode == 0


def test_responses_and_anthropic_formats_are_those_apis_tool_shapes() -> None:
    plain = schemas("dsh_tools.demo.tools.text")
    responses = schemas("dsh_tools.demo.tools.text", "--format", "openai-responses")
    assert responses == [{"type": "function", "strict": False, **entry} for entry in plain]
    anthropic = schemas("dsh_tools.demo.tools.text", "--format", "anthropic")
    assert anthropic == [
        {"name": e["name"], "description": e["description"], "input_schema": e["parameters"]} for e in plain
    ]


def test_strict_openai_schemas_require_every_property_and_allow_no_extras() -> None:
    (count, search) = schemas("dsh_tools.demo.tools.text", "--format", "openai", "--strict")
    parameters = search["function"]["parameters"]
    assert search["function"]["strict"] is True
    assert parameters["additionalProperties"] is False
    assert sorted(parameters["required"]) == sorted(parameters["properties"])
    assert parameters["properties"]["max_results"] == {
        "description": "Stop after this many matching lines",
        "type": ["integer", "null"],
    }
    assert count["function"]["parameters"]["properties"]["path"]["type"] == "string"  # required stays non-null


def test_strict_is_refused_for_a_format_without_strict_mode() -> None:
    result = run_cli("schemas", "dsh_tools.demo.tools.text", "--format", "anthropic", "--strict")
    assert_usage_error(result, "--strict applies to the openai formats")


def test_a_schema_strict_mode_cannot_express_is_a_usage_error(tmp_path: Path) -> None:
    module = write_module(
        tmp_path,
        "maps",
        """
        class Tagger:
            name = "tag"
            description = "Tag things."
            parameters = {"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}}

            async def execute(self, args, exec):
                return []

        TOOLS = [Tagger()]
        """,
    )
    result = run_cli("schemas", str(module), "--format", "openai", "--strict")
    assert_usage_error(result, 'tool "tag"', "additional properties", "tags")


def test_a_name_the_provider_rejects_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    module = write_module(
        tmp_path,
        "dotted",
        """
        class Dotted:
            name = "files.read"
            description = "Read."
            parameters = {"type": "object", "properties": {}}

            async def execute(self, args, exec):
                return []

        TOOLS = [Dotted()]
        """,
    )
    result = run_cli("schemas", str(module), "--format", "anthropic")
    assert_usage_error(result, "'files.read'")


NO_SDKS = (
    "import sys\n"
    "sys.modules['openai'] = sys.modules['anthropic'] = None  # as if neither SDK were installed\n"
    "from dsh_tools.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "assert 'openai' not in [m.split('.')[0] for m in sys.modules if sys.modules[m] is not None]\n"
    "sys.exit(status)\n"
)


@pytest.mark.parametrize("format_", ["openai", "openai-responses", "anthropic"])
def test_provider_formats_print_without_the_provider_sdks(format_: str) -> None:
    blocked = subprocess.run(
        [sys.executable, "-c", NO_SDKS, "schemas", "dsh_tools.demo.tools.text", "--format", format_],
        cwd=REPO, capture_output=True, text=True, timeout=60, check=False,
    )
    assert blocked.returncode == 0, blocked.stderr
    assert orjson.loads(blocked.stdout) == schemas("dsh_tools.demo.tools.text", "--format", format_)


def test_provider_formats_are_what_the_sdks_accept_unchanged() -> None:
    """Our hand-written JSON equals what the SDKs' own types make of it: nothing dropped, added or coerced."""
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionFunctionTool, ChatCompletionToolParam
    from openai.types.responses import FunctionTool, FunctionToolParam
    from pydantic import TypeAdapter

    for strict in ((), ("--strict",)):
        chat = schemas("dsh_tools.demo.tools.text", "--format", "openai", *strict)
        assert TypeAdapter(list[ChatCompletionToolParam]).validate_python(chat) == chat
        assert [ChatCompletionFunctionTool.model_validate(t).model_dump(exclude_unset=True) for t in chat] == chat
        responses = schemas("dsh_tools.demo.tools.text", "--format", "openai-responses", *strict)
        assert TypeAdapter(list[FunctionToolParam]).validate_python(responses) == responses
        assert [FunctionTool.model_validate(t).model_dump(exclude_unset=True) for t in responses] == responses
    anthropic = schemas("dsh_tools.demo.tools.text", "--format", "anthropic")
    assert TypeAdapter(list[ToolParam]).validate_python(anthropic) == anthropic
