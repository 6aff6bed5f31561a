"""``serve_mcp(...).streamable_http_app()`` behind a bearer token, with the SDK's own auth options.

The app has no authentication of its own (docs/mcp.md says what it accepts by
default); ``auth=`` and ``token_verifier=`` are the SDK's. This runs the
documented configuration on 127.0.0.1: a request without the token, or with
a wrong one, is refused with 401 before any tool runs; ours with the token
gets through.
"""

from __future__ import annotations

import hmac

import httpx2
import pytest
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from pydantic import AnyHttpUrl

from dsh_tools import Agent, ToolExecutionResult, boot
from dsh_tools.mcp import McpConnectionError, StreamableHttpParameters, mcp_tools, serve_mcp
from mcp_support import call, http_server
from served_tools import TOOLS

TOKEN = "s3cret-token-for-the-test"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "anyone", "version": "0"}},
}


class StaticToken:
    """A ``TokenVerifier`` accepting one shared secret (as in docs/mcp.md)."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token.encode()):
            return AccessToken(token=token, client_id="operator", scopes=[])
        return None


async def test_an_unauthenticated_request_is_refused_when_auth_is_configured() -> None:
    ctx = boot()
    for tool in TOOLS:
        ctx.tools.register(tool)
    seen: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda execution, result: seen.append(result))
    app = serve_mcp(ctx, agent=Agent(ctx, name="served")).streamable_http_app(
        auth=AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1"), resource_server_url=None),
        token_verifier=StaticToken(TOKEN),
    )
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with http_server(app) as url, httpx2.AsyncClient() as client:
        anonymous = await client.post(url, json=INITIALIZE, headers=headers)
        assert anonymous.status_code == 401
        forged = await client.post(url, json=INITIALIZE, headers={**headers, "Authorization": "Bearer guess"})
        assert forged.status_code == 401
        with pytest.raises(McpConnectionError):
            await mcp_tools(boot(), StreamableHttpParameters(url=url))
        client_ctx = boot()
        toolset = await mcp_tools(client_ctx, StreamableHttpParameters(url=url, headers={"Authorization": f"Bearer {TOKEN}"}))
        try:
            assert (await call(client_ctx, "shout", {"text": "let me in"})).text == "LET ME IN"
        finally:
            await toolset.aclose()
    assert [result.text for result in seen] == ["LET ME IN"]  # nothing ran for the refused requests
