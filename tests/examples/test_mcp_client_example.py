"""examples/mcp_client.py runs as documented: its own server, a Deny policy, a Code Mode program (real Deno)."""

from __future__ import annotations

from examples.mcp_client import main
from process_checks import child_pids


async def test_the_mcp_client_example_runs() -> None:
    before = child_pids()
    lines = await main()
    assert child_pids() <= before  # the server process and Deno are gone
    assert lines[0] == "registered: wx_weather, wx_to_fahrenheit, wx_delete_forecasts"
    assert '"celsius": 18' in lines[1]
    assert lines[2] == "delete: Error: wx_delete_forecasts is not allowed here"
    assert lines[3] == "bad arguments: Error: invalid arguments: celsius: expected number, got string"
    assert lines[4] == "program:\nrefused: wx_delete_forecasts is not allowed here\noslo: 4°C = 39.2°F"
