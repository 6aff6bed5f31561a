"""``dsh-tools inspect --store URL [--host 127.0.0.1] [--port 8765]``: serve the inspector page.

It prints the page's URL with a fresh random token (the only way in), binds
to loopback unless told otherwise, and says loudly when it is told otherwise:
whoever reaches the page with the token can approve what agents do.
SIGINT or SIGTERM stops it, open pages and all.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import secrets
import socket
import sys

from dsh_tools.cli.errors import CliError
from dsh_tools.cli.store_access import opened_store

__all__ = ["is_loopback", "run"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    try:
        from dsh_tools.inspector.server import serve_inspector
    except ImportError:
        raise CliError("the inspector needs its extra: pip install 'dsh-tools[inspector]'") from None
    if not is_loopback(args.host):
        print(
            f"WARNING: the inspector binds to {args.host}, not loopback: anyone who can reach it and has the "
            "URL below can approve what your agents do. Put it behind TLS and your own access control.",
            file=sys.stderr,
            flush=True,
        )
    store = opened_store(args.store)
    token = secrets.token_urlsafe(24)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((args.host, args.port))
    except OSError as error:
        raise CliError(f"cannot listen on {args.host}:{args.port}: {error}") from None
    port = listener.getsockname()[1]
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    print(f"dsh-tools inspector: http://{shown}:{port}/?token={token}", flush=True)

    async def serve() -> None:
        try:
            await serve_inspector(store, listener, token=token)
        finally:
            await store.aclose()

    asyncio.run(serve())
    return 0
