"""``mcp_tools``: a server's tools, registered through a context and kept in step with the server.

Registration goes through ``ctx.tools`` like any other tool, so the layer
(global, or one agent's) and the lifetime are ``ctx``'s, and policies, guards,
approval, timeouts and Code Mode apply unchanged. The toolset re-lists when
the server says ``notifications/tools/list_changed`` (only tools whose
definition changed are re-registered), and closing it (``aclose()``, or
disposing ``ctx``) unregisters every tool and shuts the connection down.

A server is trusted as far as what it listed when it was attached, no
further:

* **No late shadowing.** Through an agent's context, a server's tool shadows
  a global tool of the same name. At connect time that is what the caller
  asked for and can see; a name that only appears on a re-listing and would
  shadow a tool the server did not own at connect time (a ``read_file`` that
  then receives the path of an SSH key) is refused and logged, unless the
  caller opted in with ``relisting_may_shadow=True``.
* **Storms coalesce.** However many ``list_changed`` notifications arrive, at
  most one re-listing runs and one more is pending: the pending one covers
  every notification that came in meanwhile.
* **Bounded lists.** A listing of more than ``max_tools`` tools is refused
  (``McpProtocolError``; registered tools stay as they were), before any of
  them costs a compiled validator.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

import mcp_types as mt
from mcp.client.session import ClientSession, IncomingMessage

from dsh_tools.disposer import Disposer
from dsh_tools.errors import safe_str
from dsh_tools.context.context import Context
from dsh_tools.json_values import dumps
from dsh_tools.mcp.connection import DEFAULT_MAX_MESSAGE_BYTES, Connection, ServerParameters, open_connection, wrap_session
from dsh_tools.mcp.errors import McpClosedError, McpProtocolError
from dsh_tools.mcp.tool import McpTool
from dsh_tools.tool_types import NeedsApproval, check_needs_approval, check_timeout_ms

__all__ = ["McpToolset", "mcp_tools"]

MAX_PAGES: Final = 1_000
"""A server that keeps returning cursors past this many ``tools/list`` pages is cut off."""

DEFAULT_MAX_TOOLS: Final = 1_000
"""The default cap on the tools one server may list (``mcp_tools(max_tools=...)``)."""


class McpToolset:
    """The tools of one MCP server, registered through one context. Build it with :func:`mcp_tools`."""

    def __init__(
        self,
        ctx: Context,
        connection: Connection,
        *,
        prefix: str | None,
        allow: frozenset[str] | None,
        deny: frozenset[str],
        timeout_ms: float | None,
        max_tools: int = DEFAULT_MAX_TOOLS,
        relisting_may_shadow: bool = False,
        needs_approval: NeedsApproval = False,
        trust_hints: bool = False,
    ) -> None:
        self._ctx = ctx
        self._needs_approval = needs_approval
        self._trust_hints = trust_hints
        self._connection = connection
        self._prefix = prefix
        self._allow = allow
        self._deny = deny
        self._timeout_ms = timeout_ms
        self._max_tools = max_tools
        self._may_shadow = relisting_may_shadow
        self._registered: dict[str, tuple[bytes, McpTool, Disposer]] = {}  # remote name -> (key, tool, undo)
        self._owned: frozenset[str] | None = None  # remote names registered at connect time, once connected
        self._refused: set[str] = set()  # names refused for late shadowing (each logged once)
        self._lock = asyncio.Lock()
        self._relister: asyncio.Task[None] | None = None  # the one re-listing running (list_changed)
        self._relist_pending = False  # a list_changed came after that re-listing started
        self._closed = False
        self._release = ctx.track(self._close)

    # -- what is registered ----------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        """The registered (local) tool names, in the server's order."""
        return tuple(tool.name for _, tool, _ in self._registered.values())

    @property
    def definitions(self) -> tuple[McpTool, ...]:
        """The registered definitions (what ``ctx.tools.get`` snapshots)."""
        return tuple(tool for _, tool, _ in self._registered.values())

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def session(self) -> ClientSession | None:
        """The live SDK session (``None`` once closed)."""
        return None if self._closed else self._connection.session

    def local_name(self, remote: str) -> str:
        """The name a server tool is registered under (``<prefix>_<name>`` with a prefix)."""
        return remote if self._prefix is None else f"{self._prefix}_{remote}"

    def _wanted(self, remote: str) -> bool:
        return (self._allow is None or remote in self._allow) and remote not in self._deny

    # -- listing and registering -----------------------------------------------
    async def refresh(self, *, strict: bool = False) -> None:
        """List the server's tools and bring the registrations in step.

        Unchanged tools stay registered; changed ones are re-registered,
        vanished ones unregistered. A tool that cannot be registered (a name
        clash) raises ``ValueError`` when ``strict`` (at connect time, with the
        tools registered by this call rolled back), else it is skipped and
        logged at WARNING on ``ctx.logger``; so is a name that would shadow a
        tool the server did not own at connect time (see the module docstring).
        A listing that cannot be read, of more than ``max_tools`` tools, or
        naming a wanted tool twice raises ``McpProtocolError`` and changes
        nothing.
        """
        async with self._lock:
            if self._closed:
                raise McpClosedError("the MCP toolset is closed")
            listed = await self._list()
            added: list[Disposer] = []
            try:
                self._apply(listed, added, strict=strict)
            except BaseException:
                for undo in reversed(added):
                    undo()
                raise
            if self._owned is None:
                self._owned = frozenset(self._registered)

    async def _list(self) -> list[mt.Tool]:
        """Every page of ``tools/list``, through the connection (so a broken or closed one raises, never hangs)."""
        label = self._connection.label
        tools: list[mt.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = mt.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self._connection.request(f"tools/list of {label}", lambda session: session.list_tools(params=params))
            tools.extend(page.tools)
            if len(tools) > self._max_tools:
                raise McpProtocolError(
                    f"{label} lists more than {self._max_tools} tools; "
                    "pass max_tools= to mcp_tools to accept more, or allow= to pick the ones you need"
                )
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    def _shadows(self, remote: str, local: str) -> bool:
        """Whether registering ``local`` now would hide a tool this server did not own when it was attached."""
        if self._may_shadow or self._owned is None or remote in self._owned:
            return False
        return local in self._ctx.tools.known_names()

    def _apply(self, listed: list[mt.Tool], added: list[Disposer], *, strict: bool) -> None:
        wanted: dict[str, mt.Tool] = {}
        for tool in listed:
            if self._wanted(tool.name):
                if tool.name in wanted:  # which of the two would the server run? Refused before anything changes
                    raise McpProtocolError(f'{self._connection.label} lists more than one tool named "{_shown(tool.name)}"')
                wanted[tool.name] = tool
        for remote in [name for name in self._registered if name not in wanted]:
            self._registered.pop(remote)[2]()
        for remote, tool in wanted.items():
            key = _change_key(tool)
            current = self._registered.get(remote)
            if current is not None and current[0] == key:
                continue
            if current is not None:
                self._registered.pop(remote)[2]()
            elif self._shadows(remote, self.local_name(remote)):
                if remote in self._refused:
                    continue  # logged once: a server re-listing it on every storm must not flood the log
                self._refused.add(remote)
                self._ctx.logger.warning(
                    'MCP tool "%s" from %s was refused: it appeared after connecting and would shadow "%s", '
                    "a tool that server did not own; pass relisting_may_shadow=True to mcp_tools to allow it",
                    remote,
                    self._connection.label,
                    self.local_name(remote),
                )
                continue
            definition = McpTool(
                tool, name=self.local_name(remote), connection=self._connection, timeout_ms=self._timeout_ms,
                needs_approval=self._needs_approval, trust_hints=self._trust_hints,
            )
            try:
                undo = self._ctx.tools.register(definition)
            except (ValueError, TypeError) as error:
                message = (
                    f'MCP tool "{remote}" from {self._connection.label} cannot be registered as '
                    f'"{definition.name}": {safe_str(error)}; pass prefix= to mcp_tools to rename the server\'s tools'
                )
                if strict:
                    raise ValueError(message) from error
                self._ctx.logger.warning("%s", message)
                continue
            added.append(undo)
            self._registered[remote] = (key, definition, undo)

    async def on_message(self, message: IncomingMessage) -> None:
        """The session's message hook: a ``tools/list_changed`` asks for a re-listing (coalesced)."""
        if isinstance(message, mt.ToolListChangedNotification) and not self._closed:
            if self._relister is None or self._relister.done():
                self._relister = asyncio.get_running_loop().create_task(self._relist())
            else:
                self._relist_pending = True  # one re-listing after the running one covers them all

    async def _relist(self) -> None:
        """Re-list until no ``list_changed`` came in during the last re-listing."""
        while not self._closed:
            self._relist_pending = False
            try:
                await self.refresh()
            except Exception as error:  # noqa: BLE001 - a notification has no caller to raise to
                if not self._closed:
                    self._ctx.logger.warning("re-listing the tools of %s failed: %s", self._connection.label, safe_str(error))
            if not self._relist_pending:
                return

    # -- closing -------------------------------------------------------------
    def _close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for _, _, undo in reversed(list(self._registered.values())):
            undo()
        self._registered.clear()
        if self._relister is not None:
            self._relister.cancel()
        self._connection.close()

    async def aclose(self) -> None:
        """Unregister every tool and close the connection, waiting until it is down. Idempotent."""
        self._release()  # runs _close once and forgets it on ctx
        self._close()
        if self._relister is not None:
            await asyncio.gather(self._relister, return_exceptions=True)
        await self._connection.aclose()

    async def __aenter__(self) -> McpToolset:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _change_key(tool: mt.Tool) -> bytes:
    """What decides whether a listed tool changed: its description and schemas, encoded.

    A schema that is not JSON by our rules (an integer beyond 64 bits, which
    orjson cannot write) is keyed by its ``repr`` instead, so registering it
    is what refuses it, naming the tool.
    """
    parts = [tool.description, tool.input_schema, tool.output_schema]
    try:
        return dumps(parts)
    except TypeError:
        return repr(parts).encode()


def _shown(name: str, limit: int = 200) -> str:
    """A server's tool name for a message: cut to ``limit`` characters (a name may be megabytes)."""
    return name if len(name) <= limit else f"{name[:limit]}..."


def _names(value: Sequence[str] | None, label: str) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or any(type(name) is not str for name in value):
        raise ValueError(f"mcp_tools({label}=...) takes a sequence of tool names (str)")
    return frozenset(value)


async def mcp_tools(
    ctx: Context,
    session_or_params: ClientSession | ServerParameters,
    *,
    prefix: str | None = None,
    allow: Sequence[str] | None = None,
    deny: Sequence[str] | None = None,
    timeout_ms: float | None = None,
    max_tools: int = DEFAULT_MAX_TOOLS,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    relisting_may_shadow: bool = False,
    needs_approval: NeedsApproval = False,
    trust_hints: bool = False,
) -> McpToolset:
    """Connect to an MCP server and register its tools through ``ctx``.

    ``session_or_params`` is ``StdioServerParameters`` (we start the server
    process), ``StreamableHttpParameters`` (we connect to the URL), or an
    initialized ``ClientSession`` (yours: we use it but never close it, and
    ``list_changed`` is not observed on it; call :meth:`McpToolset.refresh`).
    ``allow``/``deny`` filter by the server's tool names; ``prefix`` registers
    ``name`` as ``<prefix>_name``; ``timeout_ms`` is every tool's budget for
    the timeout policy. A name that clashes with a tool already in ``ctx``'s
    layer (or with ``run_code`` in Code Mode) raises ``ValueError`` naming it,
    a server that cannot be started or reached ``McpConnectionError``, and a
    ``tools/list`` answer that cannot be read ``McpProtocolError``; in each
    case nothing stays registered or connected. Connecting has no deadline
    of its own: bound it with ``asyncio.timeout``.

    Bounds on the server (see the module docstring and docs/mcp.md):
    ``max_tools`` caps the tools it may list; ``max_message_bytes`` caps one
    message from a server we connect to (a stdio line, an HTTP reply body or
    SSE event): past it the connection is closed and calls settle
    ``MCP_PROTOCOL_ERROR``;
    ``relisting_may_shadow=True`` lets a re-listing add names that shadow
    tools the server did not own at connect time.

    ``needs_approval`` (``True`` or a callable, as for ``define_tool``) makes
    every call of the server's tools ask first (validated against the
    server's schema before anyone is asked). A server's ``idempotentHint`` is
    ignored unless ``trust_hints=True``, which then declares the tool
    ``idempotent`` (an approved call of it may be retried, and run again by
    ``recover``): the hint is the server's claim, not yours.
    """
    allowed, denied = _names(allow, "allow"), _names(deny, "deny") or frozenset()
    if prefix is not None and (type(prefix) is not str or not prefix):
        raise ValueError("mcp_tools(prefix=...) must be a non-empty str")
    for label, bound in (("max_tools", max_tools), ("max_message_bytes", max_message_bytes)):
        if type(bound) is not int or bound < 1:
            raise ValueError(f"mcp_tools({label}=...) must be a positive int")
    budget = check_timeout_ms(timeout_ms, "mcp_tools")
    needs = check_needs_approval(needs_approval, "mcp_tools")
    if type(trust_hints) is not bool:
        raise TypeError("mcp_tools(trust_hints=...) takes True or False")
    ctx.tools  # noqa: B018 - fail before connecting when ctx has no registry (RuntimeError)
    if isinstance(session_or_params, ClientSession):
        connection = wrap_session(session_or_params)
    else:
        connection = await open_connection(session_or_params, max_message_bytes=max_message_bytes)
    try:
        toolset = McpToolset(
            ctx,
            connection,
            prefix=prefix,
            allow=allowed,
            deny=denied,
            timeout_ms=budget,
            max_tools=max_tools,
            relisting_may_shadow=relisting_may_shadow,
            needs_approval=needs,
            trust_hints=trust_hints,
        )
    except BaseException:
        await connection.aclose()
        raise
    connection.on_message = toolset.on_message
    try:
        await toolset.refresh(strict=True)
    except BaseException:
        await toolset.aclose()
        raise
    return toolset
