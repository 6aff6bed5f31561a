"""``dsh-tools``: the command-line interface.

Commands (declared in :mod:`.parser`, implemented by one module each, all
loading tools through :mod:`.loading`):

* ``demo``     — a scripted agent session over real tools, showing the pipeline;
* ``sdk``      — the Code Mode ``tools:sdk`` text of some modules' tools;
* ``schemas``  — their JSON schemas (``--format openai|openai-responses|anthropic`` for providers);
* ``catalog``  — a Markdown catalog of them;
* ``run-code`` — run a TypeScript (or, ``--language python``, Python) program against them
  through the full pipeline (``demo`` and ``sdk`` take ``--language`` too);
* ``mcp-serve`` — serve them to an MCP client over stdio (the ``mcp`` extra);
* ``approvals`` — list a store's parked calls, approve or reject one;
* ``log``      — print a store's call journal;
* ``inspect``  — serve the inspector page for a store (the ``inspector`` extra).

Exit status: 0 on success, 1 when ``run-code``'s program ends as an error,
2 for a usage error (bad module, no tools, duplicate names, missing file),
reported on stderr as ``dsh-tools: error: ...`` without a traceback.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from dsh_tools.cli.errors import CliError
from dsh_tools.cli.parser import build_parser

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (usage errors are 2, on stderr).

    Only the chosen command's module is imported (``args.implementation``),
    so ``--help`` and usage errors never load the registry, codegen or Deno.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse already printed usage and the error
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        command = importlib.import_module(args.implementation)
        status: int = command.run(args)
        return status
    except CliError as error:
        print(f"dsh-tools: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `dsh-tools sdk m | head`: the reader left; that is fine
        sys.stderr.close()
        return 0
