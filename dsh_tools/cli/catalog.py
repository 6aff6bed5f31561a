"""``dsh-tools catalog MODULE... [-o FILE]``: a Markdown reference of the tools.

Per tool (in name order, so the file diffs cleanly as tools come and go): the
description, its time budget (``timeout_ms``) when it declares one, a parameter table (name, TypeScript type, required, description)
and the TypeScript signature the Code Mode SDK declares for it. Types come from
the same codegen as the SDK, so the catalog cannot drift from what models see.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

import orjson

from dsh_tools.cli.loading import load_tools
from dsh_tools.cli.output import emit
from dsh_tools.json_values import thaw_json
from dsh_tools.tool_types import RegisteredTool, ToolSchema
from dsh_tools.signals import format_ms
from dsh_tools_codegen import json_schema_to_ts, member_key

__all__ = ["render_catalog", "run"]


def run(args: argparse.Namespace) -> int:
    loaded = load_tools(args.modules)
    emit(render_catalog(loaded.tools, title=args.title), args.output)
    return 0


def render_catalog(tools: Sequence[ToolSchema | RegisteredTool], *, title: str = "Tool catalog") -> str:
    """The whole Markdown document (deterministic for a given set of tools).

    Registered tools also show their ``timeout_ms``; bare wire schemas carry none.
    """
    ordered = sorted(tools, key=lambda tool: tool.name)
    parts = [f"# {title}", f"{len(ordered)} tool{'' if len(ordered) == 1 else 's'}: "
             + ", ".join(f"`{tool.name}`" for tool in ordered)]
    parts.extend(_tool_section(tool) for tool in ordered)
    return "\n\n".join(parts) + "\n"


def _tool_section(tool: ToolSchema | RegisteredTool) -> str:
    parameters = thaw_json(tool.parameters)
    params = parameters if isinstance(parameters, dict) else {}
    lines = [f"## `{tool.name}`", "", tool.description or "_No description._", ""]
    timeout_ms = tool.timeout_ms if isinstance(tool, RegisteredTool) else None
    if timeout_ms is not None:
        lines += [f"Timeout: {format_ms(timeout_ms)} ms (`timeout_ms`)", ""]
    lines.extend(_parameter_table(params))
    key = member_key(tool.name, method=True)  # quoted exactly as the SDK quotes it
    lines += ["", "```ts", f"{key}(args: {json_schema_to_ts(params)}): Promise<string>;", "```"]
    return "\n".join(lines)


def _parameter_table(parameters: Mapping[str, object]) -> list[str]:
    properties = parameters.get("properties")
    if not isinstance(properties, dict) or not properties:
        return ["_No parameters._"]
    required = parameters.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    rows = ["| Parameter | Type | Required | Description |", "| --- | --- | --- | --- |"]
    for name, prop in properties.items():  # the author's order, as the SDK renders them
        prop_map = prop if isinstance(prop, dict) else {}
        description = prop_map.get("description")
        text = _cell(description) if isinstance(description, str) else ""
        if "default" in prop_map:
            text = f"{text} (default: `{_cell(orjson.dumps(prop_map['default']).decode())}`)".strip()
        type_text = f"`{_cell(json_schema_to_ts(prop_map))}`"
        rows.append(f"| `{_cell(name)}` | {type_text} | {'yes' if name in required_names else 'no'} | {text} |")
    return rows


def _cell(text: str) -> str:
    """One table cell: collapsed whitespace, pipes and backticks made harmless."""
    return " ".join(text.split()).replace("|", "\\|").replace("`", "'")
