"""``define_tool``: a typed tool whose body only ever sees arguments matching its type.

The model's JSON is untrusted; a TypedDict (or ``SchemaSpec``) annotation is a
compile-time claim. So the definition compiles its spec once into a validator
and ``execute`` checks every call before the body runs, raising
``ToolArgsError`` with every violation (the registry turns that into an
``is_error`` result the model corrects itself from).

Everything that can be wrong with a *definition* fails here, at definition
time, as an exception naming the culprit. Everything that can be wrong with a
*call* is data (a violation list), and presentation never raises at all: a UI
may replay old logs through ``present_call``/``present_result``, and display
must not crash a replay.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final, Generic, TypeVar, overload

from dsh_tools.content import ContentBlock, ToolOutput
from dsh_tools.definitions.json_schema import schema_spec_to_json_schema
from dsh_tools.definitions.props import Prop, checked_spec
from dsh_tools.definitions.typed_dict import typed_dict_spec
from dsh_tools.definitions.validation import compile_spec
from dsh_tools.errors import ToolArgsError
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import FrozenJson, JsonValue, freeze_json, thaw_json
from pyrsistent.typing import PMap
from dsh_tools.schema import check_timeout_ms, check_tool_name
from dsh_tools.presentation import (
    DiffCallView,
    DiffResultView,
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    ToolCallView,
    ToolResult,
    ToolResultView,
)

__all__ = ["DefinedTool", "ToolReturn", "define_tool"]

A = TypeVar("A")

ToolReturn = Sequence[ContentBlock] | ToolOutput
"""What a tool body returns: content blocks, or ``ToolOutput`` with a ``meta``."""

_CALL_VIEWS: Final = frozenset({GenericCallView, TerminalCallView, DiffCallView})
_RESULT_VIEWS: Final = frozenset({GenericResultView, TerminalResultView, DiffResultView})


def _identity(args: object) -> object:
    return args


class DefinedTool(Generic[A]):
    """A ``ToolDefinition`` made by :func:`define_tool` (immutable; build it with that).

    ``execute``, ``present_call`` and ``present_result`` are always present:
    the presenters return ``None`` when no presenter was given, when the args
    do not match the schema, when the presenter raises, or when it returns
    something that is not a view. ``spec`` is the checked ``SchemaSpec`` the
    schema and the validator were both derived from.
    """

    __slots__ = (
        "_args_type",
        "_body",
        "_convert",
        "_description",
        "_name",
        "_parameters",
        "_present_call",
        "_present_result",
        "_spec",
        "_timeout_ms",
        "_validate",
    )

    _name: str
    _description: str
    _parameters: PMap[str, FrozenJson]
    _spec: Mapping[str, Prop]
    _args_type: type | None
    _timeout_ms: float | None
    _body: Callable[[A, ToolExecution], Awaitable[ToolReturn]]
    _validate: Callable[[object], list[str]]
    _convert: Callable[[object], Any]
    _present_call: Callable[[A], ToolCallView | None] | None
    _present_result: Callable[[A, ToolResult], ToolResultView | None] | None

    def __init__(
        self,
        *,
        name: str,
        description: str,
        spec: dict[str, Prop],
        args_type: type | None,
        body: Callable[[A, ToolExecution], Awaitable[ToolReturn]],
        timeout_ms: float | None,
        present_call: Callable[[A], ToolCallView | None] | None,
        present_result: Callable[[A, ToolResult], ToolResultView | None] | None,
    ) -> None:
        schema = freeze_json(schema_spec_to_json_schema(spec)).unwrap()
        values: dict[str, object] = {
            "_name": name,
            "_description": description,
            "_parameters": schema,
            "_spec": MappingProxyType(spec),
            "_args_type": args_type,
            "_timeout_ms": timeout_ms,
            "_body": body,
            "_validate": compile_spec(spec),
            # A TypedDict body gets plain dict/list (what its annotation promises);
            # a SchemaSpec body gets the (frozen) Mapping it was called with.
            "_convert": thaw_json if args_type is not None else _identity,
            "_present_call": present_call,
            "_present_result": present_result,
        }
        for slot, value in values.items():
            object.__setattr__(self, slot, value)

    @property
    def name(self) -> str:
        """The tool name the model calls."""
        return self._name

    @property
    def description(self) -> str:
        """What the model reads about the tool."""
        return self._description

    @property
    def parameters(self) -> PMap[str, FrozenJson]:
        """The deep-frozen JSON Schema of the arguments (object-rooted)."""
        return self._parameters

    @property
    def spec(self) -> Mapping[str, Prop]:
        """The checked ``SchemaSpec`` both the schema and the validator came from (read-only)."""
        return self._spec

    @property
    def args_type(self) -> type | None:
        """The TypedDict given as ``args=``, or ``None`` for a ``parameters=`` tool."""
        return self._args_type

    @property
    def timeout_ms(self) -> float | None:
        """The cooperative time budget in milliseconds, or ``None`` (never sent to the model)."""
        return self._timeout_ms

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"DefinedTool is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"DefinedTool is immutable; cannot delete {name!r}")

    def __repr__(self) -> str:
        return f"<DefinedTool {self.name!r}>"

    def validate(self, args: object) -> list[str]:
        """The violations of ``args`` against this tool's schema (empty = valid; never raises)."""
        return self._validate(args)

    async def execute(self, args: object, exec: ToolExecution, /) -> ToolReturn:
        """Validate ``args`` (``ToolArgsError`` listing every violation), then run the body."""
        violations = self._validate(args)
        if violations:
            raise ToolArgsError(violations)
        return await self._body(self._convert(args), exec)

    def present_call(self, args: object, /) -> ToolCallView | None:
        """The pending-call card, or ``None`` (no presenter, bad args, presenter failure)."""
        presenter = self._present_call
        if presenter is None:
            return None
        try:
            if self._validate(args):
                return None
            view = presenter(self._convert(args))
        except Exception:  # noqa: BLE001 - display must never crash a replay
            return None
        return view if type(view) in _CALL_VIEWS else None

    def present_result(self, args: object, result: ToolResult, /) -> ToolResultView | None:
        """The completed-call card, or ``None`` (no presenter, bad input, presenter failure)."""
        presenter = self._present_result
        if presenter is None or type(result) is not ToolResult:
            return None
        try:
            if self._validate(args):
                return None
            view = presenter(self._convert(args), result)
        except Exception:  # noqa: BLE001 - display must never crash a replay
            return None
        return view if type(view) in _RESULT_VIEWS else None


@overload
def define_tool(
    *,
    name: str,
    description: str,
    args: type[A],
    execute: Callable[[A, ToolExecution], Awaitable[ToolReturn]],
    timeout_ms: float | None = None,
    present_call: Callable[[A], ToolCallView | None] | None = None,
    present_result: Callable[[A, ToolResult], ToolResultView | None] | None = None,
) -> DefinedTool[A]: ...


@overload
def define_tool(
    *,
    name: str,
    description: str,
    parameters: Mapping[str, Prop],
    execute: Callable[[Mapping[str, JsonValue], ToolExecution], Awaitable[ToolReturn]],
    timeout_ms: float | None = None,
    present_call: Callable[[Mapping[str, JsonValue]], ToolCallView | None] | None = None,
    present_result: Callable[[Mapping[str, JsonValue], ToolResult], ToolResultView | None] | None = None,
) -> DefinedTool[Mapping[str, JsonValue]]: ...


def define_tool(
    *,
    name: str,
    description: str,
    args: type[Any] | None = None,
    parameters: Mapping[str, Prop] | None = None,
    execute: Callable[[Any, ToolExecution], Awaitable[ToolReturn]],
    timeout_ms: float | None = None,
    present_call: Callable[[Any], ToolCallView | None] | None = None,
    present_result: Callable[[Any, ToolResult], ToolResultView | None] | None = None,
) -> DefinedTool[Any]:
    """Define a typed tool from a TypedDict (``args=``) or a ``SchemaSpec`` (``parameters=``).

    Raises at definition time: ``ValueError`` for a bad name, description,
    ``timeout_ms`` or malformed ``Prop``; ``TypeError`` for an unsupported
    TypedDict field (named), both or neither of ``args``/``parameters``, or a
    non-callable ``execute``/presenter.
    """
    check_tool_name(name)
    if type(description) is not str:
        raise ValueError(f'tool "{name}": description must be a str, got {type(description).__name__}')
    check_timeout_ms(timeout_ms, name)
    if not callable(execute):
        raise TypeError(f'tool "{name}": execute must be callable')
    for label, presenter in (("present_call", present_call), ("present_result", present_result)):
        if presenter is not None and not callable(presenter):
            raise TypeError(f'tool "{name}": {label} must be callable or None')
    if (args is None) == (parameters is None):
        raise TypeError(f'tool "{name}": give exactly one of args= (a TypedDict) or parameters= (a SchemaSpec)')
    if args is not None:
        try:
            spec = typed_dict_spec(args)
        except TypeError as error:
            raise TypeError(f'tool "{name}": {error}') from None
    else:
        spec = checked_spec(parameters, where=f'tool "{name}" parameters')
    return DefinedTool(
        name=name,
        description=description,
        spec=spec,
        args_type=args,
        body=execute,
        timeout_ms=timeout_ms,
        present_call=present_call,
        present_result=present_result,
    )
