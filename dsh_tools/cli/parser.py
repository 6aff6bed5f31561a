"""The ``dsh-tools`` argument parser: every command's arguments, and nothing else.

Declaring the commands needs only :mod:`argparse`, so ``dsh-tools --help``
and a usage error cost no more than that; each command's implementation
(``dsh_tools.cli.<command>.run``) is imported only when that command runs
(:func:`dsh_tools.cli.main`). A new command adds a ``_<name>`` function here
and an entry in :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Final, TypeAlias

__all__ = ["COMMANDS", "MODULES_HELP", "RUN_CODE_BUDGETS", "build_parser"]

MODULES_HELP: Final = (
    "a dotted module path or a .py file, optionally :ATTR (a list, a tool, register(ctx) or a factory)"
)

if TYPE_CHECKING:  # generic only in typeshed, not at run time
    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


LANGUAGES = ("typescript", "python")
LANGUAGE_HELP = "the language programs are written in (default: typescript; python needs dsh-tools[python])"


def _demo(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("demo", help="play a scripted agent session showing the pipeline")
    parser.add_argument("--mode", choices=("native", "code", "both"), default="both", help="tool mode (default: both)")
    parser.add_argument("--language", choices=LANGUAGES, default="typescript", help=LANGUAGE_HELP)
    parser.add_argument("--json", action="store_true", help="print the machine-readable transcript instead")
    return parser


def _sdk(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("sdk", help="print the Code Mode SDK (tools:sdk) text of some modules' tools")
    parser.add_argument("modules", nargs="+", metavar="MODULE[:ATTR]", help=MODULES_HELP)
    parser.add_argument("--language", choices=LANGUAGES, default="typescript", help="the SDK's language (default: typescript)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    return parser


def _schemas(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("schemas", help="print the tools' JSON schemas")
    parser.add_argument("modules", nargs="+", metavar="MODULE[:ATTR]", help=MODULES_HELP)
    parser.add_argument(
        "--format",
        choices=("dsh", "openai", "openai-responses", "anthropic"),
        default="dsh",
        help="dsh: {name, description, parameters}; openai: chat-completions function tools; "
        "openai-responses: Responses function tools; anthropic: Messages API tools",
    )
    parser.add_argument("--strict", action="store_true", help="OpenAI strict-mode schemas (openai formats only)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    return parser


def _catalog(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("catalog", help="write a Markdown catalog of the tools")
    parser.add_argument("modules", nargs="+", metavar="MODULE[:ATTR]", help=MODULES_HELP)
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    parser.add_argument("--title", default="Tool catalog", help="the document's heading")
    return parser


def _run_code(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("run-code", help="run a TypeScript or Python program against some modules' tools")
    parser.add_argument(
        "file", metavar="FILE", help="the program: the body of an async function (see --language); - reads standard input"
    )
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="MODULE[:ATTR]",
        help=f"tools to bind ({MODULES_HELP}); repeat the flag or give a comma-separated list",
    )
    parser.add_argument("--dispatches", action="store_true", help="also print each tool sub-call (to stderr)")
    parser.add_argument("--language", choices=LANGUAGES, default="typescript", help=LANGUAGE_HELP)
    budgets = parser.add_argument_group("budgets", "limits of the sandbox (each defaults to the runtime's own)")
    for flag, meta, keyword, text in RUN_CODE_BUDGETS:
        budgets.add_argument(flag, type=_positive_int, metavar=meta, dest=keyword, help=text)
    return parser


RUN_CODE_BUDGETS: Final = (
    ("--timeout-ms", "MS", "max_wall_ms", "wall-clock limit of the run: the process is killed after MS milliseconds"),
    ("--compute-ms", "MS", "compute_ms", "CPU time limit of the run, in milliseconds"),
    ("--memory-mb", "MB", "max_heap_mb", "heap limit; an out-of-memory end prints one line"),
    ("--max-log-bytes", "N", "max_log_bytes", "logs kept (beyond that they are truncated)"),
    ("--max-value-bytes", "N", "max_value_bytes", "size of the completion value as JSON (beyond that it is truncated)"),
    ("--max-calls", "N", "max_calls", "tool calls the program may make"),
)
"""``run-code``'s budget flags: (flag, metavar, the runtime keyword it sets, help).

``DenoCodeRuntime`` and ``MontyCodeRuntime`` take the same keywords.

The keyword is the flag's argparse ``dest``, so ``run-code`` passes the given
ones to the runtime as they are."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _mcp_serve(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("mcp-serve", help="serve some modules' tools to an MCP client over stdio (the mcp extra)")
    parser.add_argument("modules", nargs="+", metavar="MODULE[:ATTR]", help=MODULES_HELP)
    parser.add_argument("--mode", choices=("native", "code", "both"), default="native", help="how the tools are presented")
    parser.add_argument("--name", default="dsh-tools", help="the server name the client sees")
    return parser


def _store_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", required=True, metavar="URL", help="the call store (sqlite:///calls.db, postgresql://...)")


def _approvals(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "approvals", help="list parked calls in a store, record a decision on one, watch them, or manage remembered rules"
    )
    _store_argument(parser)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="every undecided parked call, oldest first").add_argument(
        "--json", action="store_true", help="one JSON object per line"
    )
    for verdict in ("approve", "reject"):
        action = actions.add_parser(verdict, help=f"{verdict} one parked call (its agent's process runs it)")
        action.add_argument("approval_id", metavar="ID")
        action.add_argument("--by", default=None, help="who decided (kept with the decision, shown in the journal)")
        action.add_argument(
            "--message", default=None, help="what the model reads with a rejection (the user rejected tool ...: MESSAGE)"
        )
        action.add_argument(
            "--remember", action="store_true", help="decide this agent's later calls of this tool alike (a rule)"
        )
        if verdict == "approve":
            action.add_argument("--arguments", metavar="JSON", help="edited arguments to run the call with instead")
    watch = actions.add_parser("watch", help="print parked, decided and settled events as JSON lines until interrupted")
    watch.add_argument("--poll", type=float, default=0.5, metavar="S", help="seconds between looks (default 0.5)")
    watch.add_argument("--from-start", action="store_true", help="print the events already logged first")
    actions.add_parser("rules", help="the remembered rules (one JSON object per line)").add_argument(
        "--agent", metavar="ID", help="only this agent's rules"
    )
    actions.add_parser("forget", help="remove one remembered rule").add_argument("rule_id", metavar="RULE_ID")
    return parser


def _log(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("log", help="print the call journal of a store, newest last")
    _store_argument(parser)
    parser.add_argument("--agent", metavar="ID", help="only this agent's calls")
    parser.add_argument("--tool", metavar="NAME", help="only calls of this tool")
    parser.add_argument("--errors", action="store_true", help="only calls that ended as errors")
    parser.add_argument("--limit", type=int, default=50, metavar="N", help="the newest N records (default 50)")
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per line (JSON Lines: nothing when no call matches)"
    )
    return parser


def _recover(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "recover", help="settle the calls stopped processes left running (their lease lapsed) as unknown; runs nothing"
    )
    _store_argument(parser)
    parser.add_argument("--agent", metavar="ID", help="only this agent's calls")
    parser.add_argument("--by", default="cli", help="who settled them (kept with each record; default cli)")
    return parser


def _inspect(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("inspect", help="serve the inspector page for a store (the inspector extra)")
    _store_argument(parser)
    parser.add_argument("--host", default="127.0.0.1", help="the address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8765, help="the port (default 8765; 0 picks a free one)")
    return parser


def _worker(commands: Commands) -> argparse.ArgumentParser:
    parser = commands.add_parser("worker", help="serve a DBOS queue with some modules' tools (the dbos extra)")
    parser.add_argument("modules", nargs="*", metavar="MODULE[:ATTR]", help=MODULES_HELP)
    _store_argument(parser)
    parser.add_argument("--queue", metavar="NAME", help="the queue to serve")
    parser.add_argument("--executor-id", metavar="ID", help="this worker's stable, unique id (default HOSTNAME:QUEUE)")
    parser.add_argument("--recover", metavar="ID", help="re-enqueue the unfinished calls of the dead worker ID, then exit")
    parser.add_argument("--drain-seconds", type=int, default=10, metavar="S", help="on SIGTERM, finish calls for S s (default 10)")
    parser.add_argument("--language", choices=LANGUAGES, default="typescript", help=LANGUAGE_HELP)
    return parser


COMMANDS: Final[dict[str, tuple[Callable[[Commands], argparse.ArgumentParser], str]]] = {
    "demo": (_demo, "dsh_tools.cli.demo"),
    "sdk": (_sdk, "dsh_tools.cli.sdk"),
    "schemas": (_schemas, "dsh_tools.cli.schemas"),
    "catalog": (_catalog, "dsh_tools.cli.catalog"),
    "run-code": (_run_code, "dsh_tools.cli.run_code"),
    "mcp-serve": (_mcp_serve, "dsh_tools.cli.mcp_serve"),
    "approvals": (_approvals, "dsh_tools.cli.approvals"),
    "log": (_log, "dsh_tools.cli.log"),
    "recover": (_recover, "dsh_tools.cli.recover"),
    "inspect": (_inspect, "dsh_tools.cli.inspect"),
    "worker": (_worker, "dsh_tools.cli.worker"),
}
"""Command → (its argument declaration, the module whose ``run(args) -> int`` implements it)."""


def _version() -> str:
    """The installed distribution's version (what ``pip`` installed, not a copy in the source)."""
    try:
        return version("dsh-tools")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The whole parser; each parsed command carries the module that implements it."""
    parser = argparse.ArgumentParser(
        prog="dsh-tools",
        description="Inspect tool modules, run Code Mode programs, and watch a scripted demo of the pipeline.",
    )
    parser.add_argument("--version", action="version", version=f"dsh-tools {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for declare, module in COMMANDS.values():
        declare(commands).set_defaults(implementation=module)
    return parser
