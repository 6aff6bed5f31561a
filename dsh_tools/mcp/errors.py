"""The failures an MCP tool call can end in, each with its own ``code``.

They are ``HarnessError``s, so inside the pipeline they become ``is_error``
results whose ``error`` names the class and the code; a retry plugin can tell
a server that said no (``MCP_TOOL_ERROR``) from one that went away
(``MCP_CONNECTION_LOST``) or a toolset that was closed (``MCP_CLOSED``).
This module imports nothing from the ``mcp`` SDK.
"""

from __future__ import annotations

from dsh_tools.errors import HarnessError

__all__ = ["McpClosedError", "McpConnectionError", "McpProtocolError", "McpToolError"]


class McpToolError(HarnessError):
    """The server ran the tool and reported failure (``isError: true``); the text is the server's."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "MCP_TOOL_ERROR")


class McpClosedError(HarnessError):
    """The toolset was closed (``aclose()`` or its context disposed) before or during the call."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "MCP_CLOSED")


class McpConnectionError(HarnessError):
    """The connection to the server failed or was lost (the server exited, the socket closed)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "MCP_CONNECTION_LOST")


class McpProtocolError(HarnessError):
    """The server answered with a JSON-RPC error or a response the SDK could not accept."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "MCP_PROTOCOL_ERROR")
