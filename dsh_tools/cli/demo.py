"""``dsh-tools demo [--mode native|code|both] [--language typescript|python] [--json]``: watch the pipeline work.

Plays :mod:`dsh_tools.demo`'s scripted session with the tools shipped in
:mod:`dsh_tools.demo.tools`, confined to the demo's temporary workspace
through their ``make_tools(root)`` factory, so the command works from any
install. Code modes run the program in a real ``DenoCodeRuntime`` (or, with
``--language python``, a ``MontyCodeRuntime``); native mode needs neither.
"""

from __future__ import annotations

import argparse
import asyncio

import orjson

from dsh_tools.cli.output import emit
from dsh_tools.cli.runtime import code_runtime
from dsh_tools.demo import Transcript, play_demo, render_transcript
from dsh_tools.demo.tools import make_tools
from dsh_tools.registry.registry import ToolMode

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    transcript = asyncio.run(_play(args.mode, getattr(args, "language", "typescript")))
    if args.json:
        emit(orjson.dumps(transcript.to_json(), option=orjson.OPT_INDENT_2).decode())
    else:
        emit(render_transcript(transcript))
    return 0


async def _play(mode: ToolMode, language: str = "typescript") -> Transcript:
    runtime = code_runtime(language) if mode != "native" else None
    try:
        return await play_demo(mode, make_tools, runtime)
    finally:
        if runtime is not None:
            await runtime.dispose()
