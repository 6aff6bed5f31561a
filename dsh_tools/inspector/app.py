"""``inspector_app(store, *, token)``: the page that approves parked calls and watches the journal.

It reads and decides through the store alone, so the agents it shows may run
in any process or on any machine that shares the store; it never runs a
tool (a decision is recorded with ``store.decide`` and the agent's process
runs the call).

Security, because the page can approve what agents do:

* every route needs the token: the ``?token=`` of the printed URL (traded at
  once for a random session id and a redirect to the page's own path,
  ``/s/<session>/``, which drops the token from the address bar; the page's
  requests are relative to it), that session's path, or ``Authorization:
  Bearer`` for scripts at the root (:mod:`.access`); no cookie, which a
  browser would hand to every other server on the host;
* a state-changing request is a ``POST`` carrying ``X-CSRF-Token`` (a value
  derived from the token and given only to the authenticated page), and one
  whose ``Origin`` is not this server's is refused;
* values reach the page as JSON (the first view embedded with ``<``, ``>``
  and ``&`` escaped, so no value can end its ``<script>`` element) and are
  written with ``textContent``, never as markup, so a tool result holding
  ``<script>`` shows as text;
* responses are bounded (:mod:`.views`), and so are live streams (:mod:`.live`);
  a spilled result is read a page at a time (``/api/spilled``, at most
  :data:`~dsh_tools.store.spilled.MAX_PAGE_CHARS` characters), with the agent
  id of the record that holds its locator.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, Final

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route

from dsh_tools.inspector.access import SESSION_PREFIX, Access, csrf_token, session_path
from dsh_tools.inspector.live import LIVE_POLL_SECONDS, MAX_STREAMS, LiveFeed
from dsh_tools.inspector.views import MAX_ROWS, parked_view, record_view, rule_view, spilled_locator
from dsh_tools.outcome import OUTCOMES
from dsh_tools.call_store import CallStore, RuleStore
from dsh_tools.store.spilled import MAX_PAGE_CHARS, SpillStore, check_page
from dsh_tools.store.sql import StoreError

__all__ = ["inspector_app"]

_Handler = Callable[[Request], Awaitable[Response]]

MAX_FORM_BYTES: Final = 1024 * 1024
"""The largest body a posted form may have (a decision with edited arguments fits well within)."""
_DECIDE_FORM: Final = 'the body is {"approvalId": ..., "outcome": ..., "arguments"?: ..., "message"?: ..., "remember"?: true}'
_FORGET_FORM: Final = 'the body is {"ruleId": ...}'


def _static(name: str) -> str:
    return (resources.files("dsh_tools.inspector") / "static" / name).read_text(encoding="utf-8")


def inspector_app(
    store: CallStore, *, token: str, max_streams: int = MAX_STREAMS, poll_seconds: float = LIVE_POLL_SECONDS
) -> Starlette:
    """The inspector as an ASGI application; ``token`` (at least 16 characters) guards every route.

    ``max_streams`` caps the live streams open at once (past it: ``503``);
    ``poll_seconds`` is how often the one watcher looks at the store.
    """
    if type(token) is not str or len(token) < 16:
        raise ValueError("the inspector's token must be a str of at least 16 characters")
    access = Access(token)
    feed = LiveFeed(store, poll_seconds=poll_seconds, max_streams=max_streams)
    csrf = csrf_token(token)
    shell = _static("index.html").replace("{{csrf}}", csrf).replace("{{style}}", _static("style.css"))
    head, _, tail = shell.replace("{{script}}", _static("app.js")).partition("{{initial}}")

    def guarded(handler: _Handler) -> _Handler:
        async def check(request: Request) -> Response:
            if not access.allows(request):
                return PlainTextResponse("the inspector needs its token: open the URL `dsh-tools inspect` printed", 401)
            try:
                return await handler(request)
            except StoreError as error:  # the store is away: say so, not a bare 500
                return PlainTextResponse(f"the store cannot be read: {error}", 503)

        return check

    async def index(request: Request) -> Response:
        if "token" in request.query_params:  # trade the URL's token for a session path, and drop it from the address bar
            return RedirectResponse(session_path(access.new_session()), status_code=303, headers=_NO_STORE)
        since = feed.position()  # before the reads: the stream replays whatever changes after them
        parked, records = await store.parked(), await store.journal(limit=100)
        remembered = await store.rules() if isinstance(store, RuleStore) else []
        initial = {
            "approvals": [parked_view(call) for call in parked],
            "journal": [record_view(r) for r in records],
            "rules": [rule_view(rule) for rule in remembered],
            "since": since,
        }
        page = head.encode() + _script_safe(orjson.dumps(initial)) + tail.encode()
        return Response(page, media_type="text/html; charset=utf-8", headers=_NO_STORE)

    async def approvals(request: Request) -> Response:
        return _json([parked_view(call) for call in await store.parked()])

    async def journal(request: Request) -> Response:
        query = _journal_query(request)
        if isinstance(query, str):
            return PlainTextResponse(query, 400)
        detail = "call" in request.query_params  # one call's records: with their payloads
        return _json([record_view(record, detail=detail) for record in await store.journal(**query)])

    async def spilled(request: Request) -> Response:
        """A page of the whole text of a cut result: ``?call=<call id>&record=<record id>&offset=&limit=``."""
        params = request.query_params
        try:
            offset, limit = int(params.get("offset", "0")), int(params.get("limit", "4096"))
        except ValueError:
            return PlainTextResponse("offset and limit must be numbers", 400)
        if limit > MAX_PAGE_CHARS:
            return PlainTextResponse(f"limit must be at most {MAX_PAGE_CHARS}", 400)
        try:
            check_page(offset, limit)
        except ValueError as error:
            return PlainTextResponse(str(error), 400)
        call, wanted = params.get("call", ""), params.get("record", "")
        records = await store.journal(call_id=call, limit=MAX_ROWS) if call else []
        record = next((r for r in records if r.record_id == wanted), None)
        page = None
        if record is not None and isinstance(store, SpillStore):
            locator = spilled_locator(record)
            if locator is not None:
                page = await store.read_spilled(locator, record.agent_id or "", offset, limit)
        if page is None:
            return PlainTextResponse("no spilled text for that record (not cut, not kept, or pruned)", 404)
        return _json({"text": page.text, "offset": page.offset, "nextOffset": page.next_offset, "total": page.total})

    async def decide(request: Request) -> Response:
        form = await _posted_form(request, csrf, _DECIDE_FORM)
        if isinstance(form, Response):
            return form
        if "approvalId" not in form or "outcome" not in form:
            return PlainTextResponse(_DECIDE_FORM, 400)
        remember = form.get("remember")
        if remember not in (None, False, True):
            return PlainTextResponse("remember is true or false", 400)
        try:
            decision = await store.decide(
                form["approvalId"], form["outcome"], arguments=form.get("arguments"), decided_by="inspector",
                message=form.get("message") or None, remember="agent" if remember else None,
            )
        except KeyError as error:
            return PlainTextResponse(f"cannot decide: {error}", 404)
        except (TypeError, ValueError) as error:
            return PlainTextResponse(f"cannot decide: {error}", 400)
        feed.poke()
        answer = {"approvalId": decision.approval_id, "outcome": decision.outcome}
        if decision.rule_id is not None:
            answer["ruleId"] = decision.rule_id
        return _json(answer)

    async def rules(request: Request) -> Response:
        if not isinstance(store, RuleStore):
            return _json([])
        return _json([rule_view(rule) for rule in await store.rules()])

    async def forget(request: Request) -> Response:
        form = await _posted_form(request, csrf, _FORGET_FORM)
        if isinstance(form, Response):
            return form
        if type(form.get("ruleId")) is not str or not isinstance(store, RuleStore):
            return PlainTextResponse(_FORGET_FORM, 400)
        try:
            await store.forget_rule(form["ruleId"])
        except KeyError as error:
            return PlainTextResponse(f"cannot forget: {error}", 404)
        return _json({"ruleId": form["ruleId"], "forgotten": True})

    async def events(request: Request) -> Response:
        stream = feed.open(request.headers.get("last-event-id") or request.query_params.get("since"))
        if stream is not None:
            return stream
        if not feed.live:
            return PlainTextResponse("this store cannot feed a live view (it has no changes())", 501)
        return PlainTextResponse(
            f"too many live streams are open ({feed.max_streams}): close a tab, or try again", 503, headers={"retry-after": "10"}
        )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await feed.aclose()  # the watcher stops and every stream ends

    # The page and its API, at the root for a script with the token and under a browser's session path.
    page = [
        Route("/", guarded(index)),
        Route("/api/approvals", guarded(approvals)),
        Route("/api/journal", guarded(journal)),
        Route("/api/spilled", guarded(spilled)),
        Route("/api/decide", guarded(decide), methods=["POST"]),
        Route("/api/rules", guarded(rules)),
        Route("/api/forget", guarded(forget), methods=["POST"]),
        Route("/api/events", guarded(events)),
    ]
    routes = [*page, Mount(SESSION_PREFIX + "{session}", routes=page)]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.feed = feed  # for tests and health checks: how many streams, how many looks
    return app


_NO_STORE: Final = {"cache-control": "no-store"}


def _script_safe(data: bytes) -> bytes:
    """JSON that cannot end the ``<script>`` element holding it (``</script>`` in a value stays text)."""
    return data.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")


async def _posted_form(request: Request, csrf: str, shape: str) -> dict[str, Any] | Response:
    """The JSON object a state-changing request carries, or the response refusing it.

    One gate for every form the page posts: the CSRF and origin checks, a
    bounded body (a page never sends more than a decision's arguments), and
    a JSON object; what the object must hold is the route's own question.
    """
    refused = _refused(request, csrf)
    if refused is not None:
        return refused
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        return PlainTextResponse("request too large", 413)
    try:
        form = orjson.loads(body)
    except orjson.JSONDecodeError:
        return PlainTextResponse("the body is not JSON", 400)
    if not isinstance(form, dict):
        return PlainTextResponse(shape, 400)
    return form


def _refused(request: Request, csrf: str) -> Response | None:
    """Why a state-changing request is refused (no CSRF token, another origin), or ``None``."""
    if not hmac.compare_digest(request.headers.get("x-csrf-token", "").encode(), csrf.encode()):
        return PlainTextResponse("missing or wrong X-CSRF-Token", 403)
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        return PlainTextResponse("cross-origin request refused", 403)
    return None


def _json(value: object) -> Response:
    return Response(orjson.dumps(value), media_type="application/json", headers=_NO_STORE)


def _journal_query(request: Request) -> dict[str, Any] | str:
    """The ``journal()`` arguments a request's query asks for, or what is wrong with it."""
    params = request.query_params
    query: dict[str, Any] = {}
    for key, name in (("agent", "agent_id"), ("tool", "tool_name"), ("call", "call_id"), ("parent", "parent_call_id")):
        if params.get(key):
            query[name] = params[key]
    outcome = params.get("outcome")
    if outcome:
        if outcome not in OUTCOMES and outcome != "running":
            return f"unknown outcome {outcome[:40]!r}"
        query["outcome"] = outcome
    if params.get("errors") in ("1", "true"):
        query["is_error"] = True
    try:
        query["limit"] = min(MAX_ROWS, max(1, int(params.get("limit", "100"))))
    except ValueError:
        return "limit must be a number"
    return query
