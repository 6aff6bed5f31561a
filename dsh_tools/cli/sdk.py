"""``dsh-tools sdk MODULE[:ATTR]... [--language typescript|python]``: the Code Mode SDK text the model would see.

The exact ``tools:sdk`` section text (``render_tools_sdk`` over the validated
tools, typed tools with their return types; ``render_tools_sdk_python``
with ``--language python``), so an author can review how a tool reads as
TypeScript or Python before a model ever sees it. Deterministic: the same tools give byte-identical output.
"""

from __future__ import annotations

import argparse

from dsh_tools.cli.loading import load_tools
from dsh_tools.cli.output import emit
from dsh_tools_codegen import render_tools_sdk, render_tools_sdk_python

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    loaded = load_tools(args.modules)
    render = render_tools_sdk_python if getattr(args, "language", "typescript") == "python" else render_tools_sdk
    emit(render(loaded.tools), args.output)
    return 0
