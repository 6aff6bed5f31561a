"""A real server for the live-stream tests (streams need real HTTP: an in-memory transport buffers whole responses).

``served(app)`` runs uvicorn in the test's event loop on a free loopback
port; ``Events`` reads server-sent events off a streaming response;
``wait_until`` waits for a condition with a deadline (never a bare sleep as
synchronisation).
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import orjson
import uvicorn

from dsh_tools.store import MemoryStore

TOKEN = "t" * 32
AUTH = {"authorization": f"Bearer {TOKEN}"}


async def wait_until(condition: Callable[[], bool], *, timeout: float = 10.0, what: str = "the condition") -> None:
    """Return once ``condition()`` holds; ``AssertionError`` naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


@asynccontextmanager
async def served(app: Any) -> AsyncIterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 (lifespan on); yields its base URL, then shuts it down."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5))
    task = asyncio.create_task(server.serve(sockets=[listener]))
    await wait_until(lambda: server.started or task.done(), what="uvicorn to start")
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


class Events:
    """The server-sent events of one open stream, read one at a time."""

    def __init__(self, response: httpx2.Response) -> None:
        self._lines = response.aiter_lines()

    async def next(self, *, timeout: float = 10.0) -> tuple[str, str, Any]:
        """The next event: ``(name, id, data as JSON)``; comments (pings) are skipped."""
        fields: dict[str, str] = {}
        async with asyncio.timeout(timeout):
            async for line in self._lines:
                if not line:
                    if "data" in fields:
                        return fields.get("event", "message"), fields.get("id", ""), orjson.loads(fields["data"])
                    continue
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
        raise AssertionError("the stream ended")


class CountingStore(MemoryStore):
    """A memory store that counts every read a page or a stream may make."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.reads: dict[str, int] = {"changes": 0, "journal": 0, "parked": 0, "get_parked": 0}

    def total(self) -> int:
        return sum(self.reads.values())

    async def changes(self, cursor: Any = None) -> Any:
        self.reads["changes"] += 1
        return await super().changes(cursor)

    async def journal(self, **query: Any) -> Any:
        self.reads["journal"] += 1
        return await super().journal(**query)

    async def parked(self, *, agent_id: str | None = None) -> Any:
        self.reads["parked"] += 1
        return await super().parked(agent_id=agent_id)

    async def get_parked(self, approval_id: str) -> Any:
        self.reads["get_parked"] += 1
        return await super().get_parked(approval_id)
