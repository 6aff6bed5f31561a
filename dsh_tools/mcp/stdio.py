"""The stdio transport, with a reader that is linear in what the server writes and bounded per line.

The SDK's ``stdio_client`` reads the server's stdout as text chunks and, for
every chunk, re-joins the whole unfinished line with it and splits it again:
one line of *n* bytes costs O(n²/chunk) time on the event loop (a 40 MB line
is about 19 s of CPU, and every call on the connection queues behind it), and
a line has no bound at all. A message it cannot parse (JSON nested past
pydantic's limit) is logged and dropped, so the request it answered waits for
ever.

So we keep the SDK's process handling (spawn in a new session, the spec's
shutdown sequence: close stdin, wait, kill the tree, reap) by reusing its
helpers, and replace only the reader:

* bytes are scanned once for newlines; a line's pieces are joined once, when
  it ends;
* a line longer than ``max_message_bytes`` stops reading at once: the rest is
  drained unread, and ``on_violation`` is told, which fails the connection
  with ``MCP_PROTOCOL_ERROR`` (see :meth:`~dsh_tools.mcp.connection.Connection.fail`);
* a line that starts like a JSON-RPC message (``{`` or ``[``) but cannot be
  read is a lost reply, and fails the connection the same way; any other line
  (a stray ``print`` the spec forbids but servers do) is logged and skipped,
  as the SDK does.

The helpers are private names of the pinned SDK (``mcp.client.stdio``); the
suite's stdio tests exercise every one of them.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager

import anyio
import anyio.lowlevel
import mcp_types as types
from anyio.abc import ByteReceiveStream
from mcp.client._transport import TransportStreams
from mcp.client.stdio import (
    _WRITER_FLUSH_TIMEOUT,
    StdioServerParameters,
    _aclose_all,
    _create_platform_compatible_process,
    _drain_stdout,
    _get_executable_command,
    _stop_server_process,
    get_default_environment,
)
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["bounded_stdio_client", "read_lines"]

logger = logging.getLogger("dsh_tools.mcp")


class LineTooLong(Exception):
    """A line grew past the bound before it ended."""


async def read_lines(stream: ByteReceiveStream, limit: int) -> AsyncIterator[bytes]:
    """The lines of ``stream`` (without ``\\n``), each at most ``limit`` bytes, else ``LineTooLong``.

    Linear: every byte is scanned for a newline once and copied once more
    when its line is joined.
    """
    pieces: list[bytes] = []
    size = 0
    async for chunk in stream:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            size += end - start
            if size > limit:
                raise LineTooLong(f"a line longer than {limit} bytes")
            pieces.append(chunk[start:end])
            yield pieces[0] if len(pieces) == 1 else b"".join(pieces)
            pieces.clear()
            size = 0
            start = end + 1
        if start < len(chunk):
            size += len(chunk) - start
            if size > limit:
                raise LineTooLong(f"a line longer than {limit} bytes")
            pieces.append(chunk[start:] if start else chunk)


def parse_line(line: bytes, params: StdioServerParameters) -> SessionMessage | str | None:
    """One line as a message; ``None`` for noise to skip; a text saying why for a message that cannot be read."""
    try:
        text = line.decode(params.encoding, params.encoding_error_handler)
    except UnicodeDecodeError as error:
        return f"a line that is not {params.encoding}: {error.reason}"
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as error:
        stripped = text.strip()
        if not stripped:
            return None  # a blank line carries nothing
        if not stripped.startswith(("{", "[")):
            logger.warning("an MCP server wrote a line that is not JSON-RPC to stdout; skipped: %.200r", text)
            return None
        return f"a message that cannot be read ({_first_problem(error)})"


def _first_problem(error: ValueError) -> str:
    """pydantic's first complaint (without the input it echoes, which may be megabytes)."""
    if isinstance(error, ValidationError):
        problems = error.errors(include_input=False, include_url=False)
        if problems:
            return str(problems[0].get("msg", "invalid"))
    return type(error).__name__


@asynccontextmanager
async def bounded_stdio_client(
    params: StdioServerParameters, *, max_message_bytes: int, on_violation: Callable[[str], None]
) -> AsyncGenerator[TransportStreams, None]:
    """``mcp.client.stdio.stdio_client`` with a linear, bounded reader (see the module docstring).

    ``on_violation(why)`` is called once when the server breaks the bound or
    sends an unreadable message; reading then stops for good.
    """
    command = await _get_executable_command(params.command)
    process = await _create_platform_compatible_process(
        command=command, args=params.args, env=get_default_environment() | (params.env or {}), cwd=params.cwd
    )
    # As in the SDK: no await between the spawn and entering the task group.
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    async def stdout_reader() -> None:
        assert process.stdout is not None
        try:
            async with read_stream_writer:
                try:
                    async for line in read_lines(process.stdout, max_message_bytes):
                        message = parse_line(line, params)
                        if isinstance(message, str):
                            on_violation(f"the server sent {message}")
                            return
                        if message is not None:
                            await read_stream_writer.send(message)
                except LineTooLong as error:
                    on_violation(f"the server sent {error} (max_message_bytes={max_message_bytes})")
                finally:
                    await _drain_stdout(process)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError):
            pass  # our own shutdown, or the session gone: the session sees the stream close

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_stream_reader:
                async for session_message in write_stream_reader:
                    json = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((json + "\n").encode(params.encoding, params.encoding_error_handler))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_stream_writer.aclose()  # the session sees the end instead of waiting
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()  # the reader drains, so a server blocked on stdout can read stdin and exit
        write_stream.close()
        with anyio.move_on_after(_WRITER_FLUSH_TIMEOUT):
            await writer_done.wait()
        await _stop_server_process(process)
        await _aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # the process must not leak under a cancelled caller
                await shutdown()
            tg.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
