"""``dsh-tools sdk MODULE[:ATTR]...``: the Code Mode SDK text the model would see.

The exact ``tools:sdk`` section text (``render_tools_sdk`` over the validated
schemas), so an author can review how a tool reads as TypeScript before a
model ever sees it. Deterministic: the same tools give byte-identical output.
"""

from __future__ import annotations

import argparse

from dsh_tools.cli.loading import load_tools
from dsh_tools.cli.output import emit
from dsh_tools_codegen import render_tools_sdk

__all__ = ["add_parser", "run"]

MODULES_HELP = "a dotted module path or a .py file, optionally :ATTR (a list, a tool, register(ctx) or a factory)"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("sdk", help="print the Code Mode SDK (tools:sdk) text of some modules' tools")
    parser.add_argument("modules", nargs="+", metavar="MODULE[:ATTR]", help=MODULES_HELP)
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    loaded = load_tools(args.modules)
    emit(render_tools_sdk(loaded.schemas()), args.output)
    return 0
