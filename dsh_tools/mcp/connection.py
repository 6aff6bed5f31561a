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

:meth:`Connection.request` is where a request's fate is decided (a
``tools/call``, and the ``tools/list`` pages too, so a listing can never wait
on a dead or broken connection): the result, the caller's signal (forwarded
to the server as ``notifications/cancelled`` by cancelling the SDK request),
the connection closing, ending or failing under it, or the asyncio task being
cancelled; each is one ``HarnessError`` with its own code, or the caller's
own cancellation, untouched.

A server that breaks the protocol so that a reply may have been lost (a
message past ``max_message_bytes`` on stdio or HTTP, a line that was meant
as a message but cannot be read) is failed (:meth:`Connection.fail`): every
request in flight, and every later one, settles ``MCP_PROTOCOL_ERROR``, and
the transport is shut down. Waiting for an answer that can no longer come
would hang the caller.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Final, Literal, TypeAlias, TypeVar

import httpx2
import mcp_types as mt
from mcp.client.session import ClientSession, IncomingMessage
from mcp.client.session_group import StreamableHttpParameters
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from dsh_tools.errors import HarnessError, ToolAbortedError, safe_str
from dsh_tools.mcp.errors import McpClosedError, McpConnectionError, McpProtocolError
from dsh_tools.mcp.http import bound_replies
from dsh_tools.mcp.stdio import bounded_stdio_client
from dsh_tools.signals import AbortSignal

__all__ = ["DEFAULT_MAX_MESSAGE_BYTES", "Connection", "ServerParameters", "open_connection", "validation_summary", "wrap_session"]

DEFAULT_MAX_MESSAGE_BYTES: Final = 16 * 1024 * 1024
"""The default bound on one message from a server (a stdio line, an HTTP reply body or SSE event): 16 MiB."""

T = TypeVar("T")
Ending: TypeAlias = tuple[Literal["closed", "lost", "protocol"], str]

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
        self._ended: asyncio.Future[Ending] = loop.create_future()  # resolves with how and why it ended
        self._close_requested = asyncio.Event()
        self._owner: asyncio.Task[None] | None = None
        self._inflight: dict[asyncio.Task[Any], Callable[[], None]] = {}  # calling task -> stop it

    # -- state -------------------------------------------------------------
    @property
    def ended(self) -> bool:
        return self._ended.done()

    def _end(self, how: Literal["closed", "lost", "protocol"], why: str = "") -> None:
        if not self._ended.done():
            self._ended.set_result((how, why))

    def fail(self, why: str) -> None:
        """The server broke the protocol (``why`` says how): end as ``MCP_PROTOCOL_ERROR``, then :meth:`close`."""
        self._end("protocol", why)
        self.close()

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

    # -- requests ------------------------------------------------------------
    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        signal: AbortSignal | None,
        progress: ProgressFnT | None = None,
    ) -> mt.CallToolResult:
        """``tools/call``; every way it can fail is a ``HarnessError`` with its own code (see :meth:`request`).

        ``progress`` hears the server's progress notifications for this call
        (the SDK sends a ``progressToken`` when it is given).
        """
        return await self.request(
            f'MCP tool "{name}"', lambda session: session.call_tool(name, arguments, progress_callback=progress), signal
        )

    async def request(
        self, subject: str, send: Callable[[ClientSession], Awaitable[T]], signal: AbortSignal | None = None
    ) -> T:
        """Run ``send(session)``; every way it can fail is a ``HarnessError`` naming ``subject``.

        The request runs in the calling task (an extra task per call would
        cost more than the whole pipeline). An abort of ``signal``, or
        :meth:`close` / :meth:`fail`, cancels that task while it waits on the
        SDK, which sends ``notifications/cancelled``; the cancellation is then
        taken back (``uncancel``) and reported as ``ToolAbortedError`` /
        ``McpClosedError`` / ``McpProtocolError``. A cancellation from anyone
        else propagates untouched.
        """
        session = self.session
        if session is None or self._ended.done():
            raise self._ended_error(subject)
        if signal is not None and signal.aborted:
            raise ToolAbortedError(f"{subject} was cancelled before it was sent")
        task = asyncio.current_task()
        assert task is not None
        stopped: list[HarnessError] = []

        def stop(error: HarnessError) -> None:
            if not stopped:
                stopped.append(error)
                task.cancel()

        self._inflight[task] = lambda: stop(self._ended_error(subject))
        remove = (
            signal.add_listener(lambda _: stop(ToolAbortedError(f"{subject} was cancelled; the server was told")))
            if signal is not None
            else None
        )
        try:
            return await send(session)
        except asyncio.CancelledError:
            if stopped and task.uncancel() == 0:
                raise stopped[0] from None
            raise
        except Exception as error:  # noqa: BLE001 - classified into our codes
            raise self._failure(subject, error) from error
        finally:
            self._inflight.pop(task, None)
            if remove is not None:
                remove()

    def _ended_error(self, subject: str) -> HarnessError:
        how, why = self._ended.result() if self._ended.done() else ("closed", "")
        if how == "protocol":
            return McpProtocolError(f"{subject}: the connection to {self.label} was closed: {why}")
        if how == "lost":
            return McpConnectionError(f"{subject}: the connection to {self.label} was lost ({why})")
        return McpClosedError(f"{subject}: the connection to {self.label} was closed")

    def _failure(self, subject: str, error: BaseException) -> HarnessError:
        if isinstance(error, HarnessError):
            return error
        if isinstance(error, MCPError):
            if error.code == mt.CONNECTION_CLOSED:
                self._end("lost", f"server closed the connection: {error.message}")
                return self._ended_error(subject)
            return McpProtocolError(f"{subject}: server error {error.code}: {error.message}")
        if isinstance(error, ValidationError):
            return McpProtocolError(f"{subject}: the server sent a malformed result: {validation_summary(error)}")
        if isinstance(error, (OSError, EOFError)) or type(error).__module__.startswith(("anyio", "httpx")):
            self._end("lost", f"{type(error).__name__}: {safe_str(error)}")
            return self._ended_error(subject)
        return McpProtocolError(f"{subject}: {type(error).__name__}: {_first_line(error)}")

    # -- owning a connection -------------------------------------------------
    async def _transport(
        self, params: ServerParameters, stack: contextlib.AsyncExitStack, max_message_bytes: int
    ) -> contextlib.AbstractAsyncContextManager[Any]:
        if isinstance(params, StdioServerParameters):
            return bounded_stdio_client(params, max_message_bytes=max_message_bytes, on_violation=self.fail)
        timeout = httpx2.Timeout(params.timeout, read=params.sse_read_timeout)
        client = bound_replies(
            create_mcp_http_client(headers=params.headers, timeout=timeout),
            max_message_bytes=max_message_bytes,
            on_violation=self.fail,
        )
        await stack.enter_async_context(client)
        return streamable_http_client(
            params.url,
            http_client=client,
            terminate_on_close=params.terminate_on_close,
            max_sse_event_size=max_message_bytes,
        )

    async def _own(self, params: ServerParameters, ready: asyncio.Future[None], max_message_bytes: int) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(await self._transport(params, stack, max_message_bytes))
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self.dispatch_message)
                )
                await session.initialize()
                self.session = session
                ready.set_result(None)
                await self._close_requested.wait()
        except BaseException as error:  # noqa: BLE001 - the owner reports, it never crashes the loop
            if not ready.done():
                ready.set_exception(self._connect_failure(error))
            self._end("lost", f"{type(error).__name__}: {_first_line(error)}")
            if not isinstance(error, Exception):
                raise
        finally:
            self._end("closed")
            for stop in list(self._inflight.values()):
                stop()  # a call the SDK would leave waiting on a dead session

    def _connect_failure(self, error: BaseException) -> Exception:
        """Why connecting failed: the server's protocol breach (which cancelled us), else what was raised."""
        if self._ended.done() and self._ended.result()[0] == "protocol":
            return self._ended_error("initialize")
        return error if isinstance(error, Exception) else McpConnectionError("cancelled")


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


def _label(params: ServerParameters) -> str:
    if isinstance(params, StdioServerParameters):
        return f"MCP server `{' '.join([params.command, *params.args])}`"
    return f"MCP server {params.url}"


async def open_connection(params: ServerParameters, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> Connection:
    """Connect and initialize; a failure closes what was opened and raises ``McpConnectionError``
    (``McpProtocolError`` when the server broke the protocol while connecting)."""
    connection = Connection(_label(params))
    ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    owner = connection._own(params, ready, max_message_bytes)
    connection._owner = asyncio.create_task(owner, name=f"dsh-tools {connection.label}")
    try:
        await asyncio.shield(ready)
    except asyncio.CancelledError:
        ready.cancel()  # nobody will read how connecting ended: the owner must not report it there
        await connection.aclose()
        raise
    except McpProtocolError:
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
