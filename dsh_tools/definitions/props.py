"""``Prop`` and ``SchemaSpec``: the author-facing parameter DSL (SPEC "Typed tool parameter schemas").

A ``SchemaSpec`` maps each parameter name to a ``Prop``. Both spellings of a
tool's parameters (a ``TypedDict`` or a ``SchemaSpec``) end up as a spec: the
TypedDict reader (:mod:`dsh_tools.definitions.typed_dict`) *produces* Props,
so the JSON Schema and the runtime validator have one source and the two
spellings cannot drift apart.

A ``Prop`` is checked completely when it is built: a malformed one raises
``ValueError`` at definition time, naming what is wrong, so nothing later
(schema rendering, validator compilation) has to cope with a half-valid Prop.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

from dsh_tools.json_values import FrozenJson, JsonValue, frozen_or_raise
from dsh_tools.record import Record

__all__ = [
    "MAX_PROP_DEPTH",
    "PROP_TYPES",
    "JsonScalar",
    "Prop",
    "PropType",
    "SchemaSpec",
    "checked_spec",
    "replace_prop",
]

PropType: TypeAlias = Literal["string", "number", "integer", "boolean", "object", "array"]
"""The JSON types a ``Prop`` may declare."""

PROP_TYPES: Final[tuple[str, ...]] = ("string", "number", "integer", "boolean", "object", "array")

JsonScalar: TypeAlias = str | int | float | bool
"""What an ``enum`` member may be (``null`` comes from ``nullable``)."""

MAX_PROP_DEPTH: Final = 64
"""Deeper Prop trees are refused: no tool needs them, and every walker stays shallow."""

_ENUM_MEMBER_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


def _enum_member_ok(prop_type: str | None, member: object) -> bool:
    kind = type(member)
    if kind is float and not math.isfinite(member):  # type: ignore[arg-type]
        return False
    if prop_type is None:
        return kind in (str, int, float, bool)
    return kind in _ENUM_MEMBER_TYPES.get(prop_type, ())


class Prop(Record):
    """One parameter: its JSON type, whether it is required, and its constraints.

    ``type`` may be ``None`` only inside ``Annotated[T, Prop(...)]``, where ``T``
    supplies it. ``nullable=True`` (an extension beyond the SPEC's DSL) is what
    ``X | None`` in a TypedDict becomes: ``"type": [<x>, "null"]``.
    ``additional_properties`` (a Prop, or ``False`` to forbid extra keys) applies
    to an object's keys beyond ``properties``.

    ``any_of`` (a union, ``int | str`` read by ``@tool``) lists alternative
    Props: the value must match one of them. A union Prop has no ``type`` of
    its own and no ``enum``/``properties``/``items``/``additional_properties``
    (its members carry those); ``nullable=True`` adds a ``null`` alternative.

    ``properties`` is kept as a read-only ordered view (declaration order is
    schema order, which keeps the rendered schema stable and readable).
    """

    type: PropType | None
    required: bool
    description: str | None
    enum: tuple[JsonScalar, ...] | None
    default: FrozenJson | None
    properties: Mapping[str, Prop] | None
    items: Prop | None
    additional_properties: Prop | bool | None
    nullable: bool
    any_of: tuple[Prop, ...] | None

    if TYPE_CHECKING:

        def __init__(
            self,
            type: PropType | None = None,
            *,
            required: bool = False,
            description: str | None = None,
            enum: Sequence[JsonScalar] | None = None,
            default: JsonValue | None = None,
            properties: Mapping[str, Prop] | None = None,
            items: Prop | None = None,
            additional_properties: Prop | bool | None = None,
            nullable: bool = False,
            any_of: Sequence[Prop] | None = None,
        ) -> None: ...

    else:

        def __new__(
            cls,
            type=None,
            *,
            required=False,
            description=None,
            enum=None,
            default=None,
            properties=None,
            items=None,
            additional_properties=None,
            nullable=False,
            any_of=None,
        ):
            if any_of is not None:
                _check_union_fields(type, enum, properties, items, additional_properties)
            return super().__new__(
                cls,
                type=_checked_type(type),
                required=_checked_flag("required", required),
                description=_checked_description(description),
                enum=_checked_enum(type, enum),
                default=_checked_default(default),
                properties=_checked_properties(type, properties),
                items=_checked_child("items", "array", type, items),
                additional_properties=_checked_child(
                    "additional_properties", "object", type, additional_properties, or_bool=True
                ),
                nullable=_checked_flag("nullable", nullable),
                any_of=_checked_any_of(any_of),
            )

    def to_json(self) -> dict[str, Any]:
        """This Prop as a JSON Schema (what ``schema_spec_to_json_schema`` emits for it)."""
        from dsh_tools.definitions.json_schema import prop_to_json_schema

        return prop_to_json_schema(self)


SchemaSpec: TypeAlias = Mapping[str, Prop]
"""Parameter name → ``Prop``: the SPEC's ``SchemaSpec``."""


def _checked_type(value: object) -> object:
    if value is not None and (type(value) is not str or value not in PROP_TYPES):
        raise ValueError(f"Prop type must be one of {', '.join(PROP_TYPES)}; got {value!r}")
    return value


def _checked_flag(name: str, value: object) -> bool:
    if type(value) is not bool:
        raise ValueError(f"Prop {name} must be a bool, got {type(value).__name__}")
    return bool(value)


def _checked_description(value: object) -> object:
    if value is not None and type(value) is not str:
        raise ValueError(f"Prop description must be a str, got {type(value).__name__}")
    return value


def _checked_enum(prop_type: object, value: object) -> tuple[JsonScalar, ...] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or type(value) not in (list, tuple) or not value:
        raise ValueError("Prop enum must be a non-empty list of JSON scalars")
    if prop_type in ("object", "array"):
        raise ValueError(f"Prop enum is not supported for type {prop_type}")
    members: tuple[object, ...] = tuple(value)
    for member in members:
        if not _enum_member_ok(prop_type if isinstance(prop_type, str) else None, member):
            expected = prop_type or "a JSON scalar"
            raise ValueError(f"Prop enum member {member!r} is not {expected} (use nullable=True for null)")
    return members  # type: ignore[return-value]  # each member checked to be a JsonScalar above


def _checked_default(value: object) -> object:
    if value is None:
        return None
    return frozen_or_raise(value, lambda why: ValueError(f"Prop default must be JSON: {why}"))


def _checked_properties(prop_type: object, value: object) -> Mapping[str, Prop] | None:
    if value is None:
        return None
    if prop_type not in (None, "object"):
        raise ValueError(f"Prop properties need type object, not {prop_type}")
    return MappingProxyType(dict(_prop_entries(value, "Prop properties")))


def _prop_entries(value: object, where: str) -> list[tuple[str, Prop]]:
    """The ``(name, Prop)`` pairs of a mapping, read once; ``ValueError`` naming ``where`` otherwise.

    One reader for a spec and a Prop's ``properties``: both are "name → Prop",
    and a hostile mapping (raising ``items()``, odd keys) is a malformed definition.
    """
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a mapping of name to Prop, got {type(value).__name__}")
    try:
        entries = list(value.items())
    except Exception as error:  # noqa: BLE001 - a hostile mapping is a malformed definition
        raise ValueError(f"{where} could not be read ({type(error).__name__})") from None
    for key, prop in entries:
        if type(key) is not str:
            raise ValueError(f"{where} keys must be str, got {type(key).__name__}")
        if type(prop) is not Prop:
            raise ValueError(f"{where}[{key!r}] must be a Prop, got {type(prop).__name__}")
    return entries


def _checked_child(field: str, needs: str, prop_type: object, value: object, *, or_bool: bool = False) -> object:
    """A nested schema field (``items``, ``additional_properties``): only on its type, only a Prop."""
    if value is None:
        return None
    if prop_type not in (None, needs):
        raise ValueError(f"Prop {field} requires type {needs}, not {prop_type}")
    if type(value) is not Prop and not (or_bool and type(value) is bool):
        allowed = "a Prop or a bool" if or_bool else "a Prop"
        raise ValueError(f"Prop {field} must be {allowed}, got {type(value).__name__}")
    return value


def _check_union_fields(*fields: object) -> None:
    """A union is its members: it may not also declare a type or a structure of its own."""
    if any(value is not None for value in fields):
        raise ValueError("Prop any_of excludes type, enum, properties, items and additional_properties (set them on the members)")


def _checked_any_of(value: object) -> tuple[Prop, ...] | None:
    if value is None:
        return None
    if type(value) not in (list, tuple) or len(value) < 2:  # type: ignore[arg-type]
        raise ValueError("Prop any_of must be a list of at least two Props")
    members: tuple[object, ...] = tuple(value)  # type: ignore[arg-type]
    for member in members:
        if type(member) is not Prop:
            raise ValueError(f"Prop any_of members must be Props, got {type(member).__name__}")
    return members  # type: ignore[return-value]  # each member checked to be a Prop above


def checked_spec(spec: object, *, where: str = "parameters") -> dict[str, Prop]:
    """A detached copy of ``spec`` after checking it is a usable ``SchemaSpec``.

    Raises ``ValueError`` naming the property (``config.host``) when a Prop in
    it lacks a type (allowed only inside ``Annotated``) or the tree is deeper
    than :data:`MAX_PROP_DEPTH`. The walk is iterative, so a hostile depth is
    reported rather than overflowing the stack.
    """
    entries = _prop_entries(spec, where)
    pending: list[tuple[str, Prop, int]] = [(key, prop, 1) for key, prop in entries]
    while pending:
        path, prop, depth = pending.pop()
        if depth > MAX_PROP_DEPTH:
            raise ValueError(f"{where}: property {path} nests deeper than {MAX_PROP_DEPTH} levels")
        if prop.type is None and prop.any_of is None:
            raise ValueError(f"{where}: property {path} has no type (omit it only inside Annotated[...])")
        for index, member in enumerate(prop.any_of or ()):
            pending.append((f"{path}|{index}", member, depth + 1))
        for name, child in (prop.properties or {}).items():
            pending.append((f"{path}.{name}", child, depth + 1))
        if prop.items is not None:
            pending.append((f"{path}[]", prop.items, depth + 1))
        if type(prop.additional_properties) is Prop:
            pending.append((f"{path}.*", prop.additional_properties, depth + 1))
    return dict(entries)


def replace_prop(prop: Prop, **changes: Any) -> Prop:
    """A copy of ``prop`` with some fields changed, re-checked like any new Prop."""
    fields: dict[str, Any] = {name: getattr(prop, name) for name in Prop._record_fields}
    fields.update(changes)
    return Prop(fields.pop("type"), **fields)
