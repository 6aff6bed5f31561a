"""The streamable HTTP transport's replies, bounded like stdio's lines (``max_message_bytes``).

The SDK reads a JSON reply whole (``response.aread()``, no bound) and bounds
an SSE event on its own terms (``max_sse_event_size``, 1 MiB by default,
reported as a lost connection). We wrap every response body
(a response hook on the SDK's own client) instead, counting as the bytes
arrive:

* a JSON (or any non-SSE) body: its total size;
* an SSE stream (one response may carry many events for as long as the
  session lives): the bytes since the last event boundary (a blank line).

Past ``max_message_bytes`` the connection is failed (``on_violation``: calls
settle ``MCP_PROTOCOL_ERROR``, as on stdio) and the body stops with
``httpx2.StreamError``, before the SDK has buffered or parsed any of the
excess. The SDK's own SSE bound is set to the same number, so the one knob
means the same on both transports.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Final

import httpx2

__all__ = ["bound_replies"]

_BOUNDARIES: Final = ((b"\r\n\r\n", 4), (b"\n\n", 2), (b"\r\r", 2))


def _after_last_boundary(data: bytes) -> int:
    """The offset just past the last blank line in ``data`` (an SSE event's end), or -1."""
    end = -1
    for mark, width in _BOUNDARIES:
        at = data.rfind(mark)
        if at >= 0:
            end = max(end, at + width)
    return end


class _BoundedBody(httpx2.AsyncByteStream):
    """A response body that fails the connection when one message grows past the bound."""

    def __init__(
        self, inner: httpx2.AsyncByteStream, *, limit: int, events: bool, on_violation: Callable[[str], None]
    ) -> None:
        self._inner = inner
        self._limit = limit
        self._events = events
        self._on_violation = on_violation

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0  # bytes of the message being read: the whole body, or the SSE event since the last blank line
        tail = b""  # an SSE boundary may straddle two chunks
        async for chunk in self._inner:
            if self._events:
                data = tail + chunk
                end = _after_last_boundary(data)
                size = len(data) - end if end >= 0 else size + len(chunk)
                tail = data[-3:]
            else:
                size += len(chunk)
            if size > self._limit:
                kind = "an SSE event" if self._events else "a reply"
                why = f"the server sent {kind} longer than {self._limit} bytes (max_message_bytes={self._limit})"
                self._on_violation(why)
                raise httpx2.StreamError(why)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def bound_replies(
    client: httpx2.AsyncClient, *, max_message_bytes: int, on_violation: Callable[[str], None]
) -> httpx2.AsyncClient:
    """``client`` (the SDK's own, from ``create_mcp_http_client``) with every response body bounded.

    A response hook, not a transport: it wraps the body whatever transport
    carried it (a proxy's from the environment included).
    """

    async def bound(response: httpx2.Response) -> None:
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        events = response.headers.get("content-type", "").startswith("text/event-stream")
        response.stream = _BoundedBody(response.stream, limit=max_message_bytes, events=events, on_violation=on_violation)

    hooks = client.event_hooks
    client.event_hooks = {"request": hooks["request"], "response": [*hooks["response"], bound]}
    return client
