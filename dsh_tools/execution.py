"""The records one tool call is made of: input, execution, token, result.

``ToolExecutionInput`` is what a caller hands in and is deliberately lenient
(it accepts anything: ``execute`` judges it). ``ToolExecution`` is what the
pipeline owns after admission: detached, deep-frozen arguments and an opaque
``ToolExecutionToken`` the caller could not choose. ``ToolExecutionResult`` is
the outcome every path ends in, validated before observers see it.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import deque
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Final, NoReturn, Protocol

from dsh_tools.content import ContentBlock, HookContext, MessageSource, PluginSource, UserSource
from dsh_tools.frozen_dict import FrozenDict
from dsh_tools.json_values import FrozenJson, JsonValue
from dsh_tools.outcome import Outcome, outcome_for
from dsh_tools.record import Record, wire_value

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent
    from dsh_tools.signals import AbortSignal

__all__ = [
    "IDEMPOTENCY_KEY_MAX",
    "derived_idempotency_key",
    "HookContext",
    "MessageSource",
    "PluginSource",
    "ProgressChannel",
    "ToolErrorInfo",
    "ToolExecution",
    "ToolExecutionInput",
    "ToolExecutionResult",
    "ToolExecutionToken",
    "ToolProgress",
    "UnparsedArguments",
    "UserSource",
]

_MINT: Final = object()

IDEMPOTENCY_KEY_MAX: Final = 255
"""The longest ``idempotency_key`` a caller may give (an HTTP header and a database key both hold it)."""


def mint_idempotency_key() -> str:
    """A fresh key: 128 random bits (from ``os.urandom``) as 32 hex digits.

    The bits are read 256 keys at a time (one system call instead of one per
    call: a fifth of what admitting a call cost); the batch left over is
    dropped in a forked child, so two processes never hand out the same key.
    """
    try:
        return _KEY_BATCH.popleft()
    except IndexError:
        text = os.urandom(16 * _KEYS_PER_READ).hex()
        _KEY_BATCH.extend(text[i : i + 32] for i in range(0, len(text), 32))
        return _KEY_BATCH.popleft()


_KEYS_PER_READ: Final = 256
_KEY_BATCH: Final[deque[str]] = deque()
os.register_at_fork(after_in_child=_KEY_BATCH.clear)


def derived_idempotency_key(base: str, suffix: str) -> str:
    """The key of a call made on behalf of another: ``base:suffix`` (a program's sub-call, a thread's call).

    The same base and suffix give the same key, so a rerun repeats it. A
    key that would pass ``IDEMPOTENCY_KEY_MAX`` (a long caller-chosen base)
    becomes ``sha256:`` and the hash of that text instead: still one key
    per call, and one the admission check accepts.
    """
    key = f"{base}:{suffix}"
    if len(key) <= IDEMPOTENCY_KEY_MAX:
        return key
    return "sha256:" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class ProgressChannel(Protocol):
    """Where a running call's progress reports go: its plan, while the call runs (internal)."""

    def report_progress(
        self, execution: ToolExecution, progress: float, total: float | None, message: str | None, /
    ) -> Awaitable[None] | None:
        """Deliver one checked report (``None``: nothing to await)."""
        ...


class ToolExecutionToken:
    """An opaque identity for one execution: equality (identity) only.

    It has no public fields and cannot be constructed or copied by users; the
    registry mints one per admitted call and marks it as its own (``_issuer``,
    the registry's private mark: a set of every token minted cost a weak
    reference and its callback per call), so a forged ``parent``, or another
    registry's, is recognised and refused.

    While its call runs, the token is the call's channel to the pipeline
    (``_channel``: the call's plan, set when the plan is built and cleared
    when the call settles). Every ``exec.set(...)`` copy shares the token, so
    a body's ``exec.report_progress`` reaches its call without any lookup,
    and a sub-call's ``parent`` leads to the call that made it.
    """

    __slots__ = ("__weakref__", "_channel", "_issuer")
    _channel: ProgressChannel | None
    _issuer: object

    def __new__(cls, _key: object = None, _issuer: object = None) -> ToolExecutionToken:
        if _key is not _MINT:
            raise TypeError("ToolExecutionToken cannot be constructed; the registry assigns it")
        token = super().__new__(cls)
        token._channel = None
        token._issuer = _issuer
        return token

    def __init_subclass__(cls, **kwargs: Any) -> NoReturn:
        raise TypeError("ToolExecutionToken cannot be subclassed")

    def __copy__(self) -> ToolExecutionToken:
        return self

    def __deepcopy__(self, memo: object) -> ToolExecutionToken:
        return self

    def __reduce__(self) -> NoReturn:
        raise TypeError("ToolExecutionToken cannot be pickled")

    def __repr__(self) -> str:
        return f"<ToolExecutionToken {id(self):#x}>"


def mint_token(issuer: object = None) -> ToolExecutionToken:
    """Internal: the registry's way to create a token, marked with ``issuer`` (the registry's own mark)."""
    return ToolExecutionToken(_MINT, issuer)


def issued_by(token: object, issuer: object) -> bool:
    """Whether ``token`` is a token minted with the mark ``issuer`` (never for ``issuer=None``)."""
    return issuer is not None and type(token) is ToolExecutionToken and getattr(token, "_issuer", None) is issuer  # a forged one may lack it


class UnparsedArguments(Record):
    """Stands in for ``arguments`` the model sent but that cannot be run as sent.

    A provider adapter puts this in ``ToolExecutionInput.arguments`` when the
    model's arguments text is not valid JSON, is not a JSON object, or the
    call cannot run for another reason of its own (a duplicate call id). The
    registry settles such a call at admission, before policy and the body,
    as an ``INVALID_ARGS`` error (``ToolArgsError``) whose text is
    ``invalid arguments: <problem>``; ``tools/result`` observers still see it,
    with ``raw`` (the model's text, when there was one) as its arguments, so
    an audit log keeps what the model actually sent.
    """

    problem: str
    raw: str | None = None


class ToolExecutionInput(Record):
    """A caller's description of one call. Accepts anything; ``execute`` judges it."""

    _wire_skip = frozenset({"agent", "parent", "signal", "idempotency_key"})

    call_id: str
    name: str
    arguments: JsonValue | UnparsedArguments
    agent: Agent | None = None
    parent: ToolExecutionToken | None = None
    signal: AbortSignal | None = None
    idempotency_key: str | None = None
    """The call's key across retries, resumes and workers; minted at admission when not given."""


class ToolExecution(Record):
    """The pipeline-owned call: immutable identity plus the operational ``signal``.

    ``idempotency_key`` is the same for the call across retries, resumes,
    replays, recoveries and workers, and differs between calls (it carries at
    least 128 random bits unless the caller chose it): a body forwards it to
    whatever it changes (an HTTP ``Idempotency-Key`` header, a payment API's
    key), so a call run twice takes effect once. See ``docs/durability.md``.
    """

    _json_fields = frozenset({"arguments"})
    token: ToolExecutionToken
    call_id: str
    name: str
    arguments: FrozenJson
    agent: Agent | None = None
    parent: ToolExecutionToken | None = None
    signal: AbortSignal | None = None
    idempotency_key: str = ""

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Tell ``tools/progress`` listeners how far this call got (rate-limited; dropped once it settled).

        ``progress`` and ``total`` are finite numbers (``ValueError`` otherwise);
        see :mod:`dsh_tools.progress`.
        """
        value = _finite(progress, "progress")
        whole = None if total is None else _finite(total, "total")
        if message is not None and type(message) is not str:
            raise ValueError(f"report_progress: message must be a str, got {type(message).__name__}")
        channel: ProgressChannel | None = self.token._channel
        if channel is None:
            return  # not dispatched yet, or already settled
        pending = channel.report_progress(self, value, whole, message)
        if pending is not None:
            await pending

    def to_json(self) -> dict[str, Any]:
        """``{callId, name, arguments, agent?}`` (the agent by name; tokens and signal stay out)."""
        out: dict[str, Any] = {"callId": self.call_id, "name": self.name, "arguments": wire_value(self.arguments)}
        if self.agent is not None:
            out["agent"] = getattr(self.agent, "name", None)
        return out


def _finite(value: object, name: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):  # type: ignore[arg-type]
        raise ValueError(f"report_progress: {name} must be a finite number, got {type(value).__name__}")
    return value  # type: ignore[return-value]


class ToolProgress(Record):
    """How far a running call got: ``progress`` of ``total`` (when known), with an optional message."""

    call_id: str
    progress: float
    total: float | None = None
    message: str | None = None


class ToolErrorInfo(Record):
    """The structured failure class of a ``HarnessError`` result."""

    name: str
    code: str


class ToolExecutionResult(Record):
    """The losslessly-JSON outcome of one call, after every policy and transform.

    ``value`` is the frozen canonical value of a successful *typed* call (a
    tool with an ``output_schema``), validated against that schema; ``None``
    otherwise. It is execution-local: Code Mode programs receive it, but
    ``to_json()`` (and so every log) leaves it out, and the model reads only
    ``content``.

    ``outcome`` says how the call ended (``"ok"``, ``"denied"``,
    ``"timeout"``, ...; see :data:`~dsh_tools.outcome.Outcome`), so a loop
    tells a denial from a crash without reading text. It is never stale: a
    success is always ``"ok"``, an error code the one outcome table knows
    decides it, and otherwise the stage that settled the call names it (a
    result built without one is ``"error"``). Like ``value``, it stays out of
    ``to_json()``.
    """

    _json_fields = frozenset({"content", "meta", "value"})
    _wire_skip = frozenset({"value", "outcome"})
    call_id: str
    content: Sequence[ContentBlock]
    is_error: bool
    error: ToolErrorInfo | None = None
    additional_context: HookContext | None = None
    meta: JsonValue | None = None
    value: JsonValue | None = None
    outcome: Outcome = None  # type: ignore[assignment]  # filled in by _with_outcome, never left None

    @staticmethod
    def _record_finish(result: ToolExecutionResult) -> ToolExecutionResult:
        """Every result made (constructed or ``set``) gets its ``outcome`` from its other fields (:func:`_with_outcome`)."""
        return _with_outcome(result)

    @property
    def text(self) -> str:
        """The text of the content's ``text`` blocks, one per line (other kinds skipped)."""
        return content_text(self.content)

    def meta_get(self, key: str) -> JsonValue | None:
        """``meta[key]`` when ``meta`` is a JSON object holding ``key``; ``None`` otherwise.

        ``meta`` may be any JSON value (an object by convention, but a list or
        nothing as well), so reading one key of it took an ``isinstance``
        narrowing in every caller under ``mypy --strict``;
        ``result.meta_get("approvalId")`` is that read, typed ``JsonValue |
        None``. A key that holds ``null`` reads ``None`` too.
        """
        return meta_member(self.meta, key)


def meta_member(meta: object, key: object) -> JsonValue | None:
    """``meta[key]`` of a JSON object with a ``str`` key, else ``None``: the one rule of the ``meta_get`` accessors.

    Only an exact ``dict`` or ``FrozenDict`` (what a record holds) is read, so
    no method of anything else runs and the read cannot raise.
    """
    if (type(meta) is FrozenDict or type(meta) is dict) and type(key) is str:
        value: JsonValue | None = meta.get(key)
        return value
    return None


def _with_outcome(result: ToolExecutionResult) -> ToolExecutionResult:
    """Make a just-built result's ``outcome`` agree with its other fields (before anyone sees it)."""
    error = result.error
    code = error.code if type(error) is ToolErrorInfo else None
    outcome = outcome_for(result.is_error, code, result.outcome)
    if outcome != result.outcome:
        object.__setattr__(result, "outcome", outcome)
    return result


def content_text(content: Sequence[ContentBlock]) -> str:
    """Join the ``text`` of every ``{"type": "text"}`` block with newlines."""
    parts: list[str] = []
    for block in content:
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str):
            parts.append(text)
    return "\n".join(parts)
