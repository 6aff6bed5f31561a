"""``dsh-tools demo [--mode native|code|both] [--json]``: watch the pipeline work.

Plays :mod:`dsh_tools.demo`'s scripted session with the tools of the
repository's ``examples/`` (``fs_tools``, ``text_tools``, ``demo_tools``),
loaded by the same loader as every other command and confined to the demo's
temporary workspace through their ``make_tools(root)`` factories. Code modes
run the program in a real ``DenoCodeRuntime``; native mode needs no Deno.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import orjson

from dsh_tools.cli.loading import CliError, import_module_spec
from dsh_tools.cli.output import emit
from dsh_tools.cli.runtime import deno_runtime
from dsh_tools.demo import Transcript, play_demo, render_transcript
from dsh_tools.demo.session import ToolsFactory
from dsh_tools.registry.registry import ToolMode
from dsh_tools.schema import ToolDefinition

__all__ = ["EXAMPLE_MODULES", "add_parser", "examples_factory", "run"]

EXAMPLE_MODULES: Final = ("fs_tools.py", "text_tools.py", "demo_tools.py")
DEFAULT_EXAMPLES: Final = Path(__file__).resolve().parents[2] / "examples"


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("demo", help="play a scripted agent session showing the pipeline")
    parser.add_argument("--mode", choices=("native", "code", "both"), default="both", help="tool mode (default: both)")
    parser.add_argument("--json", action="store_true", help="print the machine-readable transcript instead")
    parser.add_argument(
        "--examples", metavar="DIR", default=str(DEFAULT_EXAMPLES), help="where the example tool modules live"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    transcript = asyncio.run(_play(args.mode, examples_factory(Path(args.examples))))
    if args.json:
        emit(orjson.dumps(transcript.to_json(), option=orjson.OPT_INDENT_2).decode())
    else:
        emit(render_transcript(transcript))
    return 0


async def _play(mode: ToolMode, make_tools: ToolsFactory) -> Transcript:
    runtime = deno_runtime() if mode != "native" else None
    try:
        return await play_demo(mode, make_tools, runtime)
    finally:
        if runtime is not None:
            await runtime.dispose()


def examples_factory(directory: Path) -> ToolsFactory:
    """The example modules' ``make_tools(root)`` factories, combined into one."""
    if not directory.is_dir():
        raise CliError(f"examples directory not found: {directory} (the demo runs from a source checkout)")
    factories = []
    for name in EXAMPLE_MODULES:
        module = import_module_spec(str(directory / name))
        factory = getattr(module, "make_tools", None)
        if not callable(factory):
            raise CliError(f"{directory / name}: has no make_tools(root) factory")
        factories.append(factory)

    def make_tools(root: Path) -> Sequence[ToolDefinition]:
        tools: list[ToolDefinition] = []
        for factory in factories:
            tools.extend(factory(root))
        return tools

    return make_tools
