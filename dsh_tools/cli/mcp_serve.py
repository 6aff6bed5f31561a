"""``dsh-tools mcp-serve MODULE[:ATTR]...``: serve some modules' tools to an MCP client over stdio.

Every call the client makes runs through the full pipeline of a booted
context (``--mode code`` serves ``run_code`` with the SDK, on Deno). Point an
MCP client at it, e.g. ``{"command": "dsh-tools", "args": ["mcp-serve",
"my_tools"]}``. Needs the ``mcp`` extra (``pip install 'dsh-tools[mcp]'``).
Standard output is the protocol; diagnostics go to standard error.

A module's ``register(ctx)`` installs its policy along with its tools (the
demo's gate asks before ``write_file``; the client is asked through MCP
elicitation). A module without one is served with no policy at all, and the
command says so on standard error before serving: a client then runs its
tools with nothing between them and the body.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sys

from dsh_tools.boot import boot
from dsh_tools.cli.loading import CliError, LoadedTools, load_tools
from dsh_tools.code_mode.runtime import CodeRuntime
from dsh_tools.context.context import Agent
from dsh_tools.registry.registry import ToolMode

__all__ = ["no_policy_warning", "run", "serve_stdio"]


def run(args: argparse.Namespace) -> int:
    try:
        importlib.import_module("dsh_tools.mcp")
    except ImportError as error:
        raise CliError(str(error)) from None
    loaded = load_tools(args.modules)
    for source in loaded.sources:
        if not source.has_policy_hook:
            print(no_policy_warning(source.label), file=sys.stderr, flush=True)
    asyncio.run(serve_stdio(loaded, mode=args.mode, name=args.name))
    return 0


def no_policy_warning(label: str) -> str:
    """The start-up warning for a tools module served without its own ``register(ctx)``."""
    return (
        f"dsh-tools: warning: {label} defines no register(ctx), so its tools are served with no policy "
        "(no checks, no approval): any MCP client may run them; define register(ctx) to install tools and policy"
    )


async def serve_stdio(loaded: LoadedTools, *, mode: ToolMode, name: str) -> None:
    """Boot a context with ``loaded``'s tools and serve it on this process's stdin/stdout until EOF."""
    from mcp.server.lowlevel.server import NotificationOptions
    from mcp.server.stdio import stdio_server

    from dsh_tools.mcp import serve_mcp

    runtime: CodeRuntime | None = None
    if mode != "native":
        from dsh_tools.cli.runtime import deno_runtime

        runtime = deno_runtime()
    try:
        ctx = boot(mode=mode, code_runtime=runtime)
        loaded.install(ctx)
        server = serve_mcp(ctx, agent=Agent(ctx, name=name), name=name)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options(NotificationOptions()))
    finally:
        if runtime is not None:
            await runtime.dispose()
