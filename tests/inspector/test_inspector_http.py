"""The inspector over HTTP (the app driven directly through an ASGI transport): token, CSRF, escaping, bounds."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import httpx2
import orjson
import pytest

from dsh_tools import thaw_json
from dsh_tools.cli.inspect import is_loopback
from dsh_tools.inspector import csrf_token, inspector_app, session_path
from dsh_tools.inspector.access import MAX_SESSIONS, SESSION_PREFIX, Access, _digest
from dsh_tools.store import CallRecord, MemoryStore, ParkedCall, StoreUnavailable
from dsh_tools.store.records import JournalQuery

TOKEN = "t" * 32


def parked(approval_id: str = "p1") -> ParkedCall:
    return ParkedCall(
        approval_id=approval_id, agent_id="a1", agent_name="writer", call_id="c1", tool_name="write_file",
        arguments={"path": "a.txt"}, description="Write a file.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        fingerprint="f" * 64, created_at=time.time(),
    )


@pytest.fixture
async def store() -> MemoryStore:
    kept = MemoryStore()
    await kept.park(parked(), max_per_agent=10)
    return kept


@pytest.fixture
async def client(store: MemoryStore) -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=inspector_app(store, token=TOKEN))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as made:
        yield made


AUTH = {"authorization": f"Bearer {TOKEN}"}
POST = {**AUTH, "x-csrf-token": csrf_token(TOKEN), "content-type": "application/json"}


@pytest.mark.parametrize("path", ["/", "/api/approvals", "/api/journal", "/api/events"])
async def test_every_route_needs_the_token(client: httpx2.AsyncClient, path: str) -> None:
    assert (await client.get(path)).status_code == 401
    assert (await client.get(path, headers={"authorization": "Bearer wrong-token-wrong-token"})).status_code == 401
    assert (await client.get(f"{path}?token=nope")).status_code == 401
    assert (await client.post("/api/decide", content=b"{}")).status_code == 401


async def test_the_urls_token_becomes_a_session_path_and_leaves_the_address_bar_without_a_cookie(
    client: httpx2.AsyncClient,
) -> None:
    response = await client.get(f"/?token={TOKEN}")
    assert response.status_code == 303 and "set-cookie" not in response.headers
    location = response.headers["location"]
    assert location.startswith(SESSION_PREFIX) and location.endswith("/")
    session = location[len(SESSION_PREFIX) : -1]
    assert location == session_path(session) and TOKEN not in location and len(session) >= 32  # random, not the token
    page = await client.get(location)
    assert page.status_code == 200 and csrf_token(TOKEN) in page.text and TOKEN not in page.text
    assert 'name="referrer" content="no-referrer"' in page.text  # the path is never sent on as a Referer
    assert (await client.get(f"{location}api/approvals")).status_code == 200  # the page's API, relative to it
    assert (await client.get("/api/approvals")).status_code == 401  # and nothing at the root without the token


async def test_a_session_opens_nothing_but_its_own_path_on_this_server(client: httpx2.AsyncClient, store: MemoryStore) -> None:
    """The session id is a credential only in this server's path: not as a cookie, not on another inspector."""
    location = (await client.get(f"/?token={TOKEN}")).headers["location"]
    session = location[len(SESSION_PREFIX) : -1]
    other = inspector_app(store, token=TOKEN)  # another inspector, same store, even the same token
    transport = httpx2.ASGITransport(app=other)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as elsewhere:
        assert (await elsewhere.get(f"{location}api/approvals")).status_code == 401
    for name in ("dsh_inspector_8765", "session"):
        client.cookies.set(name, session)
        assert (await client.get("/api/approvals")).status_code == 401
    client.cookies.clear()
    assert (await client.get(f"{session_path(TOKEN)}api/approvals")).status_code == 401  # the token is no session
    assert (await client.get(f"{session_path('x' * 43)}api/approvals")).status_code == 401


async def test_what_another_server_on_the_host_receives_cannot_approve_a_call(store: MemoryStore) -> None:
    """Browsers hand a host's cookies to every port on it (RFC 6265, section 8.5), and ``SameSite`` ignores
    ports too. When the page's credential was a cookie, a server on ``127.0.0.1:3000`` that the browser
    visited received it, replayed it without a browser, read the page's CSRF value and approved calls.
    Now the browser sends that server nothing of this one's: the test plays it with everything it gets."""
    transport = httpx2.ASGITransport(app=inspector_app(store, token=TOKEN))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as browser:
        opened = await browser.get(f"/?token={TOKEN}", follow_redirects=True)  # the user opens the printed URL
        assert opened.status_code == 200 and "approvals" in opened.text
        received = dict(browser.cookies)  # what the browser hands any server on 127.0.0.1
    assert received == {}
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765", cookies=received) as other_server:
        page = await other_server.get("/")
        found = re.search(r'<meta name="csrf" content="([0-9a-f]+)">', page.text)
        decided = await other_server.post(
            "/api/decide", content=orjson.dumps({"approvalId": "p1", "outcome": "allowed-once"}),
            headers={"x-csrf-token": found.group(1) if found else "", "content-type": "application/json"},
        )
    assert (page.status_code, decided.status_code) == (401, 401)
    kept = await store.get_parked("p1")
    assert kept is not None and kept.state == "parked"


def test_sessions_are_bounded_the_oldest_ending_first() -> None:
    access = Access(TOKEN)
    sessions = [access.new_session() for _ in range(MAX_SESSIONS + 1)]
    kept = access._sessions
    assert len(kept) == MAX_SESSIONS
    assert all(s not in sessions for s in kept)  # kept by digest, never the id itself
    assert _digest(sessions[0]) not in kept and _digest(sessions[1]) in kept and _digest(sessions[-1]) in kept


async def test_a_post_needs_the_csrf_token_and_the_same_origin(client: httpx2.AsyncClient, store: MemoryStore) -> None:
    body = orjson.dumps({"approvalId": "p1", "outcome": "rejected"})
    assert (await client.post("/api/decide", content=body, headers=AUTH)).status_code == 403
    wrong = {**POST, "x-csrf-token": "0" * 64}
    assert (await client.post("/api/decide", content=body, headers=wrong)).status_code == 403
    foreign = {**POST, "origin": "http://evil.example"}
    assert (await client.post("/api/decide", content=body, headers=foreign)).status_code == 403
    assert (await client.get("/api/decide", headers=AUTH)).status_code == 405  # state changes only by POST
    assert (await store.get_parked("p1")).state == "parked"  # type: ignore[union-attr]
    done = await client.post("/api/decide", content=body, headers={**POST, "origin": "http://127.0.0.1:8765"})
    assert done.status_code == 200 and done.json() == {"approvalId": "p1", "outcome": "rejected"}
    kept = await store.get_parked("p1")
    assert kept is not None and kept.decision is not None and kept.decision.decided_by == "inspector"


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"not json", 400),
        (b'{"approvalId": "p1"}', 400),
        (b'{"approvalId": "p1", "outcome": "deferred"}', 400),
        (b'{"approvalId": "nope", "outcome": "rejected"}', 404),
        (b'{"approvalId": "p1", "outcome": "rejected", "arguments": {"path": "b"}}', 400),
        (b"[1, 2]", 400),
    ],
)
async def test_a_bad_decision_is_refused_and_decides_nothing(
    client: httpx2.AsyncClient, store: MemoryStore, body: bytes, status: int
) -> None:
    assert (await client.post("/api/decide", content=body, headers=POST)).status_code == status
    assert (await store.get_parked("p1")).state == "parked"  # type: ignore[union-attr]


async def test_edited_arguments_are_recorded_with_the_decision(client: httpx2.AsyncClient, store: MemoryStore) -> None:
    body = orjson.dumps({"approvalId": "p1", "outcome": "allowed-once", "arguments": {"path": "safe.txt"}})
    assert (await client.post("/api/decide", content=body, headers=POST)).status_code == 200
    kept = await store.get_parked("p1")
    assert kept is not None and kept.decision is not None and thaw_json(kept.decision.arguments) == {"path": "safe.txt"}


async def test_values_come_as_json_never_as_markup(client: httpx2.AsyncClient, store: MemoryStore) -> None:
    hostile = "<script>window.pwned = 1</script>"
    await store.write([CallRecord("r1", "c9", "a1", "echo", {"text": hostile}, "ok", 1.0, content=({"type": "text", "text": hostile},))], [])
    await store.park(parked("p2").set(arguments={"path": hostile}), max_per_agent=10)  # the first view embeds it
    page = await client.get("/", headers=AUTH)
    assert "<script>window.pwned" not in page.text and "</script> " not in page.text  # no value ends the data element
    assert "\\u003cscript\\u003ewindow.pwned = 1\\u003c/script\\u003e" in page.text
    rows = await client.get("/api/journal", headers=AUTH)
    assert rows.headers["content-type"] == "application/json"
    detail = await client.get("/api/journal?call=c9", headers=AUTH)
    assert detail.json()[0]["content"] == [{"type": "text", "text": hostile}] and "content" not in rows.json()[0]


async def test_a_ten_megabyte_value_is_a_preview_and_its_size(client: httpx2.AsyncClient, store: MemoryStore) -> None:
    big = "x" * (10 * 1024 * 1024)
    roomy = MemoryStore(max_value_bytes=64 * 1024 * 1024)  # a store that kept it whole: the page still bounds it
    await roomy.write([CallRecord("r1", "c1", "a1", "dump", {}, "ok", 1.0, value={"blob": big})], [])
    transport = httpx2.ASGITransport(app=inspector_app(roomy, token=TOKEN))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as other:
        response = await other.get("/api/journal?call=c1", headers=AUTH)
    assert len(response.content) < 64 * 1024
    (row,) = response.json()
    assert row["value"]["$bytes"] > 10 * 1024 * 1024 and len(row["value"]["$preview"]) == 1024


@pytest.mark.parametrize(("query", "status"), [("outcome=nope", 400), ("limit=abc", 400), ("limit=99999", 200), ("errors=1", 200)])
async def test_journal_filters_are_checked(client: httpx2.AsyncClient, query: str, status: int) -> None:
    assert (await client.get(f"/api/journal?{query}", headers=AUTH)).status_code == status


def test_a_short_token_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 16 characters"):
        inspector_app(MemoryStore(), token="short")


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("localhost", True), ("::1", True), ("127.8.0.1", True),
                                                 ("0.0.0.0", False), ("192.168.1.4", False), ("example.org", False)])
def test_loopback_is_recognised(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_binding_beyond_loopback_warns_loudly_and_prints_the_url(tmp_path: object) -> None:
    command = [sys.executable, "-m", "dsh_tools.cli", "inspect", "--store", "memory:", "--host", "0.0.0.0", "--port", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert server.stdout is not None and server.stderr is not None
        url = server.stdout.readline()
        assert url.startswith("dsh-tools inspector: http://0.0.0.0:") and "/?token=" in url
        assert "WARNING: the inspector binds to 0.0.0.0, not loopback" in server.stderr.readline()
    finally:
        server.terminate()
        server.wait(timeout=30)


async def test_a_remembered_decision_with_a_message_then_the_rules_and_forgetting_one(
    client: httpx2.AsyncClient, store: MemoryStore
) -> None:
    body = orjson.dumps({"approvalId": "p1", "outcome": "rejected", "message": "not that file", "remember": True})
    done = await client.post("/api/decide", content=body, headers=POST)
    assert done.status_code == 200
    rule_id = done.json()["ruleId"]
    kept = await store.get_parked("p1")
    assert kept is not None and kept.decision is not None and kept.decision.message == "not that file"
    (rule,) = (await client.get("/api/rules", headers=AUTH)).json()
    assert {k: rule[k] for k in ("ruleId", "agentId", "tool", "outcome", "message", "decidedBy")} == {
        "ruleId": rule_id, "agentId": "a1", "tool": "write_file", "outcome": "rejected", "message": "not that file",
        "decidedBy": "inspector",
    }
    forget = orjson.dumps({"ruleId": rule_id})
    assert (await client.post("/api/forget", content=forget, headers=AUTH)).status_code == 403  # CSRF, like every change
    assert (await client.post("/api/forget", content=forget, headers=POST)).status_code == 200
    assert (await client.post("/api/forget", content=forget, headers=POST)).status_code == 404
    assert (await client.post("/api/forget", content=b'{"ruleId": 7}', headers=POST)).status_code == 400
    assert (await client.get("/api/rules", headers=AUTH)).json() == []
    page = await client.get("/", headers=AUTH)
    assert b'"rules":[]' in page.content


@pytest.mark.parametrize(
    "body",
    [
        {"approvalId": "p1", "outcome": "allowed-once", "message": "a message with an approval"},
        {"approvalId": "p1", "outcome": "allowed-once", "remember": True, "arguments": {"path": "b"}},
        {"approvalId": "p1", "outcome": "rejected", "remember": "yes"},
    ],
)
async def test_a_decision_the_rules_refuse_is_a_400_and_decides_nothing(
    client: httpx2.AsyncClient, store: MemoryStore, body: dict[str, object]
) -> None:
    assert (await client.post("/api/decide", content=orjson.dumps(body), headers=POST)).status_code == 400
    assert (await store.get_parked("p1")).state == "parked"  # type: ignore[union-attr]
    assert await store.rules() == []


@pytest.mark.parametrize("route", ["/api/decide", "/api/forget"])
async def test_every_posted_form_is_bounded_json_object(client: httpx2.AsyncClient, store: MemoryStore, route: str) -> None:
    too_large = orjson.dumps({"approvalId": "p1", "outcome": "rejected", "message": "x" * (1024 * 1024)})
    assert (await client.post(route, content=too_large, headers=POST)).status_code == 413
    assert (await client.post(route, content=b"{not json", headers=POST)).status_code == 400
    listed = await client.post(route, content=b'["p1", "rejected"]', headers=POST)
    assert listed.status_code == 400 and listed.text.startswith("the body is {")  # says what the form holds
    assert (await store.get_parked("p1")).state == "parked"  # type: ignore[union-attr]


async def test_a_store_that_cannot_be_read_is_a_503_saying_so() -> None:
    class Away(MemoryStore):
        async def _journal(self, query: JournalQuery) -> list[CallRecord]:
            raise StoreUnavailable("the database is away")

    transport = httpx2.ASGITransport(app=inspector_app(Away(), token=TOKEN))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as away:
        response = await away.get("/api/journal", headers=AUTH)
    assert response.status_code == 503 and "the store cannot be read" in response.text and "away" in response.text


async def test_a_spilled_result_shows_its_size_and_pages_through_its_whole_text() -> None:
    from dsh_tools import Agent, ToolExecutionInput, boot, tool

    whole = "ab€😀" * 30_000

    @tool
    async def dump() -> str:
        """A long text."""
        return whole

    store = MemoryStore()
    ctx = boot(store=store, max_inline_bytes=4096)
    ctx.tools.register(dump)
    await ctx.tools.execute(ToolExecutionInput("c9", "dump", {}, Agent(ctx, name="a", id="agent-9")))
    transport = httpx2.ASGITransport(app=inspector_app(store, token=TOKEN))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
        (row,) = (await client.get("/api/journal?tool=dump", headers=AUTH)).json()
        assert row["spilled"] == {"bytes": len(whole.encode()), "characters": len(whole), "kept": True}
        query = f"/api/spilled?call=c9&record={row['recordId']}"
        page = (await client.get(f"{query}&offset=3&limit=5", headers=AUTH)).json()
        assert page == {"text": whole[3:8], "offset": 3, "nextOffset": 8, "total": len(whole)}
        assert (await client.get(query)).status_code == 401
        for bad in (f"{query}&offset=-1", f"{query}&offset={10**30}", f"{query}&offset={2**63}", f"{query}&limit=0", f"{query}&limit=x"):
            assert (await client.get(bad, headers=AUTH)).status_code == 400, bad
        for gone in ("/api/spilled?call=c9&record=nope", "/api/spilled"):
            assert (await client.get(gone, headers=AUTH)).status_code == 404, gone
        await store.prune(before=time.time() + 1)
        assert (await client.get(query, headers=AUTH)).status_code == 404
