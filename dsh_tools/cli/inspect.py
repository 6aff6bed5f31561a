"""``dsh-tools inspect --store URL [--host 127.0.0.1] [--port 8765]``: serve the inspector page.

It connects to the store first (an unreachable one is one clean line and
exit status 2, not a server answering 500), binds, and prints the page's URL
with a fresh random token (the only way in) once the server accepts
connections. It binds to loopback unless told otherwise, and says loudly
when it is told otherwise: whoever reaches the page with the token can
approve what agents do. SIGINT or SIGTERM stops it, open pages and all
(Ctrl+C exits with status 130, without a traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import secrets
import socket
import sys

from dsh_tools.cli.errors import CliError
from dsh_tools.cli.store_access import store_session

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

    async def serve() -> None:
        async with store_session(args.store) as store:
            listener = _bind(args.host, args.port)
            token = secrets.token_urlsafe(24)
            shown = f"[{args.host}]" if listener.family == socket.AF_INET6 else args.host
            url = f"http://{shown}:{listener.getsockname()[1]}/?token={token}"
            await serve_inspector(
                store, listener, token=token, on_serving=lambda: print(f"dsh-tools inspector: {url}", flush=True)
            )

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:  # Ctrl+C: the server already stopped cleanly; no traceback for the usual way out
        return 130
    return 0


def _bind(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (``CliError`` when it cannot be)."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise CliError(f"cannot listen on {host}:{port}: {error}") from None
    return listener
