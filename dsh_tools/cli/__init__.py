"""``dsh-tools``: the command-line interface.

Commands (one module each, all loading tools through :mod:`.loading`):

* ``demo``     — a scripted agent session over real tools, showing the pipeline;
* ``sdk``      — the Code Mode ``tools:sdk`` text of some modules' tools;
* ``schemas``  — their JSON schemas (``--format openai`` for function calling);
* ``catalog``  — a Markdown catalog of them;
* ``run-code`` — run a TypeScript program against them through the full pipeline.

Exit status: 0 on success, 1 when ``run-code``'s program ends as an error,
2 for a usage error (bad module, no tools, duplicate names, missing file),
reported on stderr as ``dsh-tools: error: ...`` without a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from dsh_tools.cli import catalog, demo, run_code, schemas, sdk
from dsh_tools.cli.loading import CliError

__all__ = ["main"]

Command = Callable[[argparse.Namespace], int]

_COMMANDS = (demo, sdk, schemas, catalog, run_code)


def build_parser() -> argparse.ArgumentParser:
    """The parser; each command module adds its subparser and sets ``run``."""
    parser = argparse.ArgumentParser(
        prog="dsh-tools",
        description="Inspect tool modules, run Code Mode programs, and watch a scripted demo of the pipeline.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMANDS:
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (usage errors are 2, on stderr)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse already printed usage and the error
        return exit_.code if isinstance(exit_.code, int) else 2
    run: Command = args.run
    try:
        return run(args)
    except CliError as error:
        print(f"dsh-tools: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `dsh-tools sdk m | head`: the reader left; that is fine
        sys.stderr.close()
        return 0
