"""A small MCP server written with the ``mcp`` SDK's ``MCPServer``: what ``mcp_client.py`` connects to.

Run on its own it serves over stdio (``python examples/mcp_server.py``); any
MCP client can use it. Three tools: a weather lookup with a typed result
(``outputSchema``), a unit conversion, and a "delete" the client's policy
refuses.
"""

from __future__ import annotations

from typing import TypedDict

from mcp.server.mcpserver import MCPServer

server = MCPServer("example-weather")

_TEMPERATURES = {"paris": 18, "oslo": 4, "lima": 21}


class Weather(TypedDict):
    city: str
    celsius: int


@server.tool()
def weather(city: str) -> Weather:
    """Today's temperature in a city (paris, oslo or lima)."""
    return {"city": city, "celsius": _TEMPERATURES.get(city.lower(), 15)}


@server.tool()
def to_fahrenheit(celsius: float) -> str:
    """Convert degrees Celsius to Fahrenheit."""
    return f"{celsius * 9 / 5 + 32:.1f}"


@server.tool()
def delete_forecasts(city: str) -> str:
    """Delete every stored forecast of a city."""
    return f"deleted the forecasts of {city}"


if __name__ == "__main__":
    server.run()
