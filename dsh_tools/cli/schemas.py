"""``dsh-tools schemas MODULE...``: the tools' JSON schemas, as the registry holds them.

``--format dsh`` (default) prints ``{name, description, parameters}`` per tool
(what ``ctx.tools.schemas()`` returns). The provider formats print exactly
what the adapters in :mod:`dsh_tools.adapters` put in a request's ``tools``,
ready to paste: ``openai`` (Chat Completions), ``openai-responses`` and
``anthropic``. ``--strict`` applies OpenAI's strict mode to the two OpenAI
formats (a schema strict mode cannot express is a usage error, exit status 2).
Printing JSON needs no provider SDK: the shapes come from
:mod:`dsh_tools.adapters.tool_params`, which the adapters use too.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

import orjson

from dsh_tools.adapters import tool_params
from dsh_tools.cli.errors import CliError
from dsh_tools.cli.loading import load_tools
from dsh_tools.cli.output import emit
from dsh_tools.tool_types import ToolSchema

__all__ = ["run"]


def _shaper(name: str, strict: bool) -> Callable[[Sequence[ToolSchema]], Sequence[object]]:
    """The conversion for a format (no provider SDK is imported)."""
    if name == "openai":
        return lambda schemas: tool_params.chat_tools(schemas, strict=strict)
    if name == "openai-responses":
        return lambda schemas: tool_params.responses_tools(schemas, strict=strict)
    if name == "anthropic":
        return tool_params.anthropic_tools
    return lambda schemas: [schema.to_json() for schema in schemas]


def run(args: argparse.Namespace) -> int:
    if args.strict and args.format not in ("openai", "openai-responses"):
        raise CliError(f"--strict applies to the openai formats, not {args.format}")
    schemas = load_tools(args.modules).schemas()
    try:
        shaped = _shaper(args.format, args.strict)(schemas)
    except ValueError as error:  # a name the provider rejects, a schema strict mode cannot express
        raise CliError(str(error)) from None
    emit(orjson.dumps(shaped, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode(), args.output)
    return 0
