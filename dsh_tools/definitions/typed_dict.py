"""Read a ``TypedDict`` as a ``SchemaSpec``, so one class types the body AND the wire schema.

The mapping (see "A TypedDict" in docs/writing-tools.md) is deliberately small and exact: every
supported annotation has a JSON Schema form whose runtime check matches what
mypy promises the body (``int`` is an integer, never ``1.5`` or ``True``).
Anything outside it raises ``TypeError`` at definition time naming the field,
dotted for nested TypedDicts (``config.port``), because a tool whose schema
silently promised less than its type would hand the body values it does not
expect.

``@tool`` reads its parameters with the same reader in its *wider*
vocabulary (:func:`parameter_prop`): unions of several types (``int | str``,
``anyOf``) and ``Literal`` of str, int or bool members, in a parameter and in
the TypedDicts nested in it. A typed output (``output=``, a return
annotation) is read in the wider vocabulary too, since a value may be
``str | int`` or ``Hit | Miss`` (the output subset then decides whether its
members can be told apart). ``define_tool(args=...)`` keeps the first
vocabulary: its contract names exactly what a TypedDict field may be.

Requiredness is recomputed from the annotations rather than trusted from
``__required_keys__``: under ``from __future__ import annotations`` Python
3.11 cannot see ``Required``/``NotRequired`` when building that set.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Annotated, Any, Final, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints

import typing_extensions

from dsh_tools.definitions.declared_order import Declared, declared_of, in_declared_order
from dsh_tools.definitions.props import MAX_PROP_DEPTH, Prop, replace_prop

__all__ = ["annotation_prop", "is_typed_dict", "parameter_prop", "typed_dict_spec"]

_SCALARS: Final[dict[object, str]] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SEQUENCES: Final = (list, collections.abc.Sequence)
_MAPPINGS: Final = (dict, collections.abc.Mapping)
_SUPPORTED: Final = (
    "str, int, float, bool, Literal[...] of str, list[T], Sequence[T], "
    "dict[str, T], Mapping[str, T], a nested TypedDict, X | None, Annotated[T, Prop(...)]"
)
_SUPPORTED_WIDE: Final = (
    "str, int, float, bool, Literal[...] of str/int/bool, list[T], Sequence[T], "
    "dict[str, T], Mapping[str, T], a TypedDict, unions like int | str, X | None, Annotated[T, Prop(...)]"
)
_LITERAL_TYPES: Final[dict[type, str]] = {str: "string", int: "integer", bool: "boolean"}


def is_typed_dict(value: object) -> bool:
    """Whether ``value`` is a TypedDict class (``typing`` or ``typing_extensions``)."""
    return typing.is_typeddict(value) or typing_extensions.is_typeddict(value)


def typed_dict_spec(typed_dict: type, *, wide: bool = False) -> dict[str, Prop]:
    """The ``SchemaSpec`` a TypedDict declares; ``TypeError`` naming the field if unsupported.

    ``wide=True`` reads the fields in ``@tool``'s wider vocabulary (see the module docstring).
    """
    if not is_typed_dict(typed_dict):
        raise TypeError(f"args must be a TypedDict class, got {typed_dict!r}")
    return _Reader(typed_dict.__name__, wide=wide).fields(typed_dict, prefix="", stack=())


def annotation_prop(hint: object, *, where: str, wide: bool = False) -> Prop:
    """The ``Prop`` one annotation maps to (``list[Hit]``, ``str``, ...), by the field rules.

    ``TypeError`` naming ``where`` and the path (``(root)[].when``) if unsupported;
    ``wide=True`` reads it in the wider vocabulary (unions, int and bool literals).
    """
    prop, _ = _Reader(where, wide=wide).field(hint, "(root)", True, ())
    return prop


def parameter_prop(hint: object, path: str, *, label: str, declared: Declared = ()) -> Prop:
    """The Prop of one ``@tool`` parameter annotation, in the wider vocabulary (see the module docstring).

    ``TypeError`` reads ``<label> "<path>": <problem>`` (``<label> "cfg.port"``
    for a field of a nested TypedDict). ``declared``: the unions the parameter's
    annotation text writes (:func:`~dsh_tools.definitions.declared_order.declared_of`),
    whose members keep that order.
    """
    prop, _ = _Reader(label, label=label, wide=True, declared=declared).field(hint, path, True, ())
    return prop


class _Reader:
    """One read; holds the root name and the error label so every error can say where it is.

    ``wide`` selects ``@tool``'s vocabulary (unions, non-str literals).
    """

    def __init__(self, root: str, *, label: str | None = None, wide: bool = False, declared: Declared = ()) -> None:
        self.root = root
        self.label = label if label is not None else f"{root} field"
        self.wide = wide
        self.depth = 0  # annotation levels being read: a hostile list[list[...]] is refused, not recursed into
        self.declared = declared  # the unions the annotation being read wrote, in their written order

    def fail(self, path: str, problem: str) -> TypeError:
        return TypeError(f'{self.label} "{path}": {problem}')

    def fields(self, typed_dict: Any, *, prefix: str, stack: tuple[type, ...]) -> dict[str, Prop]:
        if typed_dict in stack:
            raise self.fail(prefix, f"recursive TypedDict {typed_dict.__name__} is not supported")
        if len(stack) >= MAX_PROP_DEPTH:
            raise self.fail(prefix, f"TypedDicts nest deeper than {MAX_PROP_DEPTH} levels")
        try:
            hints = get_type_hints(typed_dict, include_extras=True)
        except Exception as error:  # noqa: BLE001 - unresolvable annotations are a definition error
            where = f"{self.root} (in {typed_dict.__name__})" if prefix else self.root
            raise TypeError(f"cannot resolve the annotations of {where}: {error}") from None
        required_keys: frozenset[str] = getattr(typed_dict, "__required_keys__", frozenset())
        spec: dict[str, Prop] = {}
        outer = self.declared
        try:
            for name, hint in hints.items():
                path = f"{prefix}.{name}" if prefix else name
                self.declared = declared_of(typed_dict, name)  # the field's unions as written (declared_order)
                prop, required = self.field(hint, path, name in required_keys, (*stack, typed_dict))
                spec[name] = replace_prop(prop, required=required)
        finally:
            self.declared = outer
        return spec

    def field(self, hint: Any, path: str, required: bool, stack: tuple[type, ...]) -> tuple[Prop, bool]:
        """Peel ``Required``/``NotRequired``/``Annotated`` (any order), then read the type.

        At most :data:`MAX_PROP_DEPTH` levels deep, as a ``Prop`` may be: a deeper
        annotation is a ``TypeError`` here rather than a ``RecursionError`` later.
        """
        if self.depth >= MAX_PROP_DEPTH:
            raise self.fail(path, f"the type nests deeper than {MAX_PROP_DEPTH} levels")
        self.depth += 1
        try:
            return self.read_field(hint, path, required, stack)
        finally:
            self.depth -= 1

    def read_field(self, hint: Any, path: str, required: bool, stack: tuple[type, ...]) -> tuple[Prop, bool]:
        annotations: list[Prop] = []
        while True:
            origin = get_origin(hint)
            if origin is Required or origin is NotRequired:
                required = origin is Required
                hint = get_args(hint)[0]
            elif origin is Annotated:
                annotations.extend(m for m in hint.__metadata__ if type(m) is Prop)
                hint = hint.__origin__
            else:
                break
        prop = self.merge(self.type_prop(hint, path, stack), annotations, path, required)
        return prop, required

    def merge(self, prop: Prop, annotations: list[Prop], path: str, required: bool) -> Prop:
        """Apply ``Annotated[..., Prop(...)]`` extras; contradictions with the type are errors."""
        for extra in annotations:
            if extra.type is not None and extra.type != prop.type:
                raise self.fail(path, f"Annotated Prop type {extra.type!r} contradicts the declared type ({prop.type})")
            if extra.properties is not None or extra.items is not None or extra.additional_properties is not None:
                raise self.fail(path, "Annotated Prop may not set properties/items/additional_properties; the type does")
            if extra.required and not required:
                raise self.fail(path, "Prop(required=True) contradicts the TypedDict; use Required[...]")
            if extra.nullable and not prop.nullable:
                raise self.fail(path, "Prop(nullable=True) contradicts the type; write X | None")
            changes: dict[str, Any] = {}
            if extra.description is not None:
                changes["description"] = extra.description
            if extra.default is not None:
                changes["default"] = extra.default
            if extra.enum is not None:
                if prop.enum is not None:
                    raise self.fail(path, "Annotated Prop enum conflicts with the Literal's members")
                changes["enum"] = extra.enum
            try:
                prop = replace_prop(prop, **changes)
            except ValueError as error:
                raise self.fail(path, str(error)) from None
        return prop

    def type_prop(self, hint: Any, path: str, stack: tuple[type, ...]) -> Prop:
        scalar = _SCALARS.get(hint) if isinstance(hint, type) else None
        if scalar is not None:
            return Prop(scalar)  # type: ignore[arg-type]
        origin = get_origin(hint)
        if origin is Literal:
            return self.literal(get_args(hint), path)
        if origin is Union or origin is types.UnionType:
            return self.union(hint, path, stack)
        if origin in _SEQUENCES:
            (item,) = get_args(hint) or (Any,)
            item_prop, _ = self.field(item, f"{path}[]", True, stack)
            return Prop("array", items=item_prop)
        if origin in _MAPPINGS:
            key, value = get_args(hint) or (Any, Any)
            if key is not str:
                raise self.fail(path, f"mapping keys must be str, got {key!r}")
            value_prop, _ = self.field(value, f"{path}[*]", True, stack)
            return Prop("object", additional_properties=value_prop)
        if is_typed_dict(hint):
            return Prop("object", properties=self.fields(hint, prefix=path, stack=stack))
        raise self.fail(path, f"unsupported type {hint!r} (supported: {_SUPPORTED_WIDE if self.wide else _SUPPORTED})")

    def union(self, hint: Any, path: str, stack: tuple[type, ...]) -> Prop:
        """``X | None`` is X made nullable; in the wide vocabulary ``X | Y`` is ``anyOf``."""
        args = in_declared_order(get_args(hint), self.declared)
        members = [arg for arg in args if arg is not type(None)]
        nullable = len(members) != len(args)
        if len(members) == 1 and nullable:
            inner, _ = self.field(members[0], path, True, stack)
            return replace_prop(inner, nullable=True)
        if not self.wide:
            raise self.fail(path, f"unsupported union {hint!r}; only X | None is supported")
        alternatives = [self.field(member, path, True, stack)[0] for member in members]
        return Prop(any_of=alternatives, nullable=nullable)

    def literal(self, values: tuple[Any, ...], path: str) -> Prop:
        members = [value for value in values if value is not None]
        nullable = len(members) != len(values)
        # The first contract maps Literal of str only (string + enum); the wide
        # vocabulary adds int and bool members, one enum per JSON type.
        allowed = _LITERAL_TYPES if self.wide else {str: "string"}
        if not members or any(type(value) not in allowed for value in members):
            kinds = "str/int/bool" if self.wide else "str"
            raise self.fail(path, f"Literal{list(values)!r} must list {kinds} members (Literal[...] of {kinds})")
        groups: dict[str, list[Any]] = {}
        for value in members:
            groups.setdefault(allowed[type(value)], []).append(value)
        if len(groups) == 1:
            ((json_type, enum),) = groups.items()
            return Prop(json_type, enum=enum, nullable=nullable)  # type: ignore[arg-type]
        return Prop(any_of=[Prop(json_type, enum=enum) for json_type, enum in groups.items()], nullable=nullable)  # type: ignore[arg-type]
