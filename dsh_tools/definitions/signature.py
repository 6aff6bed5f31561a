"""Read a plain typed function as a tool: its parameters, their descriptions, its output.

``@tool`` (:mod:`dsh_tools.definitions.function_tool`) is a front end to
``define_tool``: everything it knows about a function is compiled here into
the same ``SchemaSpec`` a ``Prop`` author would write, so the JSON Schema, the
argument validator and the Code Mode SDK all come from one source, exactly as
for ``define_tool``.

What the reader accepts is deliberately small and exact. Each parameter is a
JSON property whose runtime check matches what mypy promises the body, so an
annotation the schema could only approximate (``Any``, ``set``, ``tuple``, a
class) is refused at decoration time with a ``TypeError`` naming the
parameter. A function the model could not call at all (a lambda, a method,
``*args``) is refused the same way. Docstring problems are ``ValueError``s,
like a bad ``description=`` of ``define_tool``: a docstring that documents a
parameter the signature lacks is a stale docstring, and the model would read it.
"""

from __future__ import annotations

import collections.abc
import inspect
import types
from collections.abc import Mapping
from typing import Annotated, Final, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints

import docstring_parser

from dsh_tools.content import ToolOutput
from dsh_tools.definitions.declared_order import Declared, declared_of
from dsh_tools.definitions.props import Prop, replace_prop
from dsh_tools.definitions.typed_dict import parameter_prop
from dsh_tools.definitions.validation import compile_shape, prop_shape, total_validator
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import FrozenJson, freeze_json, thaw_json

__all__ = ["EXEC_PARAMETER", "FunctionSignature", "OutputKind", "Parameter", "read_function"]

EXEC_PARAMETER: Final = "exec"
"""The parameter name that receives the :class:`ToolExecution` instead of a model argument."""

OutputKind = Literal["content", "typed"]
"""``-> list[ContentBlock]``/``ToolOutput`` (a content tool), or a typed value (``-> str`` included)."""

_SEQUENCES: Final = (list, collections.abc.Sequence)


class Parameter:
    """One model-facing parameter: its name, whether it is passed positionally, and its default.

    A list or dict default is kept frozen (``fresh``) and thawed anew for each
    call that omits the parameter: Python's own default object is shared by
    every call, so one agent's appends would reach another agent's call.
    """

    __slots__ = ("default", "fresh", "name", "positional")

    def __init__(self, name: str, *, positional: bool, default: object) -> None:
        self.name = name
        self.positional = positional
        self.default = default
        self.fresh: FrozenJson | None = None
        if type(default) in (list, dict):  # validated against the annotation already, so JSON
            self.fresh = freeze_json(default).value_or(None)

    def default_value(self) -> object:
        """The default to pass for one call: a fresh copy of a mutable one."""
        return self.default if self.fresh is None else thaw_json(self.fresh)


class FunctionSignature:
    """What :func:`read_function` learned: spec, call plan, description, output."""

    __slots__ = ("description", "injects_exec", "is_async", "output", "output_kind", "parameters", "spec")

    def __init__(
        self,
        *,
        spec: dict[str, Prop],
        parameters: tuple[Parameter, ...],
        injects_exec: bool,
        is_async: bool,
        description: str | None,
        output: object,
        output_kind: OutputKind,
    ) -> None:
        self.spec = spec
        self.parameters = parameters
        self.injects_exec = injects_exec
        self.is_async = is_async
        self.description = description
        self.output = output
        self.output_kind = output_kind

    def bind(self, arguments: Mapping[str, object], execution: ToolExecution) -> tuple[list[object], dict[str, object]]:
        """The ``(*args, **kwargs)`` that call the function with validated ``arguments``.

        Keys the signature does not name are dropped (the schema allows extra
        keys, as ``define_tool``'s does). An absent keyword parameter is left to
        its Python default; an absent positional-only one is passed its default;
        a list or dict default is passed as a fresh copy (see :class:`Parameter`).
        """
        positional: list[object] = []
        keywords: dict[str, object] = {}
        for parameter in self.parameters:
            present = parameter.name in arguments
            if parameter.positional:
                positional.append(arguments[parameter.name] if present else parameter.default_value())
            elif present:
                keywords[parameter.name] = arguments[parameter.name]
            elif parameter.fresh is not None:
                keywords[parameter.name] = parameter.default_value()
        if self.injects_exec:
            keywords[EXEC_PARAMETER] = execution
        return positional, keywords


def read_function(fn: object, *, needs_return: bool = True) -> FunctionSignature:
    """Read ``fn`` (see the module docstring); ``TypeError``/``ValueError`` naming the culprit.

    ``needs_return=False`` (``@tool(output=...)`` gave the output) lets the
    return annotation be absent; the signature's output is then ``None``.
    """
    function = _plain_function(fn)
    where = f"@tool {function.__name__}"
    _check_wrapped_chain(function, where)
    try:
        hints = get_type_hints(function, include_extras=True)
    except Exception as error:  # noqa: BLE001 - unresolvable annotations are a definition error
        raise TypeError(f"{where}: cannot resolve the annotations: {error}") from None
    docstring = _docstring(function, where)
    documented = {param.arg_name: param.description for param in docstring.params}
    spec: dict[str, Prop] = {}
    parameters: list[Parameter] = []
    injects_exec = False
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as error:  # a hostile __signature__ or __wrapped__
        raise TypeError(f"{where}: cannot read the signature: {error}") from None
    for parameter in signature.parameters.values():
        name = parameter.name
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            star = "*" if parameter.kind is parameter.VAR_POSITIONAL else "**"
            raise TypeError(f'{where}: parameter "{star}{name}" is not supported; the model passes named arguments only')
        if name not in hints:
            raise TypeError(f'{where}: parameter "{name}" has no annotation; annotate it with its type')
        hint = hints[name]
        if name == EXEC_PARAMETER or hint is ToolExecution:
            _check_exec(parameter, hint, where)
            injects_exec = True
            continue
        spec[name] = _read_parameter(parameter, hint, documented.get(name), where, declared_of(function, name))
        positional = parameter.kind is parameter.POSITIONAL_ONLY
        parameters.append(Parameter(name, positional=positional, default=parameter.default))
    stale = [name for name in documented if name not in spec and name != EXEC_PARAMETER]
    if stale:
        listed = ", ".join(f'"{name}"' for name in stale)
        raise ValueError(f"{where}: the docstring documents {listed}, which the signature does not have")
    if "return" in hints:
        output_kind, output = read_output(hints["return"])
    elif needs_return:
        raise TypeError(f"{where}: the return annotation is missing (-> str, -> list[ContentBlock] or a typed value)")
    else:
        output_kind, output = "typed", None
    return FunctionSignature(
        spec=spec,
        parameters=tuple(parameters),
        injects_exec=injects_exec,
        is_async=inspect.iscoroutinefunction(function),
        description=docstring.short_description,
        output=output,
        output_kind=output_kind,
    )


def _plain_function(fn: object) -> types.FunctionType:
    """A ``def``/``async def`` at module or function level; everything else is refused by name."""
    if isinstance(fn, (staticmethod, classmethod)) or inspect.ismethod(fn):
        raise TypeError("@tool takes a plain function, not a method: the model cannot supply self or cls")
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"@tool takes a function defined with def or async def, got {type(fn).__name__}")
    if fn.__name__ == "<lambda>":
        raise TypeError("@tool cannot read a lambda (no name, no annotations, no docstring); write a def")
    if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
        raise TypeError(f"@tool {fn.__name__}: a generator is not a tool body; return the result instead")
    scope, _, _ = fn.__qualname__.rpartition(".")
    if scope and not scope.endswith("<locals>"):
        raise TypeError(
            f"@tool {fn.__name__}: defined in class {scope}, so it is a method and the model cannot supply self; "
            "define the tool as a function (it may close over the object)"
        )
    return fn


_MAX_WRAPPED: Final = 1_000
"""Longer ``__wrapped__`` chains than this are refused (``inspect.unwrap`` has a similar bound)."""


def _check_wrapped_chain(function: types.FunctionType, where: str) -> None:
    """Refuse a ``__wrapped__`` chain that loops back on itself, before anything follows it.

    ``typing.get_type_hints`` follows ``__wrapped__`` with no cycle check, so a
    function whose ``__wrapped__`` is itself (or leads back to an earlier
    link) would spin there for ever.
    """
    seen = {id(function)}
    current: object = function
    for _ in range(_MAX_WRAPPED):
        try:
            current = object.__getattribute__(current, "__wrapped__")
        except AttributeError:
            return
        except Exception as error:  # noqa: BLE001 - a hostile attribute is a definition error
            raise TypeError(f"{where}: cannot read __wrapped__: {type(error).__name__}") from None
        if id(current) in seen:
            raise TypeError(f"{where}: its __wrapped__ chain loops back on itself; remove or fix __wrapped__")
        seen.add(id(current))
    raise TypeError(f"{where}: its __wrapped__ chain is longer than {_MAX_WRAPPED} links")


def _docstring(function: types.FunctionType, where: str) -> docstring_parser.Docstring:
    """The parsed docstring (Google, NumPy or reST, detected by ``docstring_parser``)."""
    text = inspect.getdoc(function) or ""
    try:
        return docstring_parser.parse(text)
    except docstring_parser.ParseError as error:
        raise ValueError(f"{where}: the docstring could not be parsed: {error}") from None


def _check_exec(parameter: inspect.Parameter, hint: object, where: str) -> None:
    """``exec: ToolExecution`` receives the call; any other spelling of it is a mistake to name."""
    if parameter.name != EXEC_PARAMETER:
        raise TypeError(
            f'{where}: parameter "{parameter.name}" is annotated ToolExecution; '
            f'name it "{EXEC_PARAMETER}" to receive the execution'
        )
    if hint is not ToolExecution:
        raise TypeError(f'{where}: parameter "exec" receives the execution and must be annotated ToolExecution, got {hint!r}')
    if parameter.kind is parameter.POSITIONAL_ONLY:
        raise TypeError(f'{where}: parameter "exec" must not be positional-only (it is passed by name)')
    if parameter.default is not parameter.empty:
        raise TypeError(f'{where}: parameter "exec" must not have a default (the execution is always passed)')


def _read_parameter(
    parameter: inspect.Parameter, hint: object, documented: str | None, where: str, declared: Declared
) -> Prop:
    """The Prop of one parameter: its type (its unions in ``declared`` order), then requiredness and default from the signature."""
    name = parameter.name
    label = f"{where}: parameter"
    if get_origin(hint) in (Required, NotRequired):
        raise TypeError(f'{label} "{name}": Required/NotRequired belong in TypedDicts; give the parameter a default instead')
    for extra in _annotated_props(hint):
        if extra.required or extra.default is not None:
            raise TypeError(f'{label} "{name}": requiredness and default come from the signature, not from Prop(...)')
    prop = parameter_prop(hint, name, label=label, declared=declared)
    if prop.description is None and documented:
        prop = replace_prop(prop, description=documented)
    if parameter.default is parameter.empty:
        return replace_prop(prop, required=True)
    default = parameter.default
    violations = total_validator(compile_shape(prop_shape(prop)))(default)
    if violations:
        raise TypeError(f'{label} "{name}": the default {_show(default)} does not match the annotation ({"; ".join(violations)})')
    return replace_prop(prop, default=default) if default is not None else prop


def _annotated_props(hint: object) -> list[Prop]:
    """The ``Prop`` extras of a top-level ``Annotated[...]`` (nested ones are the reader's)."""
    if get_origin(hint) is not Annotated:
        return []
    return [extra for extra in getattr(hint, "__metadata__", ()) if type(extra) is Prop]


def _show(value: object) -> str:
    return repr(value)[:60] if type(value) in (str, int, float, bool, type(None)) else f"a {type(value).__name__}"


def read_output(hint: object) -> tuple[OutputKind, object]:
    """What the return annotation makes of the tool, and the ``output=`` type for a typed one.

    Content blocks or ``ToolOutput`` (or a union of them) make a content tool.
    Anything else is the type of a typed tool's value (``str`` is rendered as
    is, so ``-> str`` is a text tool with a checked value); ``T | ToolOutput``
    is a typed tool whose body may also supply its own content
    (``ToolOutput(content, value=...)``), so its value type is ``T``.
    """
    if _is_content(hint):
        return "content", None
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        members = [member for member in get_args(hint) if member is not ToolOutput]
        if len(members) < len(get_args(hint)):
            return "typed", members[0] if len(members) == 1 else Union[tuple(members)]
    return "typed", hint


def _is_content(hint: object) -> bool:
    if hint is ToolOutput:
        return True
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return all(_is_content(member) for member in get_args(hint))
    if origin in _SEQUENCES:
        (item,) = get_args(hint) or (None,)
        # ContentBlock is Mapping[str, JsonValue] for mypy and bare Mapping at run time.
        return item is collections.abc.Mapping or get_origin(item) is collections.abc.Mapping
    return False
