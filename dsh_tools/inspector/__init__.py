"""The inspector (extra ``dsh-tools[inspector]``): a web page to approve parked calls and watch the journal live.

``inspector_app(store, token=...)`` is an ASGI application (Starlette);
``dsh-tools inspect --store URL`` serves it with uvicorn on loopback and
prints its URL with a fresh token. See ``docs/inspector.md``.
"""

from dsh_tools.inspector.access import cookie_name, csrf_token
from dsh_tools.inspector.app import inspector_app

__all__ = ["cookie_name", "csrf_token", "inspector_app"]
