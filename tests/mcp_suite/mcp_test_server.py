"""A small MCP server written with the ``mcp`` SDK, for the client tests (stdio or HTTP).

Run as a script it serves over stdio (``--with-run-code`` adds a tool named
``run_code``, for the name-clash tests); ``build_server()`` is the same server
for the streamable HTTP tests, served in-process. Each tool exercises one
behaviour or fault the client must handle.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import mcp_types as mt
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

SUM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"sum": {"type": "integer"}},
    "required": ["sum"],
}
EXOTIC_INPUT: dict[str, Any] = {
    "type": "object",
    "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}},
    "properties": {
        "when": {"type": "string", "format": "date-time", "pattern": "^2"},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "kind": {"type": ["string", "null"], "enum": ["a", "b", None]},
        "point": {"$ref": "#/$defs/Point"},
    },
    "required": ["when"],
    "additionalProperties": False,
}
EXOTIC_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"type": ["string", "integer"]}, "minItems": 1}},
}


def _tool(name: str, description: str, properties: dict[str, Any] | None = None, **extra: Any) -> mt.Tool:
    schema = {"type": "object", "properties": properties or {}, "required": list(properties or {})}
    return mt.Tool(name=name, description=description, input_schema=extra.pop("input_schema", schema), **extra)


BASE_TOOLS = [
    _tool("echo", "Echo the text back.", {"text": {"type": "string"}}),
    _tool("add", "Add two integers.", {"a": {"type": "integer"}, "b": {"type": "integer"}}, output_schema=SUM_SCHEMA),
    _tool("lie", "Structured content that breaks its own output schema.", output_schema=SUM_SCHEMA),
    _tool("media", "Return one block of every content kind."),
    _tool("fail", "Always reports an error."),
    _tool("hang", "Never answers (until cancelled)."),
    _tool("hang_started", "Waits until a hang call is running on the server."),
    _tool("cancelled_seen", "Whether a hang call was cancelled by the client."),
    _tool("die", "Exits the server process mid-call."),
    _tool("malformed", "Returns content that is not MCP."),
    _tool("exotic", "A schema outside the supported subset.", input_schema=EXOTIC_INPUT, output_schema=EXOTIC_OUTPUT),
    _tool("grow", "Adds the tool `extra` and announces tools/list_changed."),
]
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def build_server(*, with_run_code: bool = False) -> Server[Any]:
    tools = list(BASE_TOOLS)
    if with_run_code:
        tools.append(_tool("run_code", "A server tool that clashes with Code Mode.", {"code": {"type": "string"}}))
    # One event each, replaced after being reported, so every test sees its own call.
    events = {"started": anyio.Event(), "cancelled": anyio.Event()}

    async def report(kind: str) -> mt.CallToolResult:
        with anyio.move_on_after(5):
            await events[kind].wait()
        seen = events[kind].is_set()
        events[kind] = anyio.Event()
        return mt.CallToolResult(content=[mt.TextContent(text="yes" if seen else "no")])

    async def list_tools(ctx: ServerRequestContext[Any], params: mt.PaginatedRequestParams | None) -> mt.ListToolsResult:
        return mt.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: mt.CallToolRequestParams) -> Any:
        args = params.arguments or {}
        name = params.name
        if name == "echo":
            return mt.CallToolResult(content=[mt.TextContent(text=str(args.get("text")))])
        if name == "add":
            total = int(args["a"]) + int(args["b"])
            return mt.CallToolResult(content=[mt.TextContent(text=f'{{"sum": {total}}}')], structured_content={"sum": total})
        if name == "lie":
            return mt.CallToolResult(content=[mt.TextContent(text="?")], structured_content={"sum": "three"})
        if name == "media":
            return mt.CallToolResult(
                content=[
                    mt.TextContent(text="caption"),
                    mt.ImageContent(data=PNG, mime_type="image/png"),
                    mt.EmbeddedResource(resource=mt.TextResourceContents(uri="file:///notes.txt", text="notes")),
                    mt.EmbeddedResource(
                        resource=mt.BlobResourceContents(uri="file:///a.pdf", mime_type="application/pdf", blob="AAAA")
                    ),
                    mt.ResourceLink(name="readme", uri="file:///README.md"),
                    mt.AudioContent(data="AAAA", mime_type="audio/wav"),
                ]
            )
        if name == "fail":
            return mt.CallToolResult(content=[mt.TextContent(text="it broke")], is_error=True)
        if name == "hang":
            events["started"].set()
            try:
                await anyio.sleep_forever()
            finally:
                events["cancelled"].set()
        if name == "hang_started":
            return await report("started")
        if name == "cancelled_seen":
            return await report("cancelled")
        if name == "die":
            os._exit(3)
        if name == "malformed":
            return {"content": [{"type": "text"}], "isError": "maybe"}
        if name == "exotic":
            return mt.CallToolResult(content=[mt.TextContent(text="ok")], structured_content={"items": ["a", 1]})
        if name == "grow":
            if not any(tool.name == "extra" for tool in tools):
                tools.append(_tool("extra", "Appeared after grow."))
            await ctx.session.send_tool_list_changed()
            return mt.CallToolResult(content=[mt.TextContent(text="grown")])
        if name in ("extra", "run_code"):
            return mt.CallToolResult(content=[mt.TextContent(text=name)])
        raise ValueError(f"unknown tool {name}")

    return Server("dsh-test-server", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    server = build_server(with_run_code="--with-run-code" in sys.argv)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: the client waits for this process to exit
