"""``define_tool``: a typed tool whose body only ever sees arguments matching its type.

The model's JSON is untrusted; a TypedDict (or ``SchemaSpec``) annotation is a
compile-time claim. So the definition compiles its spec once into a validator
and ``execute`` checks every call before the body runs, raising
``ToolArgsError`` with every violation (the registry turns that into an
``is_error`` result the model corrects itself from).

A *typed* tool (``output=T``) returns a value of type ``T`` instead of content
blocks; mypy checks the body's return type against ``T`` through the
overloads below, the registry checks the value at run time against the JSON
Schema ``T`` declares (``output_schema``) and renders it for the model with
``render`` (default: a string as is, anything else as compact JSON).

Everything that can be wrong with a *definition* fails here, at definition
time, as an exception naming the culprit. Everything that can be wrong with a
*call* is data (a violation list), and presentation never raises at all: a UI
may replay old logs through ``present_call``/``present_result``, and display
must not crash a replay.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from types import CoroutineType, MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, cast, overload

from dsh_tools.content import ContentBlock, ToolOutput
from dsh_tools.definitions.json_schema import schema_spec_to_json_schema
from dsh_tools.definitions.output_schema import compile_value_check
from dsh_tools.definitions.output_type import output_json_schema
from dsh_tools.definitions.props import Prop, checked_spec
from dsh_tools.definitions.typed_dict import typed_dict_spec
from dsh_tools.definitions.validation import compile_spec
from dsh_tools.errors import ToolArgsError
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import FrozenDict, FrozenJson, JsonValue, freeze_json, thaw_json
from dsh_tools.record import Record
from dsh_tools.retry import Retry, check_retry
from dsh_tools.tool_types import (
    NeedsApproval, check_idempotent, check_max_inline_bytes, check_needs_approval, check_timeout_ms, check_tool_name,
)
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

if TYPE_CHECKING:
    # ``output=str | int`` is a type form, not a ``type``: PEP 747 lets mypy infer ``O`` from it.
    from typing_extensions import TypeForm

__all__ = ["DefinedTool", "ToolReturn", "define_tool"]

A = TypeVar("A")
O = TypeVar("O")

ToolReturn = Sequence[ContentBlock] | ToolOutput
"""What a content tool's body returns: content blocks, or ``ToolOutput`` with a ``meta``."""

OutputSchema = Prop | Mapping[str, JsonValue]
"""``output=`` as data: a ``Prop`` or a JSON Schema mapping (the value is then a ``JsonValue``)."""

_CALL_VIEWS: Final = frozenset({GenericCallView, TerminalCallView, DiffCallView})
_RESULT_VIEWS: Final = frozenset({GenericResultView, TerminalResultView, DiffResultView})


def _identity(args: object) -> object:
    return args


_SETTABLE: Final = frozenset(
    {"name", "description", "timeout_ms", "retry", "idempotent", "needs_approval", "max_inline_bytes"}
)
"""What :meth:`DefinedTool.set` may replace: the fields nothing else is derived from."""


class DefinedTool(Record, Generic[A]):
    """A ``ToolDefinition`` made by :func:`define_tool` (an immutable record; build it with that).

    Its fields are what ``define_tool`` derived, once, from what it was given:
    the deep-frozen ``parameters`` schema and the ``validator`` both come from
    ``spec`` (the checked ``SchemaSpec``), ``converter`` turns the frozen
    arguments into what the body's annotation promises, and the author's
    callables are kept as given (``body``, ``call_presenter``,
    ``result_presenter``, ``renderer``, ``classifier``).

    ``execute``, ``present_call`` and ``present_result`` are always present:
    the presenters return ``None`` when no presenter was given, when the args
    do not match the schema, when the presenter raises, or when it returns
    something that is not a view.

    Unlike other records it compares and hashes by identity: two definitions
    with equal fields but different bodies are different tools, and a body
    is compared by identity anyway.
    """

    name: str
    description: str
    parameters: FrozenDict[str, FrozenJson]
    spec: Mapping[str, Prop]
    args_type: type | None
    timeout_ms: float | None
    retry: Retry | None
    idempotent: bool
    needs_approval: NeedsApproval
    max_inline_bytes: int | None
    output_schema: FrozenDict[str, FrozenJson] | None
    body: Callable[[A, ToolExecution], Awaitable[Any]]
    validator: Callable[[object], list[str]]
    converter: Callable[[object], Any]
    call_presenter: Callable[[A], ToolCallView | None] | None
    result_presenter: Callable[[A, ToolResult], ToolResultView | None] | None
    renderer: Callable[[A, Any], Sequence[ContentBlock]] | None
    classifier: Callable[[A], bool] | None

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    if not TYPE_CHECKING:

        def set(self, *args, **kwargs):
            """A copy with some of ``name``, ``description``, ``timeout_ms``, ``retry``, ``idempotent``,
            ``needs_approval``, ``max_inline_bytes`` replaced, checked as ``define_tool`` checks them.

            The other fields are derived together from the spec and the
            author's callables (``parameters`` and ``validator`` from ``spec``,
            ``converter`` from ``args_type``): replacing one alone would make a
            tool that disagrees with itself, so that is ``define_tool``'s to do.
            """
            changes = {args[0]: args[1]} if args else dict(kwargs)
            derived = sorted(changes.keys() - _SETTABLE)
            if derived:
                raise AttributeError(f"{type(self).__name__}.set() cannot replace {derived}: define the tool again")
            name = check_tool_name(changes.get("name", self.name))
            check_timeout_ms(changes.get("timeout_ms", self.timeout_ms), name)
            check_retry(changes.get("retry", self.retry), name)
            check_idempotent(changes.get("idempotent", self.idempotent), name)
            check_needs_approval(changes.get("needs_approval", self.needs_approval), name)
            check_max_inline_bytes(changes.get("max_inline_bytes", self.max_inline_bytes), name)
            return super().set(**changes)

        def evolver(self):
            raise AttributeError(f"{type(self).__name__} has no evolver: use set() or define_tool")

    @property
    def render(self) -> Callable[[object, object], Sequence[ContentBlock]] | None:
        """``render(args, value)`` given to ``define_tool``, or ``None`` (the registry's default).

        The registry calls it with the frozen arguments and value; like the
        body, the author's function receives them as plain ``dict``/``list``
        for a TypedDict tool.
        """
        return None if self.renderer is None else self._render_value

    def _render_value(self, args: object, value: object, /) -> Sequence[ContentBlock]:
        assert self.renderer is not None
        return self.renderer(self.converter(args), thaw_json(value))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    def validate(self, args: object) -> list[str]:
        """The violations of ``args`` against this tool's schema (empty = valid; never raises)."""
        return self.validator(args)

    def execute(self, args: object, exec: ToolExecution, /) -> Coroutine[Any, Any, ToolReturn | JsonValue]:
        """Validate ``args`` (``ToolArgsError`` listing every violation, raised at once), then start the body.

        A typed tool's body returns its value; the registry checks and renders it.
        What is returned is the body's own coroutine, not one around it (a
        call's body is one frame, not two); a body that hands back anything
        else is awaited in one, as before.
        """
        violations = self.validator(args)
        if violations:
            raise ToolArgsError(violations)
        started = self.body(self.converter(args), exec)
        return started if type(started) is CoroutineType else _awaited(started)

    def is_concurrency_safe(self, args: object, /) -> bool:
        """Whether this call's dispatch may overlap its siblings' (``execute_batch``, Code Mode).

        The author's classifier is asked only about valid arguments, typed as
        the body gets them; no classifier, invalid arguments or any answer but
        exactly ``True`` mean ``False`` (exclusive). A classifier that raises
        raises here; the registry reads that as exclusive and logs it. It runs
        on the event loop before every batched call: it must be synchronous,
        pure and fast.
        """
        classifier = self.classifier
        if classifier is None or self.validator(args):
            return False
        return classifier(self.converter(args)) is True

    def present_call(self, args: object, /) -> ToolCallView | None:
        """The pending-call card, or ``None`` (no presenter, bad args, presenter failure)."""
        presenter = self.call_presenter
        if presenter is None:
            return None
        try:
            if self.validator(args):
                return None
            view = presenter(self.converter(args))
        except Exception:  # noqa: BLE001 - display must never crash a replay
            return None
        return view if type(view) in _CALL_VIEWS else None

    def present_result(self, args: object, result: ToolResult, /) -> ToolResultView | None:
        """The completed-call card, or ``None`` (no presenter, bad input, presenter failure)."""
        presenter = self.result_presenter
        if presenter is None or type(result) is not ToolResult:
            return None
        try:
            if self.validator(args):
                return None
            view = presenter(self.converter(args), result)
        except Exception:  # noqa: BLE001 - display must never crash a replay
            return None
        return view if type(view) in _RESULT_VIEWS else None


_CallPresenter = Callable[[A], ToolCallView | None] | None
_ResultPresenter = Callable[[A, ToolResult], ToolResultView | None] | None
_SpecArgs = Mapping[str, JsonValue]


@overload
def define_tool(
    *,
    name: str,
    description: str,
    args: type[A],
    execute: Callable[[A, ToolExecution], Awaitable[ToolReturn]],
    output: None = None,
    render: None = None,
    timeout_ms: float | None = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
    present_call: _CallPresenter[A] = None,
    present_result: _ResultPresenter[A] = None,
    is_concurrency_safe: Callable[[A], bool] | None = None,
) -> DefinedTool[A]: ...


@overload
def define_tool(
    *,
    name: str,
    description: str,
    args: type[A],
    output: TypeForm[O],
    execute: Callable[[A, ToolExecution], Awaitable[O | ToolOutput]],
    render: Callable[[A, O], Sequence[ContentBlock]] | None = None,
    timeout_ms: float | None = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
    present_call: _CallPresenter[A] = None,
    present_result: _ResultPresenter[A] = None,
    is_concurrency_safe: Callable[[A], bool] | None = None,
) -> DefinedTool[A]: ...


@overload
def define_tool(
    *,
    name: str,
    description: str,
    args: type[A],
    output: OutputSchema,
    execute: Callable[[A, ToolExecution], Awaitable[JsonValue | ToolOutput]],
    render: Callable[[A, JsonValue], Sequence[ContentBlock]] | None = None,
    timeout_ms: float | None = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
    present_call: _CallPresenter[A] = None,
    present_result: _ResultPresenter[A] = None,
    is_concurrency_safe: Callable[[A], bool] | None = None,
) -> DefinedTool[A]: ...


@overload
def define_tool(
    *,
    name: str,
    description: str,
    parameters: Mapping[str, Prop],
    execute: Callable[[_SpecArgs, ToolExecution], Awaitable[ToolReturn]],
    output: None = None,
    render: None = None,
    timeout_ms: float | None = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
    present_call: _CallPresenter[_SpecArgs] = None,
    present_result: _ResultPresenter[_SpecArgs] = None,
    is_concurrency_safe: Callable[[_SpecArgs], bool] | None = None,
) -> DefinedTool[_SpecArgs]: ...


@overload
def define_tool(
    *,
    name: str,
    description: str,
    parameters: Mapping[str, Prop],
    output: TypeForm[O],
    execute: Callable[[_SpecArgs, ToolExecution], Awaitable[O | ToolOutput]],
    render: Callable[[_SpecArgs, O], Sequence[ContentBlock]] | None = None,
    timeout_ms: float | None = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
    present_call: _CallPresenter[_SpecArgs] = None,
    present_result: _ResultPresenter[_SpecArgs] = None,
    is_concurrency_safe: Callable[[_SpecArgs], bool] | None = None,
) -> DefinedTool[_SpecArgs]: ...


@overload
def define_tool(
    *,
    name: str,
    description: str,
    parameters: Mapping[str, Prop],
    output: OutputSchema,
    execute: Callable[[_SpecArgs, ToolExecution], Awaitable[JsonValue | ToolOutput]],
    render: Callable[[_SpecArgs, JsonValue], Sequence[ContentBlock]] | None = None,
    timeout_ms: float | None = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
    present_call: _CallPresenter[_SpecArgs] = None,
    present_result: _ResultPresenter[_SpecArgs] = None,
    is_concurrency_safe: Callable[[_SpecArgs], bool] | None = None,
) -> DefinedTool[_SpecArgs]: ...


def define_tool(
    *,
    name: str,
    description: str,
    args: type[Any] | None = None,
    parameters: Mapping[str, Prop] | None = None,
    execute: Callable[[Any, ToolExecution], Awaitable[Any]],
    output: object = None,
    render: Callable[[Any, Any], Sequence[ContentBlock]] | None = None,
    timeout_ms: float | None = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
    present_call: Callable[[Any], ToolCallView | None] | None = None,
    present_result: Callable[[Any, ToolResult], ToolResultView | None] | None = None,
    is_concurrency_safe: Callable[[Any], bool] | None = None,
) -> DefinedTool[Any]:
    """Define a tool from a TypedDict (``args=``) or a ``SchemaSpec`` (``parameters=``).

    With ``output=T`` (a TypedDict, ``str``/``int``/``float``/``bool``,
    ``list[...]``, ``dict[str, ...]``, a union of those whose members JSON
    tells apart, a ``Prop`` or a JSON Schema mapping) the tool is *typed*:
    its body returns a ``T`` (or ``ToolOutput(content, value=...)``), and
    ``render(args, value)`` may replace the default rendering.

    Raises at definition time: ``ValueError`` for a bad name, description,
    ``timeout_ms`` or malformed ``Prop``; ``TypeError`` for an unsupported
    TypedDict field or ``output`` annotation (named), both or neither of
    ``args``/``parameters``, a non-callable ``execute``/presenter/``render``/
    ``is_concurrency_safe``, or ``render`` without ``output``;
    ``OutputSchemaError`` (naming the tool, listing every violation) for an
    output schema outside the supported subset.

    ``retry=Retry(attempts, ...)`` runs a failing body again as
    :class:`~dsh_tools.retry_policy.Retry` says (each attempt within
    ``timeout_ms``); a ``retry`` that is not a ``Retry`` is a ``TypeError``.

    ``idempotent=True`` says that running a call twice has the effect of
    running it once (its body forwards ``exec.idempotency_key`` to whatever it
    changes): only such a tool's approved call is retried, and only such a
    call is run again after its process stopped mid-body. ``needs_approval``
    (``True``, or ``(exec) -> bool`` sync or async) makes the pre-execute
    waterfall's default decision ``Ask``: see ``docs/policies.md``.
    ``max_inline_bytes`` (at least 1,024) overrides the registry's for this
    tool: a result text past it reaches the model as its head and tail and
    a locator that ``read_result`` pages through (``docs/writing-tools.md``).

    ``is_concurrency_safe(args) -> bool`` opts a call into overlapping its
    siblings in ``execute_batch`` and Code Mode ``Promise.all``: answer
    ``True`` only when running this call at the same time as *any* other
    call (of any tool, this one included) cannot change what either does,
    typically because it only reads. See ``docs/writing-tools.md``.
    """
    check_tool_name(name)
    if type(description) is not str:
        raise ValueError(f'tool "{name}": description must be a str, got {type(description).__name__}')
    check_timeout_ms(timeout_ms, name)
    check_retry(retry, name)
    check_idempotent(idempotent, name)
    check_needs_approval(needs_approval, name)
    check_max_inline_bytes(max_inline_bytes, name)
    if not callable(execute):
        raise TypeError(f'tool "{name}": execute must be callable')
    callbacks: dict[str, object] = {
        "present_call": present_call,
        "present_result": present_result,
        "render": render,
        "is_concurrency_safe": is_concurrency_safe,
    }
    for label, presenter in callbacks.items():
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
    output_schema = None
    if output is not None:
        output_schema = freeze_json(output_json_schema(output, name)).unwrap()
        compile_value_check(output_schema, tool=name)  # the registry compiles it again at register
    elif render is not None:
        raise TypeError(f'tool "{name}": render needs output= (it renders a typed value)')
    return DefinedTool(
        name=name,
        description=description,
        parameters=cast(FrozenDict[str, FrozenJson], freeze_json(schema_spec_to_json_schema(spec)).unwrap()),  # object-rooted
        spec=MappingProxyType(spec),
        args_type=args,
        timeout_ms=timeout_ms,
        retry=retry,
        idempotent=idempotent,
        needs_approval=needs_approval,
        max_inline_bytes=max_inline_bytes,
        output_schema=output_schema,  # type: ignore[arg-type]
        body=execute,
        validator=compile_spec(spec),
        # A TypedDict body gets plain dict/list (what its annotation promises);
        # a SchemaSpec body gets the (frozen) Mapping it was called with.
        converter=thaw_json if args is not None else _identity,
        call_presenter=present_call,
        result_presenter=present_result,
        renderer=render,
        classifier=is_concurrency_safe,
    )


async def _awaited(started: Awaitable[Any]) -> Any:
    """A body's awaitable that is not a coroutine (or a value that is not awaitable: awaiting it raises)."""
    return await started
