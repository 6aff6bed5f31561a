"""``serve_inspector``: the inspector on a bound socket, under uvicorn, until SIGINT or SIGTERM.

Shutting down, every live stream ends (they are
``sse-starlette`` responses, :mod:`.live`) and whatever still holds a
connection after :data:`GRACEFUL_SHUTDOWN_SECONDS` is cut, so an open tab
cannot keep the process alive.
"""

from __future__ import annotations

import socket
from typing import Final

import uvicorn

from dsh_tools.inspector.app import inspector_app
from dsh_tools.store.protocol import CallStore

__all__ = ["GRACEFUL_SHUTDOWN_SECONDS", "serve_inspector"]

GRACEFUL_SHUTDOWN_SECONDS: Final = 5
"""How long a shutdown waits for open requests before it cuts them."""


async def serve_inspector(store: CallStore, listener: socket.socket, *, token: str) -> None:
    """Serve the inspector of ``store`` on ``listener`` (bound) until a signal."""
    config = uvicorn.Config(
        inspector_app(store, token=token), log_level="warning", timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS
    )
    await uvicorn.Server(config).serve(sockets=[listener])
