"""``dsh-tools schemas``: the registry's schemas as JSON, plain or OpenAI-shaped."""

from __future__ import annotations

from typing import Any

import orjson

from cli_helpers import DEMO_TOOLS, run_cli


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
