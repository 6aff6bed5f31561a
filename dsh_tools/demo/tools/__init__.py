"""The demo's tools: real, sandboxed workspace tools shipped with the package.

``dsh-tools demo`` plays its session with :func:`make_tools`, and every
module here works with the other commands as well (``dsh-tools sdk
dsh_tools.demo.tools``, ``dsh-tools run-code prog.ts --tools
dsh_tools.demo.tools.text``). They double as worked examples of the two ways
to write a tool:

* :mod:`.files` — ``read_file``, ``write_file``, ``list_dir`` (TypedDict
  arguments; a generic card with locations, a diff result card from ``meta``);
* :mod:`.text` — ``count_words``, ``search_text`` (the ``SchemaSpec`` DSL);
* :mod:`.build` — ``build_status``, a slow call with a ``timeout_ms`` budget
  that honours its abort signal;
* :mod:`.sandbox` — the one path check that keeps them inside their root.

Each module has ``make_tools(root)`` (the tools confined to ``root``) and
``TOOLS`` (confined to the current directory when the module was imported).
This package also has :func:`register`, which every ``dsh-tools`` command
calls: the tools *and* the demo's policies (the workspace gate that asks
before ``write_file``, the token redactor), so serving them with
``dsh-tools mcp-serve dsh_tools.demo.tools`` keeps the policy the demo shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dsh_tools.definitions import DefinedTool
from dsh_tools.demo.policies import install_policies
from dsh_tools.demo.tools import build, files, text
from dsh_tools.context.context import Context

__all__ = ["TOOLS", "make_tools", "register"]


def make_tools(root: Path) -> list[DefinedTool[Any]]:
    """Every demo tool, confined to ``root``: the files, then the text tools, then ``build_status``."""
    return [*files.make_tools(root), *text.make_tools(root), *build.make_tools(root)]


TOOLS: list[DefinedTool[Any]] = [*files.TOOLS, *text.TOOLS, *build.TOOLS]
"""Every demo tool, confined to the current directory at import time."""


def register(ctx: Context) -> None:
    """Every demo tool and the demo's policies, confined to the current directory, through ``ctx``."""
    root = Path.cwd()
    for tool in make_tools(root):
        ctx.tools.register(tool)
    install_policies(ctx, root)
