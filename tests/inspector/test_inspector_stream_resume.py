"""Where a reconnecting page asks its stream to resume (``Last-Event-ID`` or ``?since=``) is untrusted text.

An id of this server's epoch whose number is not one the stream could have
sent (a superscript digit, which ``str.isdigit`` accepts and ``int`` refuses;
more digits than ``int`` will parse) must get a ``reset``, like any other id
the stream cannot resume from, never an exception inside the stream.
"""

from __future__ import annotations

import urllib.parse

import httpx2
import pytest

from dsh_tools.inspector import inspector_app

from live_helpers import AUTH, TOKEN, CountingStore, Events, served


@pytest.mark.parametrize("number", ["\u00b2", "\u2460", "9" * 5000])
async def test_a_resume_id_whose_number_is_no_number_gets_a_reset(number: str) -> None:
    store = CountingStore()
    app = inspector_app(store, token=TOKEN, poll_seconds=0.02)
    limits = httpx2.Limits(max_connections=10, max_keepalive_connections=0)
    async with served(app) as base, httpx2.AsyncClient(base_url=base, headers=AUTH, limits=limits, timeout=30) as http:
        async with http.stream("GET", "/api/events") as keeper:
            _, seen, _ = await Events(keeper).next()  # the watcher's epoch, as a page learns it
            epoch = seen.partition("-")[0]
            since = urllib.parse.quote(f"{epoch}-{number}")
            async with http.stream("GET", f"/api/events?since={since}") as response:
                assert response.status_code == 200
                assert (await Events(response).next())[0] == "reset"
