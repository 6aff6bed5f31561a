"""What every provider adapter shares: reading the provider's objects, decoding
arguments, the naming rule, and splitting content into text and images.

Provider messages arrive as SDK objects (pydantic models) or as plain mappings
(a logged request, a test fixture, another client). :func:`read` treats both
alike and is total: a missing field, or an object whose attribute access
raises, reads as ``None``. So a malformed message becomes a clear error
*result* for the call it breaks (see :class:`~dsh_tools.UnparsedArguments`),
and only a message that cannot be answered at all (a call without an id)
raises, at the adapter edge, before anything runs.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

import orjson
from returns.result import Failure

from dsh_tools.content import ContentBlock
from dsh_tools.execution import ToolExecutionInput, UnparsedArguments
from dsh_tools.json_values import JsonValue, freeze_json, thaw_json
from dsh_tools.tool_types import ToolSchema

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent

__all__ = [
    "NAME_RULE",
    "ProviderCall",
    "checked_name",
    "data_url",
    "decode_arguments",
    "execution_inputs",
    "image_of",
    "items_of",
    "object_arguments",
    "parameters_of",
    "read",
    "require_sdk",
    "truncated",
    "verbatim",
]

NAME_RULE: Final = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""The tool-name rule OpenAI and Anthropic share (``^[a-zA-Z0-9_-]{1,64}$``)."""


def require_sdk(module: str, extra: str, adapter: str) -> None:
    """Raise an ``ImportError`` that names the extra when the provider's SDK is missing.

    The adapters only build and read plain data, but their types are the SDK's
    and a loop needs the SDK's client anyway: failing at import, with the pip
    line, beats a confusing error later.
    """
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ImportError(
            f"{adapter} needs the {module!r} package, which is not installed: "
            f"pip install 'dsh-tools[{extra}]'",
            name=module,
        )


def checked_name(name: str) -> str:
    """``name`` itself, or ``ValueError`` naming it when the providers would reject it."""
    if type(name) is not str or NAME_RULE.fullmatch(name) is None:
        raise ValueError(
            f"tool name {name!r} is not accepted by the provider: "
            "names must match ^[a-zA-Z0-9_-]{1,64}$"
        )
    return name


def parameters_of(schema: ToolSchema) -> dict[str, object]:
    """The schema's parameters as a new plain ``dict`` (the SDKs' parameter type)."""
    thawed = thaw_json(schema.parameters)
    if type(thawed) is not dict:
        raise ValueError(f'tool "{schema.name}": parameters must be a JSON object')
    return thawed


def read(source: object, key: str) -> object:
    """``source[key]`` for a mapping, ``source.key`` for an SDK object; ``None`` when absent.

    Total: a hostile ``__getattr__``/``get`` or a pydantic model built without
    the field reads as absent instead of raising into the loop.
    """
    try:
        if isinstance(source, Mapping):
            return source.get(key)
        return getattr(source, key, None)
    except Exception:  # noqa: BLE001 - a broken provider object is data here
        return None


def items_of(value: object) -> list[object]:
    """A provider list as a Python list; ``None``, a non-list or a broken iterator reads as no items."""
    if not isinstance(value, Iterable) or isinstance(value, (str, bytes, Mapping)):
        return []
    try:
        return list(value)
    except Exception:  # noqa: BLE001 - a broken provider list: no calls
        return []


def decode_arguments(raw: object) -> JsonValue | UnparsedArguments:
    """The model's arguments *text* as a frozen JSON object, or why it cannot be one.

    An empty (or all-whitespace) text means "no arguments" (``{}``): models send
    that for parameterless tools. Anything orjson refuses is "not valid JSON",
    said as such, so the model is told what it actually got wrong instead of
    a schema violation about a string.
    """
    if isinstance(raw, bytes):
        try:
            raw = raw.decode()
        except UnicodeDecodeError:
            return UnparsedArguments("the arguments are not valid UTF-8 text")
    if type(raw) is not str:
        if raw is None:
            return UnparsedArguments("the call carries no arguments text")
        return UnparsedArguments(f"the arguments must be a JSON text, got {type(raw).__name__}")
    if not raw.strip():
        return {}
    try:
        parsed: object = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return UnparsedArguments(f"the arguments are not valid JSON ({error})", raw)
    return object_arguments(parsed, raw)


def object_arguments(value: object, raw: str | None = None) -> JsonValue | UnparsedArguments:
    """``value`` frozen, when it is a JSON object within the JSON boundary's limits."""
    if not isinstance(value, Mapping):
        return UnparsedArguments(f"the arguments must be a JSON object, got {_json_kind(value)}", raw)
    frozen = freeze_json(value)
    if type(frozen) is Failure:
        return UnparsedArguments(f"the arguments cannot be used: {frozen.failure()}", raw)
    arguments: JsonValue = frozen.unwrap()
    return arguments


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, Sequence):
        return "array"
    return type(value).__name__


def truncated(arguments: JsonValue | UnparsedArguments, why: str) -> UnparsedArguments:
    """The stand-in for a call the model did not finish writing (the reply was cut off)."""
    raw = arguments.raw if isinstance(arguments, UnparsedArguments) else None
    return UnparsedArguments(f"{why}; the call may be incomplete, so it was not run", raw)


class ProviderCall(NamedTuple):
    """One tool call read out of a provider message, before it becomes an input."""

    call_id: object
    name: object
    arguments: JsonValue | UnparsedArguments


def execution_inputs(calls: Iterable[ProviderCall], agent: Agent | None, what: str) -> list[ToolExecutionInput]:
    """The calls as ``ToolExecutionInput``s, in order.

    A call without a usable id raises ``ValueError``: no reply could be
    matched to it, so the message cannot be answered. A second call reusing
    an id settles as an error rather than running twice.
    """
    inputs: list[ToolExecutionInput] = []
    seen: set[str] = set()
    for position, call in enumerate(calls):
        call_id = call.call_id
        if type(call_id) is not str or not call_id:
            raise ValueError(
                f"{what} {position} has no id (got {type(call_id).__name__}): "
                "the message is malformed, no result could be matched to this call"
            )
        name = call.name if type(call.name) is str else ""
        arguments = call.arguments
        if call_id in seen:
            arguments = UnparsedArguments(
                f'call id "{call_id}" is used by an earlier call of this message, so this call was not run'
            )
        seen.add(call_id)
        inputs.append(ToolExecutionInput(call_id, name, arguments, agent=agent))
    return inputs


def image_of(block: ContentBlock) -> tuple[str, str] | None:
    """``(base64 data, mime type)`` of an ``image_block``, else ``None``."""
    if block.get("type") != "image":
        return None
    data, mime = block.get("data"), block.get("mimeType")
    return (data, mime) if isinstance(data, str) and isinstance(mime, str) else None


def data_url(data: str, mime: str) -> str:
    """``data:<mime>;base64,<data>``: how OpenAI takes inline images."""
    return f"data:{mime};base64,{data}"


def verbatim(item: object) -> object:
    """A provider object as the JSON it arrived as (an SDK model's ``to_dict()``: the fields the API sent), a mapping as a dict.

    ``ValueError`` for anything else: a thread keeps what the provider said, or nothing.
    """
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(item, Mapping):
        return dict(item)
    raise ValueError(f"a provider message must be an SDK object or a mapping, got {type(item).__name__}")
