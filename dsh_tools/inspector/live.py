"""The live stream: one store watcher per server, its changes fanned out to every open page.

Each open page used to poll the store on its own every 200 ms, re-reading the
newest journal page and every parked call whole: a thousand tabs pinned the
server, and one 100 MB parked call cost a page 65 % of a core. Now one
watcher per server (:class:`LiveFeed`) asks the store what changed
(``store.changes``, :mod:`dsh_tools.store.changes`: a cheap marker while
nothing did, then only the changed rows), renders each change once, and
keeps the rendered events in a bounded ring that every stream reads from.
A stream costs the server a slot and a wait, never a store read.

The events (server-sent events, ids ``<epoch>-<n>``):

* ``journal``: the journal rows new or changed since the last event (rows as
  :func:`~.views.record_view` shows them, never a whole page);
* ``approvals``: ``{"ids": [...], "added": [...]}``, the id of every
  undecided parked call, oldest first, and the views of those new since;
* ``reset``: the stream cannot continue from where the page was (the
  watcher started afresh, or the page fell behind the ring): reload;
* ``status``: ``{"ok": false, "error": ...}`` while the store fails, and
  ``{"ok": true}`` when it answers again.

A page reconnecting sends ``Last-Event-ID`` (its first connection, the
``since`` its HTML carried) and gets what it missed from the ring. Streams
are capped (:data:`MAX_STREAMS`; past the cap: ``503``), and a stream is a
``sse-starlette`` response, which ends when the server shuts down: a tab
holding the stream no longer keeps ``dsh-tools inspect`` alive after SIGTERM.
The watcher runs while a stream is open, and :data:`LINGER_SECONDS` after
the last one closes (a reload reconnects without a reset).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from collections import deque
from collections.abc import AsyncIterator
from itertools import islice
from typing import Any, Final, NamedTuple

import orjson
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.types import Receive, Scope, Send

from dsh_tools.errors import safe_str
from dsh_tools.inspector.views import parked_view, record_view
from dsh_tools.store.changes import ChangeCursor, ChangeSource, StoreChanges
from dsh_tools.call_store import CallStore

__all__ = ["LINGER_SECONDS", "LIVE_POLL_SECONDS", "MAX_STREAMS", "LiveFeed"]

LIVE_POLL_SECONDS: Final = 0.2
"""How often the one watcher asks the store what changed (a decision made in this page is looked at at once)."""

MAX_STREAMS: Final = 100
"""The default cap on open live streams per server (a browser opens one per tab)."""

LINGER_SECONDS: Final = 10.0
"""How long the watcher keeps watching after the last stream closed."""

RING_EVENTS: Final = 512
RING_BYTES: Final = 8 * 1024 * 1024
"""The ring of rendered events a late stream catches up from; a page further behind is told to reload."""

MAX_BACKOFF_SECONDS: Final = 5.0
"""The longest wait between two looks while the store fails."""

_LOG = logging.getLogger("dsh_tools.inspector")

_EVENT_NUMBER: Final = re.compile(r"[0-9]{1,20}")
"""An event number as a stream's ids carry it (a page sends it back to resume)."""


class _Event(NamedTuple):
    number: int
    encoded: bytes


class LiveFeed:
    """One server's watcher of its store and the ring of events its streams read; see the module docstring."""

    def __init__(self, store: CallStore, *, poll_seconds: float = LIVE_POLL_SECONDS, max_streams: int = MAX_STREAMS) -> None:
        self._store = store
        self._source = store if isinstance(store, ChangeSource) else None
        self._poll_seconds = poll_seconds
        self.max_streams = max_streams
        self.streams = 0
        self.looks = 0
        """Looks at the store so far (one per poll while watching, whatever the number of streams)."""
        self._ring: deque[_Event] = deque()
        self._ring_bytes = 0
        self._epoch = ""
        self._number = 0
        self._approvals: dict[str, dict[str, Any]] = {}
        self._published = asyncio.Event()
        self._wake = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._linger_until = 0.0
        self._closed = False

    @property
    def live(self) -> bool:
        """Whether the store can feed a live view (every store of ``dsh_tools.store`` can)."""
        return self._source is not None

    def position(self) -> str:
        """Where a page rendered now picks the stream up (``""`` while the watcher is idle: that page resets)."""
        watching = self._task is not None and not self._task.done() and self._ready.is_set()
        return f"{self._epoch}-{self._number}" if watching else ""

    def poke(self) -> None:
        """Look at the store now (this server recorded a decision)."""
        self._wake.set()

    def open(self, since: str | None) -> EventSourceResponse | None:
        """A stream for a page that has seen up to ``since``, or ``None`` past the cap (or when the store cannot feed one)."""
        if self._closed or self._source is None or self.streams >= self.max_streams:
            return None
        self.streams += 1  # taken here, given back when the response ends, however it ends
        self._watch()
        return _Stream(self, self._follow(since), headers={"cache-control": "no-store"}, send_timeout=30)

    def _release(self) -> None:
        self.streams -= 1
        self._linger_until = asyncio.get_running_loop().time() + LINGER_SECONDS

    async def aclose(self) -> None:
        """Stop watching and end every stream (the server is shutting down)."""
        self._closed = True
        self._ready.set()  # a stream still waiting for the first look ends too
        self._signal()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    # -- the streams ---------------------------------------------------------------------------
    async def _follow(self, since: str | None) -> AsyncIterator[bytes]:
        await self._ready.wait()
        seen = self._resume_from(since)
        while not self._closed:
            published = self._published
            missed = self._missed(seen)
            if missed is None:  # the page cannot be caught up: it reloads, then follows from here
                seen = self._number
                yield ServerSentEvent(data="{}", event="reset", id=f"{self._epoch}-{seen}").encode()
                continue
            for event in missed:
                seen = event.number
                yield event.encoded
            if not missed:
                await published.wait()

    def _resume_from(self, since: str | None) -> int | None:
        """The event number ``since`` names in this epoch, or ``None`` (another epoch, or no number the stream sends).

        ASCII digits only, and no more than an event number can have: ``str.isdigit``
        also accepts ``"²"``, which ``int`` refuses, and ``int`` refuses over 4,300 digits.
        """
        epoch, _, number = (since or "").partition("-")
        if epoch != self._epoch or _EVENT_NUMBER.fullmatch(number) is None:
            return None
        return int(number)

    def _missed(self, seen: int | None) -> list[_Event] | None:
        """The events after ``seen``; ``None`` when the ring no longer has them all (or ``seen`` is not of this epoch)."""
        if seen is None or seen > self._number:
            return None
        if seen == self._number:
            return []
        first = self._ring[0].number if self._ring else self._number + 1
        if seen < first - 1:
            return None
        return list(islice(self._ring, seen - first + 1, None))

    # -- the watcher -----------------------------------------------------------------------
    def _watch(self) -> None:
        if self._task is None or self._task.done():
            self._epoch = secrets.token_hex(4)
            self._number = 0
            self._ring.clear()
            self._ring_bytes = 0
            self._ready.clear()
            self._task = asyncio.get_running_loop().create_task(self._run(), name="dsh-inspector-watcher")

    async def _run(self) -> None:
        assert self._source is not None
        loop = asyncio.get_running_loop()
        cursor: ChangeCursor | None = None
        failing: str | None = None
        wait = self._poll_seconds
        while not self._closed and (self.streams > 0 or loop.time() < self._linger_until):
            self._wake.clear()
            try:
                self.looks += 1
                changes = await self._source.changes(cursor)
                await self._take(changes, first=cursor is None)
            except Exception as error:  # noqa: BLE001 - a store that fails is shown, and looked at again
                problem = f"{type(error).__name__}: {safe_str(error)}"
                if failing is None:
                    _LOG.warning("the inspector cannot read its store: %s", problem)
                    self._publish("status", {"ok": False, "error": problem})
                failing, wait = problem, min(MAX_BACKOFF_SECONDS, wait * 2)
            else:
                cursor = changes.cursor
                if failing is not None:
                    self._publish("status", {"ok": True})
                failing, wait = None, self._poll_seconds
                self._ready.set()
            try:
                async with asyncio.timeout(wait):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def _take(self, changes: StoreChanges, *, first: bool) -> None:
        """Render one look's changes as events (the first look only learns the parked calls).

        Every read comes first: a look that fails half-way publishes nothing,
        and the next one (from the same cursor) publishes it all.
        """
        shown, added = self._approvals, []
        if changes.parked is not None:
            waiting = {approval_id: self._approvals.get(approval_id) for approval_id in changes.parked}
            for approval_id, view in waiting.items():
                if view is None:  # new: read once, whatever its size, and kept as its bounded view
                    call = await self._store.get_parked(approval_id)
                    if call is not None and call.state == "parked":
                        waiting[approval_id] = view = parked_view(call)
                        added.append(view)
            shown = {approval_id: view for approval_id, view in waiting.items() if view is not None}
        if changes.records:
            self._publish("journal", [record_view(record) for record in changes.records])
        if list(shown) != list(self._approvals) and not first:
            self._publish("approvals", {"ids": list(shown), "added": added})
        self._approvals = shown

    def _publish(self, name: str, data: object) -> None:
        self._number += 1
        encoded = ServerSentEvent(data=orjson.dumps(data).decode(), event=name, id=f"{self._epoch}-{self._number}").encode()
        self._ring.append(_Event(self._number, encoded))
        self._ring_bytes += len(encoded)
        while len(self._ring) > 1 and (len(self._ring) > RING_EVENTS or self._ring_bytes > RING_BYTES):
            self._ring_bytes -= len(self._ring.popleft().encoded)
        self._signal()

    def _signal(self) -> None:
        published, self._published = self._published, asyncio.Event()
        published.set()


class _Stream(EventSourceResponse):
    """A stream that gives its slot back when it ends: on disconnect, on shutdown, on a send that timed out."""

    def __init__(self, feed: LiveFeed, events: AsyncIterator[bytes], **options: Any) -> None:
        super().__init__(events, **options)
        self._feed = feed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._feed._release()
