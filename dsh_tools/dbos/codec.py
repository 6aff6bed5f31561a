"""What crosses a queue: a call's request to the worker, and its result back, as JSON text.

Both directions are plain JSON (never pickles): a worker may run another
build of this package, and an operator may read DBOS's rows. The request
carries what the worker needs to run the call as the caller planned it: the
call (id, tool, arguments, key), who made it (the agent's id, name, mode and
restrictions), the fingerprint of the tool the caller resolved (and, for
``run_code``, of the catalog its program is written against), whether it was
approved, a Code Mode rerun's replay, and the tracing context. The result is
``to_json()`` plus ``value`` and ``outcome``: read back, it is the same
record a local call gives.

:func:`decode_request` is a trust boundary (anyone with the database can
enqueue): it checks every field and raises ``ValueError`` naming the first
that is wrong.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from dsh_tools.dbos.names import WORKFLOW_PREFIX, agent_key
from dsh_tools.execution import HookContext, PluginSource, ToolErrorInfo, ToolExecutionResult, UserSource
from dsh_tools.json_values import JsonValue, thaw_json
from dsh_tools.outcome import OUTCOMES, Outcome
from dsh_tools.record import Record
from dsh_tools.registry.approvals import fingerprint
from dsh_tools.tool_types import RegisteredTool

__all__ = [
    "FORMAT",
    "Request",
    "catalog_digest",
    "decode_request",
    "decode_result",
    "encode_request",
    "encode_result",
    "workflow_id",
]

FORMAT: Final = 1
"""The request format's version: a worker refuses one it does not know."""

Restrictions = tuple[tuple[tuple[str, ...] | None, tuple[str, ...]], ...]
"""An agent's ``restrict()`` calls in force, as ``(allow or None, deny)``, names sorted."""


class Request(Record):
    """One queued dispatch, as the worker reads it (see the module docstring)."""

    _json_fields = frozenset({"arguments", "replay"})
    call_id: str
    name: str
    arguments: JsonValue
    idempotency_key: str
    dispatch: int
    fingerprint: str
    enqueued_at: float
    max_payload_bytes: int
    agent_id: str | None = None
    agent_name: str | None = None
    mode: str = "native"
    restrictions: Restrictions = ()
    catalog: str | None = None
    approved: bool = False
    approval_id: str | None = None
    replay: JsonValue | None = None
    trace: tuple[tuple[str, str], ...] = ()


def workflow_id(agent_id: str | None, idempotency_key: str, dispatch: int) -> str:
    """``dsh:<agent_id>:<key>:<n>``: the ``n``-th dispatch of that call (``-`` for a call without an agent)."""
    return f"{WORKFLOW_PREFIX}{agent_key(agent_id)}:{idempotency_key}:{dispatch}"


def catalog_digest(tools: Sequence[RegisteredTool]) -> str:
    """One hash of the fingerprints of ``tools`` (what a program is written against), order-free."""
    return hashlib.sha256("\n".join(sorted(fingerprint(tool) for tool in tools)).encode()).hexdigest()


def encode_request(request: Request) -> str:
    data: dict[str, Any] = {"format": FORMAT}
    for name in Request._record_fields:
        value = getattr(request, name)
        data[name] = thaw_json(value) if name in Request._json_fields and value is not None else value
    return orjson.dumps(data).decode()


def decode_request(text: object) -> Request:
    """The request in ``text``; ``ValueError`` naming what is wrong (a worker's trust boundary)."""
    if type(text) is not str:
        raise ValueError(f"a request is JSON text, got {type(text).__name__}")
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise ValueError(f"a request is JSON: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a request of format {FORMAT}")
    fields: dict[str, Any] = {name: data[name] for name in Request._record_fields if name in data}
    for name in ("call_id", "name", "idempotency_key", "fingerprint"):
        _want(fields, name, str)
    _want(fields, "dispatch", int)
    _want(fields, "max_payload_bytes", int)
    _want(fields, "enqueued_at", (int, float))
    for name in ("agent_id", "agent_name", "catalog", "approval_id"):
        _want(fields, name, (str, type(None)), optional=True)
    _want(fields, "mode", str, optional=True)
    _want(fields, "approved", bool, optional=True)
    fields["restrictions"] = _restrictions(fields.get("restrictions", ()))
    trace = fields.get("trace", ())
    if not isinstance(trace, list) or not all(_pair_of_str(pair) for pair in trace):
        raise ValueError("a request's trace is a list of [key, value] strings")
    fields["trace"] = tuple((pair[0], pair[1]) for pair in trace)
    try:
        return Request(**fields)
    except (TypeError, ValueError) as error:
        raise ValueError(f"a request does not read as one: {error}") from None


def _want(fields: dict[str, Any], name: str, kind: type | tuple[type, ...], *, optional: bool = False) -> None:
    if name not in fields:
        if optional:
            return
        raise ValueError(f"a request has no {name}")
    value = fields[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, (int, float))):
        raise ValueError(f"a request's {name} is not a {kind}")


def _pair_of_str(pair: object) -> bool:
    return isinstance(pair, list) and len(pair) == 2 and all(type(item) is str for item in pair)


def _restrictions(value: object) -> Restrictions:
    if not isinstance(value, (list, tuple)):
        raise ValueError("a request's restrictions are a list of [allow or null, deny]")
    out = []
    for item in value:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ValueError("a request's restriction is [allow or null, deny]")
        allow, deny = item
        out.append((None if allow is None else _names(allow), _names(deny)))
    return tuple(out)


def _names(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not all(type(name) is str for name in value):
        raise ValueError("a request's restriction names are lists of strings")
    return tuple(value)


def encode_result(result: ToolExecutionResult) -> str:
    """``{"result": to_json(), "value": ..., "outcome": ...}`` as JSON text."""
    data = {"result": result.to_json(), "value": thaw_json(result.value), "outcome": result.outcome}
    return orjson.dumps(data).decode()


def decode_result(text: object) -> ToolExecutionResult:
    """The result :func:`encode_result` wrote; ``ValueError`` if ``text`` is not one (checked, never asserted)."""
    try:
        data = orjson.loads(text) if type(text) is str else None
        if not isinstance(data, dict):
            raise ValueError("it is not a JSON object")
        wire = data.get("result")
        if not isinstance(wire, dict):
            raise ValueError("its result is not an object")
        outcome = data.get("outcome")
        if type(outcome) is not str or outcome not in OUTCOMES:
            raise ValueError(f"its outcome {outcome!r} is not one of {sorted(OUTCOMES)}")
        error = wire.get("error")
        info = None if error is None else ToolErrorInfo(error["name"], error["code"])
        return ToolExecutionResult(
            wire["callId"],
            wire["content"],
            wire["isError"],
            error=info,
            additional_context=_hook_context(wire.get("additionalContext")),
            meta=wire.get("meta"),
            value=data.get("value"),
            outcome=_outcome(outcome),
        )
    except (KeyError, TypeError, ValueError, orjson.JSONDecodeError) as error:
        raise ValueError(f"a queued call's result does not read as one: {error!r}"[:300]) from None


def _outcome(word: str) -> Outcome:
    return word  # type: ignore[return-value]  # checked against OUTCOMES by the caller


def _hook_context(wire: object) -> HookContext | None:
    if wire is None:
        return None
    if not isinstance(wire, Mapping):
        raise ValueError("its additionalContext is not an object")
    source = wire["source"]
    kind = source["kind"]
    made = UserSource() if kind == "user" else PluginSource(source["plugin"])
    return HookContext(wire["content"], made)
