"""``dsh-tools catalog``: a Markdown reference, to stdout or a file."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import DEMO_TOOLS, run_cli


def test_catalog_written_to_a_file(tmp_path: Path) -> None:
    target = tmp_path / "catalog.md"
    result = run_cli("catalog", str(DEMO_TOOLS / "text.py"), "dsh_tools.demo.tools.files", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Tool catalog\n\n5 tools: `count_words`, `list_dir`, `read_file`, `search_text`, `write_file`\n")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## `count_words`", "## `list_dir`", "## `read_file`", "## `search_text`", "## `write_file`"]
    assert "| Parameter | Type | Required | Description |" in text
    assert "| `path` | `string` | yes | File path, relative to the workspace root |" in text
    assert "| `max_results` | `number` | no | Stop after this many matching lines (default: `50`) |" in text
    assert "```ts\nwrite_file(args: {\n" in text
    read_section = text.split("## `read_file`")[1].split("## ")[0]
    assert "Timeout: 5000 ms (`timeout_ms`)" in read_section
    assert "Timeout:" not in text.split("## `count_words`")[1].split("## ")[0]  # it declares none
    assert "}): Promise<string>;\n```" in text


def test_catalog_to_stdout_with_a_title_and_a_parameterless_tool(tmp_path: Path) -> None:
    (tmp_path / "bare.py").write_text(
        "from dsh_tools import define_tool, text_block\n"
        "async def _now(args, exec):\n    return [text_block('noon')]\n"
        "clock = define_tool(name='clock', description='What time | is it?', parameters={}, execute=_now)\n"
    )
    result = run_cli("catalog", str(tmp_path / "bare.py"), "--title", "Clocks")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# Clocks\n\n1 tool: `clock`\n\n## `clock`\n\nWhat time | is it?\n\n_No parameters._")
    signature = result.stdout.split("```ts\n")[1].split("\n```")[0]
    assert signature == "clock(args: Record<string, unknown>): Promise<string>;"
    sdk = run_cli("sdk", str(tmp_path / "bare.py"))
    assert f"  {signature}\n" in sdk.stdout  # the catalog's signature is the SDK's member


def test_catalog_to_an_unwritable_path_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("catalog", "dsh_tools.demo.tools.build", "-o", str(tmp_path / "no" / "such" / "dir.md"))
    assert result.returncode == 2
    assert "cannot write" in result.stderr and "Traceback" not in result.stderr


def test_catalog_signature_quotes_names_as_the_sdk_does() -> None:
    # `new` is an identifier, but a bare `new(...)` member declares a construct
    # signature; a line separator in a name must be escaped, not written raw.
    from dsh_tools.cli.catalog import render_catalog
    from dsh_tools.tool_types import ToolSchema
    from dsh_tools_codegen import render_tools_sdk

    for name in ("new", "read-file", "a\u2028b"):
        schema = ToolSchema(name, "d", {"type": "object", "properties": {}})
        signature = render_catalog([schema]).split("```ts\n")[1].split("\n```")[0]
        assert f"  {signature}\n" in render_tools_sdk([schema])
