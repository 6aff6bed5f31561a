"""``dsh-tools sdk MODULE[:ATTR]...``: the Code Mode SDK text the model would see.

The exact ``tools:sdk`` section text (``render_tools_sdk`` over the validated
tools, typed tools with their return types), so an author can review how a
tool reads as TypeScript before a model ever sees it. Deterministic: the same tools give byte-identical output.
"""

from __future__ import annotations

import argparse

from dsh_tools.cli.loading import load_tools
from dsh_tools.cli.output import emit
from dsh_tools_codegen import render_tools_sdk

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    loaded = load_tools(args.modules)
    emit(render_tools_sdk(loaded.tools), args.output)
    return 0
