"""The inspector (extra ``dsh-tools[inspector]``): a web page to approve parked calls and watch the journal live.

``inspector_app(store, token=...)`` is an ASGI application (Starlette);
``dsh-tools inspect --store URL`` serves it with uvicorn on loopback and
prints its URL with a fresh token. See ``docs/inspector.md``.
"""

from dsh_tools.inspector.access import csrf_token, session_path
from dsh_tools.inspector.app import inspector_app

__all__ = ["csrf_token", "inspector_app", "session_path"]
