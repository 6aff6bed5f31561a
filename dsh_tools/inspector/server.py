"""``serve_inspector``: the inspector on a bound socket, under uvicorn, until SIGINT or SIGTERM.

It is told when the server accepts connections (``on_serving``), so
``dsh-tools inspect`` prints its URL only once that URL answers, never while
uvicorn is still starting. Shutting down, every live stream ends (they are
``sse-starlette`` responses, :mod:`.live`) and whatever still holds a
connection after :data:`GRACEFUL_SHUTDOWN_SECONDS` is cut, so an open tab
cannot keep the process alive.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Final

import uvicorn

from dsh_tools.inspector.app import inspector_app
from dsh_tools.call_store import CallStore

__all__ = ["GRACEFUL_SHUTDOWN_SECONDS", "serve_inspector"]

GRACEFUL_SHUTDOWN_SECONDS: Final = 5
"""How long a shutdown waits for open requests before it cuts them."""


class _Server(uvicorn.Server):
    """uvicorn's server, saying when its startup is done and it accepts connections."""

    def __init__(self, config: uvicorn.Config, on_serving: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_serving = on_serving

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self._on_serving()


async def serve_inspector(store: CallStore, listener: socket.socket, *, token: str, on_serving: Callable[[], None]) -> None:
    """Serve the inspector of ``store`` on ``listener`` (bound) until a signal; ``on_serving`` once it accepts connections."""
    config = uvicorn.Config(
        inspector_app(store, token=token), log_level="warning", timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS
    )
    await _Server(config, on_serving).serve(sockets=[listener])
