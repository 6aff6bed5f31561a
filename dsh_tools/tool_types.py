"""What a tool *is* to the registry: its wire schema and its definition protocol.

``ToolDefinition`` is structural: anything with ``name``, ``description``,
``parameters`` and an ``execute`` registers. Registration turns it into a
:class:`RegisteredTool`, a frozen snapshot (detached parameters, callbacks
captured once), and that snapshot is what ``get``/``visible`` hand back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
import math
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias, cast

from dsh_tools.content import ContentBlock, ToolOutput
from dsh_tools.json_values import FrozenJson, JsonValue
from dsh_tools.json_walk import has_lone_surrogate
from dsh_tools.record import Record

if TYPE_CHECKING:
    from dsh_tools.execution import ToolExecution
    from dsh_tools.retry import Retry
    from dsh_tools.presentation import ToolCallView, ToolResult, ToolResultView

__all__ = [
    "NeedsApproval",
    "RegisteredTool",
    "RenderValue",
    "ToolBody",
    "ToolDefinition",
    "ToolSchema",
    "MIN_INLINE_BYTES",
    "check_idempotent",
    "check_max_inline_bytes",
    "check_needs_approval",
    "check_timeout_ms",
    "check_tool_name",
    "describe_value",
]

ToolBody = Callable[[Any, "ToolExecution"], Awaitable[Sequence[ContentBlock] | ToolOutput | JsonValue]]
"""A tool's ``execute``: content blocks or ``ToolOutput``; a typed tool's returns its value."""

RenderValue = Callable[[Any, Any], Sequence[ContentBlock]]
"""A typed tool's ``render(args, value)``: the model-facing content of a value."""

NeedsApproval: TypeAlias = "bool | Callable[[ToolExecution], bool | Awaitable[bool]]"
"""``needs_approval``: ``True``, or read per call from the validated call (sync or async)."""


class ToolSchema(Record):
    """The model-facing half of a tool: name, description, JSON Schema parameters."""

    _json_fields = frozenset({"parameters"})
    name: str
    description: str
    parameters: Mapping[str, JsonValue]


class ToolDefinition(Protocol):
    """Anything registrable. Optional extras (read with ``getattr``):
    ``timeout_ms: float | None``, ``present_call(args)``, ``present_result(args, result)``,
    and for a *typed* tool ``output_schema`` (a JSON Schema in the
    structured-output subset, any root type) with an optional
    ``render(args, value) -> Sequence[ContentBlock]``. A typed tool's
    ``execute`` returns its value, or ``ToolOutput(content, value=...)`` when
    it makes the content itself. ``is_concurrency_safe(args) -> bool``
    (synchronous and pure; only an exact ``True`` lets the call's dispatch
    overlap its siblings'). ``retry: Retry | None`` (``RetryPolicy`` runs a
    failing body again as it says). ``idempotent: bool`` (a call may run
    twice to the effect of once), ``needs_approval`` (:data:`NeedsApproval`)
    and ``validate(args) -> list[str]`` (the violations of ``args``; a tool
    that needs approval has its calls validated before anyone is asked).
    """

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def parameters(self) -> Mapping[str, Any]: ...
    def execute(self, args: Any, exec: ToolExecution, /) -> Awaitable[Sequence[ContentBlock] | ToolOutput | JsonValue]: ...


class RegisteredTool(Record):
    """The registry's frozen snapshot of a definition (what ``get`` returns).

    A typed tool has an ``output_schema`` (deep-frozen), its compiled,
    total ``check_output`` (value → violations), usually a ``freeze_output``
    (the one-pass freeze and check of a value it can vouch for, else
    ``UNSURE``: :mod:`dsh_tools.definitions.shape_code`) and optionally
    ``render``; a content tool has ``None`` for all of them.
    """

    _wire_skip = frozenset(
        {
            "execute",
            "present_call",
            "present_result",
            "timeout_ms",
            "render",
            "check_output",
            "freeze_output",
            "is_concurrency_safe",
            "retry",
            "idempotent",
            "needs_approval",
            "validate",
            "max_inline_bytes",
        }
    )
    name: str
    description: str
    parameters: FrozenJson
    execute: ToolBody
    timeout_ms: float | None = None
    present_call: Callable[[Any], ToolCallView | None] | None = None
    present_result: Callable[[Any, ToolResult], ToolResultView | None] | None = None
    output_schema: FrozenJson | None = None
    render: RenderValue | None = None
    check_output: Callable[[object], list[str]] | None = None
    freeze_output: Callable[[object], object] | None = None
    is_concurrency_safe: Callable[[Any], object] | None = None
    retry: Retry | None = None
    idempotent: bool = False
    needs_approval: NeedsApproval = False
    validate: Callable[[Any], object] | None = None
    """The definition's own argument check (``validate(args) -> list[str]`` of violations), if it has one."""
    max_inline_bytes: int | None = None
    """A result text past this many UTF-8 bytes reaches the model as a preview (the registry's limit when ``None``)."""

    @property
    def schema(self) -> ToolSchema:
        """The wire schema (name, description, parameters) of this tool."""
        return ToolSchema(self.name, self.description, self.parameters)  # type: ignore[arg-type]


# -- definition-time checks, shared by ``define_tool`` and ``register`` -----------


def describe_value(value: object) -> str:
    """A safe rendering for error messages (never runs a hostile ``__repr__``)."""
    if type(value) in (str, int, float, bool, type(None)):
        return repr(value)[:80]
    return f"a {type(value).__name__}"


def check_tool_name(name: object) -> str:
    """A tool name is a non-empty ``str``; anything else is a ``ValueError``."""
    if type(name) is not str or not name:
        raise ValueError(f"tool name must be a non-empty str, got {describe_value(name)}")
    if has_lone_surrogate(name):
        raise ValueError(f"tool name must be Unicode text, got {ascii(name)} (a lone surrogate)")
    return name


MIN_INLINE_BYTES: Final = 1024
"""The smallest ``max_inline_bytes``: a preview holds a head, a tail and a line naming the locator."""


def check_max_inline_bytes(limit: object, tool: str | None = None) -> int | None:
    """``max_inline_bytes`` is ``None`` or an ``int`` of at least :data:`MIN_INLINE_BYTES`; anything else is a ``ValueError``."""
    if limit is None or (type(limit) is int and limit >= MIN_INLINE_BYTES):
        return limit
    where = f'tool "{tool}": ' if tool is not None else ""
    raise ValueError(f"{where}max_inline_bytes must be None or an int of at least {MIN_INLINE_BYTES}, got {describe_value(limit)}")


def check_idempotent(idempotent: object, tool: str) -> bool:
    """``idempotent`` is an exact ``bool`` (a truthy object is no promise that a call may run twice)."""
    if type(idempotent) is not bool:
        raise TypeError(f'tool "{tool}": idempotent must be True or False, got {describe_value(idempotent)}')
    return idempotent


def check_needs_approval(needs_approval: object, tool: str) -> NeedsApproval:
    """``needs_approval`` is ``True``, ``False`` or a callable ``(execution) -> bool | Awaitable[bool]``."""
    if type(needs_approval) is bool or (needs_approval is not None and callable(needs_approval)):
        return cast(NeedsApproval, needs_approval)
    raise TypeError(
        f'tool "{tool}": needs_approval must be True, False or a callable (execution) -> bool, '
        f"got {describe_value(needs_approval)}"
    )


def check_timeout_ms(timeout_ms: object, tool: str) -> float | None:
    """``None``, or a positive finite number of milliseconds (a bool is not a number)."""
    if timeout_ms is None:
        return None
    if type(timeout_ms) not in (int, float) or not math.isfinite(timeout_ms) or timeout_ms <= 0:  # type: ignore[arg-type,operator]
        raise ValueError(
            f'tool "{tool}": timeout_ms must be a positive finite number of milliseconds, '
            f"got {describe_value(timeout_ms)}"
        )
    return timeout_ms  # type: ignore[return-value]
