"""MCP both ways, on the official ``mcp`` SDK (the optional extra ``dsh-tools[mcp]``).

* :func:`mcp_tools` registers an MCP server's tools through a context, so every
  call runs through the pipeline (policy, guards, approval, timeouts, Code
  Mode) and arguments are checked against the server's schema first.
* :func:`serve_mcp` serves the tools an agent sees to any MCP client, each call
  through ``ctx.tools.execute``.

``import dsh_tools`` never imports this package (or the SDK); importing it
without the extra raises an ``ImportError`` that names the extra.
"""

try:
    import mcp as _mcp  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised in a venv without the extra
    raise ImportError("dsh_tools.mcp needs the optional extra: pip install 'dsh-tools[mcp]'") from error

from mcp.client.session import ClientSession
from mcp.client.session_group import StreamableHttpParameters
from mcp.client.stdio import StdioServerParameters

from dsh_tools.mcp.connection import ServerParameters
from dsh_tools.mcp.errors import McpClosedError, McpConnectionError, McpProtocolError, McpToolError
from dsh_tools.mcp.server import serve_mcp
from dsh_tools.mcp.tool import McpTool
from dsh_tools.mcp.toolset import McpToolset, mcp_tools

__all__ = [
    "ClientSession",
    "McpClosedError",
    "McpConnectionError",
    "McpProtocolError",
    "McpTool",
    "McpToolError",
    "McpToolset",
    "ServerParameters",
    "StdioServerParameters",
    "StreamableHttpParameters",
    "mcp_tools",
    "serve_mcp",
]
