"""Who may use the inspector: its token, the session paths a browser trades it for, and the CSRF value.

Why a session *path* and no cookie: browsers do not scope cookies to a port,
so every other server on ``127.0.0.1`` the browser visits receives this
one's cookies. Whatever a cookie carried (the token, or a session id only
this server knows) that other server could replay, read the page and its
CSRF value, and approve what agents do. A path is sent only where the
browser goes: the URL's token is traded for a random session id, and the
page lives under ``/s/<session>/``, its requests relative to it. No other
server ever sees the id, it opens nothing but this server (kept here by
digest), and it dies with the process.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from typing import Final

from starlette.requests import Request

__all__ = ["MAX_SESSIONS", "SESSION_PREFIX", "SESSION_SECONDS", "Access", "csrf_token", "session_path"]

SESSION_PREFIX: Final = "/s/"
"""A browser's page and API live under this, then its session id (``/s/<session>/``)."""

MAX_SESSIONS: Final = 256
"""Sessions one server keeps; past it, the oldest ends (its page asks for the URL again)."""

SESSION_SECONDS: Final = 12 * 3600
"""How long a session lasts after the token was traded for it."""


def session_path(session: str) -> str:
    """Where the page of ``session`` lives (its API beneath it)."""
    return f"{SESSION_PREFIX}{session}/"


def csrf_token(token: str) -> str:
    """The value a ``POST`` must carry in ``X-CSRF-Token`` (derived, so the token itself never sits in the page)."""
    return hmac.new(token.encode(), b"dsh-inspector-csrf", hashlib.sha256).hexdigest()


def _digest(value: str) -> str:
    """Sessions are kept by digest: looking one up reveals nothing about the others, and memory holds no usable id."""
    return hashlib.sha256(value.encode()).hexdigest()


class Access:
    """The token (``?token=`` or ``Authorization: Bearer``) and the sessions it was traded for."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()
        self._sessions: OrderedDict[str, float] = OrderedDict()  # digest -> when it ends (monotonic)

    def allows(self, request: Request) -> bool:
        """Whether ``request`` carries the token, or is under the path of a live session of this server."""
        header = request.headers.get("authorization", "")
        offered = header[len("Bearer ") :] if header.startswith("Bearer ") else request.query_params.get("token")
        if offered is not None:
            return hmac.compare_digest(offered.encode(), self._token)
        session = request.path_params.get("session")
        if type(session) is not str:
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
