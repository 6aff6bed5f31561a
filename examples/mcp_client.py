"""An MCP server's tools under our policy, and a Code Mode program over them.

Run it: ``python examples/mcp_client.py`` (needs ``dsh-tools[mcp]``; no
network: it starts ``examples/mcp_server.py`` itself, over stdio, and runs the
program in a real Deno sandbox).

What it shows, in order:

1. ``mcp_tools`` connects, lists the server's tools and registers each, under
   a ``wx_`` prefix, through the context (so they die with it);
2. a ``tools/pre-execute`` policy denies the server's ``delete_forecasts``
   tool: the server never sees that call;
3. arguments are checked against the server's ``inputSchema`` before sending;
4. a Code Mode program calls the MCP tools like any other binding: a tool
   whose ``outputSchema`` fits the supported subset is typed, so its binding
   resolves to the server's ``structuredContent`` (the SDK declares its
   type), and the denied one rejects inside the program.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from dsh_tools import Agent, Deny, JsonValue, PreNext, PreToolDecision, ToolExecution, ToolExecutionInput, boot
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.mcp import StdioServerParameters, mcp_tools

SERVER = StdioServerParameters(command=sys.executable, args=[str(Path(__file__).with_name("mcp_server.py"))])

PROGRAM = """
const weather = await tools.wx_weather({ city: "oslo" });  // typed: resolves to { city, celsius }
const { result: fahrenheit } = await tools.wx_to_fahrenheit({ celsius: weather.celsius });
try {
  await tools.wx_delete_forecasts({ city: "oslo" });
} catch (error) {
  console.log(`refused: ${(error as Error).message}`);
}
return `${weather.city}: ${weather.celsius}°C = ${fahrenheit}°F`;
"""


async def no_deleting(execution: ToolExecution, next: PreNext) -> PreToolDecision:  # noqa: A002
    """The policy: nothing named ``*delete*`` runs, wherever it comes from."""
    if "delete" in execution.name:
        return Deny(f"{execution.name} is not allowed here")
    return await next()


async def main() -> list[str]:
    """Run the walkthrough; returns the lines it printed."""
    lines: list[str] = []
    runtime = DenoCodeRuntime()
    try:
        ctx = boot(mode="both", code_runtime=runtime)
        agent = Agent(ctx, name="forecaster")
        ctx.on("tools/pre-execute", no_deleting)
        async with await mcp_tools(ctx, SERVER, prefix="wx") as toolset:
            lines.append(f"registered: {', '.join(toolset.names)}")

            async def call(name: str, arguments: JsonValue) -> str:
                result = await ctx.tools.execute(ToolExecutionInput(call_id=name, name=name, arguments=arguments, agent=agent))
                return result.text

            lines.append(f"weather: {await call('wx_weather', {'city': 'paris'})}".replace("\n", " "))
            lines.append(f"delete: {await call('wx_delete_forecasts', {'city': 'paris'})}")
            lines.append(f"bad arguments: {await call('wx_to_fahrenheit', {'celsius': 'warm'})}")
            lines.append(f"program:\n{await call('run_code', {'code': PROGRAM})}")
    finally:
        await runtime.dispose()
    for line in lines:
        print(line)
    return lines


if __name__ == "__main__":
    asyncio.run(main())
