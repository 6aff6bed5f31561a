"""Who may use the inspector: its token, the sessions a browser trades it for, and the CSRF value.

Why sessions and not the token in a cookie: cookies are not scoped to a
port, so a browser hands this server's cookies to any other server on
``127.0.0.1`` on a plain navigation. When the cookie was the token, that
other server could approve what agents do. Now the URL's token is traded
for a random session id that only this server's memory knows: sent
anywhere else it opens nothing (not even another inspector on the same
store), and it dies with the process. The cookie's name carries the port,
so two inspectors on one machine do not overwrite each other's sessions.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from typing import Final

from starlette.requests import Request

__all__ = ["COOKIE_PREFIX", "MAX_SESSIONS", "SESSION_SECONDS", "Access", "cookie_name", "csrf_token"]

COOKIE_PREFIX: Final = "dsh_inspector_"
"""A session cookie's name is this and the port the browser used (``dsh_inspector_8765``)."""

MAX_SESSIONS: Final = 256
"""Sessions one server keeps; past it, the oldest ends (its page asks for the URL again)."""

SESSION_SECONDS: Final = 12 * 3600
"""How long a session lasts after the token was traded for it."""


def cookie_name(port: int) -> str:
    """The session cookie's name for a server the browser reaches on ``port``."""
    return f"{COOKIE_PREFIX}{port}"


def csrf_token(token: str) -> str:
    """The value a ``POST`` must carry in ``X-CSRF-Token`` (derived, so the token itself never sits in the page)."""
    return hmac.new(token.encode(), b"dsh-inspector-csrf", hashlib.sha256).hexdigest()


def request_port(request: Request) -> int:
    """The port the client addressed (its ``Host``), or its scheme's default."""
    return request.url.port or (443 if request.url.scheme == "https" else 80)


def _digest(value: str) -> str:
    """Sessions are kept by digest: looking one up reveals nothing about the others, and memory holds no usable id."""
    return hashlib.sha256(value.encode()).hexdigest()


class Access:
    """The token (``?token=`` or ``Authorization: Bearer``) and the sessions it was traded for."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()
        self._sessions: OrderedDict[str, float] = OrderedDict()  # digest -> when it ends (monotonic)

    def allows(self, request: Request) -> bool:
        """Whether ``request`` carries the token or a live session of this server."""
        header = request.headers.get("authorization", "")
        offered = header[len("Bearer ") :] if header.startswith("Bearer ") else request.query_params.get("token")
        if offered is not None:
            return hmac.compare_digest(offered.encode(), self._token)
        session = request.cookies.get(cookie_name(request_port(request)))
        if session is None:
            return False
        ends = self._sessions.get(_digest(session))
        return ends is not None and ends > time.monotonic()

    def new_session(self) -> str:
        """A fresh random session id, kept here (by digest) until it ends or :data:`MAX_SESSIONS` newer ones push it out."""
        session = secrets.token_urlsafe(32)
        now = time.monotonic()
        self._sessions[_digest(session)] = now + SESSION_SECONDS
        while len(self._sessions) > MAX_SESSIONS or next(iter(self._sessions.values())) <= now:
            self._sessions.popitem(last=False)
        return session
