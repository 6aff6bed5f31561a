"""One MCP client connection: opened, used and closed without leaking a task or a process.

The SDK's transports and ``ClientSession`` are anyio context managers, and an
anyio scope must be exited by the task that entered it. A toolset is closed
from wherever its context is disposed, so a connection we open is *owned by a
task of its own*: that task enters the transport and the session, reports
ready, waits to be told to close, and exits them itself. ``close()`` (sync,
what a disposer can call) asks it to; ``aclose()`` also waits until the
transport is down and a stdio server process has been reaped.

A ``ClientSession`` handed in by the caller stays the caller's: we never exit
it, we only stop using it.

:meth:`Connection.call` is where a call's fate is decided: the result, the
caller's signal (forwarded to the server as ``notifications/cancelled`` by
cancelling the SDK request), the connection closing or ending under it, or
the asyncio task being cancelled; each is one ``HarnessError`` with its own
code, or the caller's own cancellation, untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import httpx2
import mcp_types as mt
from mcp.client.session import ClientSession, IncomingMessage
from mcp.client.session_group import StreamableHttpParameters
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from dsh_tools.errors import HarnessError, ToolAbortedError, safe_str
from dsh_tools.mcp.errors import McpClosedError, McpConnectionError, McpProtocolError
from dsh_tools.signals import AbortSignal

__all__ = ["Connection", "ServerParameters", "open_connection", "validation_summary", "wrap_session"]

ServerParameters: TypeAlias = StdioServerParameters | StreamableHttpParameters
"""How to reach a server we connect to ourselves (the SDK's own parameter models)."""

MessageHook = Callable[[IncomingMessage], Awaitable[None]]


class Connection:
    """A live ``ClientSession`` plus the knowledge of whether it is still usable."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.session: ClientSession | None = None
        self.on_message: MessageHook | None = None
        loop = asyncio.get_running_loop()
        self._ended: asyncio.Future[str] = loop.create_future()  # resolves with why it ended
        self._close_requested = asyncio.Event()
        self._owner: asyncio.Task[None] | None = None
        self._inflight: dict[asyncio.Task[Any], Callable[[], None]] = {}  # calling task -> stop it

    # -- state -------------------------------------------------------------
    @property
    def ended(self) -> bool:
        return self._ended.done()

    def _end(self, why: str) -> None:
        if not self._ended.done():
            self._ended.set_result(why)

    def close(self) -> None:
        """Stop using the session, stop calls in flight, and ask the owner task to shut it down. Sync, idempotent.

        An owner still connecting (a server that never answers ``initialize``)
        is cancelled instead: it would not look at the request until connected.
        """
        self._end("closed")
        for stop in list(self._inflight.values()):
            stop()
        self._close_requested.set()
        owner = self._owner
        if self.session is None and owner is not None and not owner.done():
            owner.cancel()

    async def aclose(self) -> None:
        """:meth:`close`, then wait until the transport is down (the server process reaped)."""
        self.close()
        if self._owner is not None:
            await asyncio.gather(asyncio.shield(self._owner), return_exceptions=True)

    async def dispatch_message(self, message: IncomingMessage) -> None:
        """The session's ``message_handler``: forwards to the toolset's hook."""
        hook = self.on_message
        if hook is not None:
            await hook(message)

    # -- calls -------------------------------------------------------------
    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        signal: AbortSignal | None,
        progress: ProgressFnT | None = None,
    ) -> mt.CallToolResult:
        """``tools/call``; every way it can fail is a ``HarnessError`` with its own code.

        ``progress`` hears the server's progress notifications for this call
        (the SDK sends a ``progressToken`` when it is given).

        The request runs in the calling task (an extra task per call would
        cost more than the whole pipeline). An abort of ``signal``, or
        :meth:`close`, cancels that task while it waits on the SDK, which
        sends ``notifications/cancelled``; the cancellation is then taken back
        (``uncancel``) and reported as ``ToolAbortedError`` / ``McpClosedError``.
        A cancellation from anyone else propagates untouched.
        """
        session = self.session
        if session is None or self._ended.done():
            raise self._ended_error(name)
        if signal is not None and signal.aborted:
            raise ToolAbortedError(f'MCP call "{name}" was cancelled before it was sent')
        task = asyncio.current_task()
        assert task is not None
        stopped: list[HarnessError] = []

        def stop(error: HarnessError) -> None:
            if not stopped:
                stopped.append(error)
                task.cancel()

        self._inflight[task] = lambda: stop(self._ended_error(name))
        remove = (
            signal.add_listener(lambda _: stop(ToolAbortedError(f'MCP call "{name}" was cancelled; the server was told')))
            if signal is not None
            else None
        )
        try:
            return await session.call_tool(name, arguments, progress_callback=progress)
        except asyncio.CancelledError:
            if stopped and task.uncancel() == 0:
                raise stopped[0] from None
            raise
        except Exception as error:  # noqa: BLE001 - classified into our codes
            raise self._failure(name, error) from error
        finally:
            self._inflight.pop(task, None)
            if remove is not None:
                remove()

    def _ended_error(self, name: str) -> HarnessError:
        why = self._ended.result() if self._ended.done() else "closed"
        if why == "closed":
            return McpClosedError(f'MCP tool "{name}": the connection to {self.label} was closed')
        return McpConnectionError(f'MCP tool "{name}": the connection to {self.label} was lost ({why})')

    def _failure(self, name: str, error: BaseException) -> HarnessError:
        if isinstance(error, HarnessError):
            return error
        if isinstance(error, MCPError):
            if error.code == mt.CONNECTION_CLOSED:
                self._end(f"server closed the connection: {error.message}")
                return self._ended_error(name)
            return McpProtocolError(f'MCP tool "{name}": server error {error.code}: {error.message}')
        if isinstance(error, ValidationError):
            return McpProtocolError(f'MCP tool "{name}": the server sent a malformed result: {validation_summary(error)}')
        if isinstance(error, (OSError, EOFError)) or type(error).__module__.startswith(("anyio", "httpx")):
            self._end(f"{type(error).__name__}: {safe_str(error)}")
            return self._ended_error(name)
        return McpProtocolError(f'MCP tool "{name}": {type(error).__name__}: {_first_line(error)}')

    # -- owning a connection -------------------------------------------------
    async def _own(self, params: ServerParameters, ready: asyncio.Future[None]) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(await _transport(params, stack))
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self.dispatch_message)
                )
                await session.initialize()
                self.session = session
                ready.set_result(None)
                await self._close_requested.wait()
        except BaseException as error:  # noqa: BLE001 - the owner reports, it never crashes the loop
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else McpConnectionError("cancelled"))
            self._end(f"{type(error).__name__}: {_first_line(error)}")
            if not isinstance(error, Exception):
                raise
        finally:
            self._end("closed")
            for stop in list(self._inflight.values()):
                stop()  # a call the SDK would leave waiting on a dead session


def validation_summary(error: ValidationError) -> str:
    """The first problem pydantic found, and how many there were (the full dump is pages long)."""
    problems = error.errors()
    if not problems:
        return _first_line(error)
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "(root)"
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def _first_line(error: BaseException) -> str:
    text = safe_str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


async def _transport(
    params: ServerParameters, stack: contextlib.AsyncExitStack
) -> contextlib.AbstractAsyncContextManager[Any]:
    if isinstance(params, StdioServerParameters):
        return stdio_client(params)
    timeout = httpx2.Timeout(params.timeout, read=params.sse_read_timeout)
    client = await stack.enter_async_context(create_mcp_http_client(headers=params.headers, timeout=timeout))
    return streamable_http_client(params.url, http_client=client, terminate_on_close=params.terminate_on_close)


def _label(params: ServerParameters) -> str:
    if isinstance(params, StdioServerParameters):
        return f"MCP server `{' '.join([params.command, *params.args])}`"
    return f"MCP server {params.url}"


async def open_connection(params: ServerParameters) -> Connection:
    """Connect and initialize; a failure closes what was opened and raises ``McpConnectionError``."""
    connection = Connection(_label(params))
    ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    connection._owner = asyncio.create_task(connection._own(params, ready), name=f"dsh-tools {connection.label}")
    try:
        await asyncio.shield(ready)
    except asyncio.CancelledError:
        ready.cancel()  # nobody will read how connecting ended: the owner must not report it there
        await connection.aclose()
        raise
    except Exception as error:  # noqa: BLE001 - report the cause with the server named
        await connection.aclose()
        raise McpConnectionError(f"cannot connect to {connection.label}: {type(error).__name__}: {_first_line(error)}") from error
    return connection


def wrap_session(session: ClientSession) -> Connection:
    """A connection over the caller's initialized session (which stays the caller's to close)."""
    connection = Connection("the MCP server")
    connection.session = session
    return connection
