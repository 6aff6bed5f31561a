"""A tool's own ``meta["spilled"]`` is a payload like any other: the journal's rows stay bounded.

The registry writes ``meta["spilled"] = {"locator", "bytes", "characters"}``
when it cuts a result, and a row shows the sizes beside its outcome. But a
tool's body writes ``meta`` too (``ToolOutput(meta=...)``), so a row must
take only the sizes the registry writes (integers), never a tool's value
whole: every other payload reaches the page as a preview past 16 KB.
"""

from __future__ import annotations

import httpx2

from dsh_tools.inspector import inspector_app
from dsh_tools.store import CallRecord, MemoryStore

TOKEN = "t" * 32
AUTH = {"authorization": f"Bearer {TOKEN}"}


async def test_a_forged_spilled_size_does_not_ride_whole_in_every_row() -> None:
    big = "x" * (4 * 1024 * 1024)
    roomy = MemoryStore(max_value_bytes=64 * 1024 * 1024)  # a store that keeps the tool's meta whole
    forged = {"spilled": {"bytes": big, "characters": [big], "locator": None}}
    await roomy.write([CallRecord("r1", "c1", "a1", "liar", {}, "ok", 1.0, meta=forged)], [])
    transport = httpx2.ASGITransport(app=inspector_app(roomy, token=TOKEN))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
        rows = await client.get("/api/journal", headers=AUTH)
        page = await client.get("/", headers=AUTH)
    assert len(rows.content) < 64 * 1024 and len(page.content) < 256 * 1024
    (row,) = rows.json()
    assert row["spilled"] == {"bytes": None, "characters": None, "kept": False}
