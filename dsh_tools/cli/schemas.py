"""``dsh-tools schemas MODULE...``: the tools' JSON schemas, as the registry holds them.

``--format dsh`` (default) prints ``{name, description, parameters}`` per tool
(what ``ctx.tools.schemas()`` returns); ``--format openai`` wraps each in the
chat-completions function-calling shape, ready to paste into a request.
"""

from __future__ import annotations

import argparse

import orjson

from dsh_tools.cli.loading import load_tools
from dsh_tools.cli.output import emit
from dsh_tools.cli.sdk import MODULES_HELP
from dsh_tools.json_values import thaw_json
from dsh_tools.schema import ToolSchema

__all__ = ["add_parser", "openai_function", "run"]


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("schemas", help="print the tools' JSON schemas")
    parser.add_argument("modules", nargs="+", metavar="MODULE[:ATTR]", help=MODULES_HELP)
    parser.add_argument(
        "--format",
        choices=("dsh", "openai"),
        default="dsh",
        help="dsh: {name, description, parameters}; openai: chat-completions function tools",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.set_defaults(run=run)


def openai_function(schema: ToolSchema) -> dict[str, object]:
    """The chat-completions ``tools`` entry for one schema."""
    return {"type": "function", "function": schema.to_json()}


def run(args: argparse.Namespace) -> int:
    schemas = load_tools(args.modules).schemas()
    shaped = [openai_function(s) if args.format == "openai" else s.to_json() for s in schemas]
    emit(orjson.dumps(thaw_json(shaped), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode(), args.output)
    return 0
