"""``dsh-tools schemas MODULE...``: the tools' JSON schemas, as the registry holds them.

``--format dsh`` (default) prints ``{name, description, parameters}`` per tool
(what ``ctx.tools.schemas()`` returns); ``--format openai`` wraps each in the
chat-completions function-calling shape (:func:`~dsh_tools.adapters.openai.openai_tool`,
the same conversion a chat loop uses), ready to paste into a request.
"""

from __future__ import annotations

import argparse

import orjson

from dsh_tools.adapters.openai import openai_tool
from dsh_tools.cli.loading import load_tools
from dsh_tools.cli.output import emit

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    schemas = load_tools(args.modules).schemas()
    shaped = [openai_tool(s) if args.format == "openai" else s.to_json() for s in schemas]
    emit(orjson.dumps(shaped, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode(), args.output)
    return 0
