"""The structured-output JSON Schema subset: refuse loudly what is not enforced, then enforce it.

A caller that demands a machine-readable value from an agent passes a raw,
object-rooted JSON Schema. Accepting a keyword the validator does not enforce
would validate less than the schema promises, so :func:`output_schema_violations`
lists everything outside the subset (SPEC "Structured-output schema subset")
and :func:`assert_supported_output_schema` raises ``OutputSchemaError`` with
all of them at once.

The walk only touches exact ``dict``/``list`` (or their frozen forms), so a
hostile schema (cycles, non-string keys, objects whose ``__eq__`` raises,
absurd depth) is described, never obeyed. Accepted schemas are lowered to the
same :class:`~dsh_tools.definitions.validation.Shape` that tool parameters
compile to, so both share one validator and one message format.

A typed tool's value may be absent: ``-> str | None`` and ``Optional`` fields
of an output record map to the nullable form ``"type": [<type>, "null"]``,
which :func:`compile_value_check` accepts (and the validator enforces). It
may also be a union (``-> str | int``, ``-> Hit | Miss``: ``anyOf``, whose
members must be told apart by their JSON shape, :mod:`.output_unions`) or a
``dict[str, X]`` (a schema-valued ``additionalProperties``): the ``wide``
subset. A structured-output request keeps the SPEC's single-string ``type``
and neither addition, since it travels to providers as a forced tool's
``parameters``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from pyrsistent import pmap, pvector

from dsh_tools.definitions.output_unions import union_overlaps
from dsh_tools.definitions.shape_code import Freezer, compile_fast_freezer
from dsh_tools.definitions.validation import Shape, compile_shape, compile_validator, total_validator, type_word
from dsh_tools.errors import OutputSchemaError
from dsh_tools.json_values import FrozenDict, is_json, member_path_segment

__all__ = [
    "MAX_SCHEMA_DEPTH",
    "assert_supported_output_schema",
    "compile_value_check",
    "compile_value_freezer",
    "output_schema_violations",
    "validate_structured_value",
]

MAX_SCHEMA_DEPTH: Final = 64
"""Nested schemas deeper than this are refused (and a cycle is reported as one)."""

_OBJECTS: Final = frozenset({dict, FrozenDict, type(pmap({}))})
_ARRAYS: Final = frozenset({list, tuple, type(pvector([]))})
_TYPES: Final = ("object", "array", "string", "number", "integer", "boolean", "null")
_STRUCTURE: Final = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum", "const"})
_ANNOTATION_ORDER: Final = ("description", "title", "default", "examples")
_ANNOTATIONS: Final = frozenset(_ANNOTATION_ORDER)
_TEXT_ANNOTATIONS: Final = frozenset({"description", "title"})
"""Annotations a model and the SDK read as prose: anything but a string is a schema error."""
_NEEDS_TYPE: Final = {"properties": "object", "required": "object", "additionalProperties": "object", "items": "array"}
_MEMBER_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
    "object": (),
    "array": (),
}
_MISSING: Final = object()


def assert_supported_output_schema(schema: object) -> None:
    """Raise ``OutputSchemaError`` listing every way ``schema`` leaves the subset."""
    violations = output_schema_violations(schema)
    if violations:
        raise OutputSchemaError(violations)


def output_schema_violations(
    schema: object, *, object_root: bool = True, nullable: bool = False, wide: bool = False
) -> list[str]:
    """Every way ``schema`` leaves the supported subset (empty = supported). Never raises.

    ``object_root=False`` accepts any type at the root: a typed tool's value
    may be a list or a scalar, where a structured-output request is always an
    object (it travels as a forced tool's ``parameters``). ``nullable=True``
    also accepts the nullable form ``"type": [<type>, "null"]`` (and ``null``
    among its ``enum``), which is how a typed tool says a value may be ``None``.
    ``wide=True`` also accepts what typed outputs add: ``anyOf`` (at least two
    members, no ``type`` or structure beside it, every pair of members told
    apart by JSON shape as :mod:`.output_unions` rules) and an
    ``additionalProperties`` schema (``dict[str, X]``).
    """
    problems: list[str] = []
    try:
        _Walk(problems, object_root, nullable, wide).node(schema, (), 0, set())
    except Exception as error:  # noqa: BLE001 - totality against hostile schemas
        problems.append(f"(root): schema could not be read ({type(error).__name__})")
    return problems


def validate_structured_value(schema: object, value: object) -> list[str]:
    """Path-qualified violations of ``value`` against ``schema`` (empty = valid). Never raises.

    An unsupported schema is itself reported, one violation per problem, as
    ``(root): unsupported output schema: <problem>``.
    """
    unsupported = output_schema_violations(schema)
    if unsupported:
        return [f"(root): unsupported output schema: {problem}" for problem in unsupported]
    try:
        check = compile_shape(_shape(schema))
    except Exception as error:  # noqa: BLE001 - e.g. a schema mutated by another thread
        return [f"(root): unsupported output schema: could not be compiled ({type(error).__name__})"]
    return total_validator(check)(value)


def compile_value_check(schema: object, *, tool: str) -> Callable[[object], list[str]]:
    """The total validator of a typed tool's output schema (any root type).

    Raises ``OutputSchemaError`` naming ``tool`` with every violation when the
    schema leaves the subset: a definition error, found once at definition time.
    """
    violations = output_schema_violations(schema, object_root=False, nullable=True, wide=True)
    if violations:
        raise OutputSchemaError(violations, tool=tool)
    return compile_validator(_shape(schema))


def compile_value_freezer(schema: object) -> Freezer | None:
    """The one-pass freeze-and-check of a supported output schema's values, if it can be written.

    A value it does not vouch for (``UNSURE``) still goes through the
    generic freeze and :func:`compile_value_check`'s validator, which decide.
    """
    return compile_fast_freezer(_shape(schema))


def _path(segments: tuple[str, ...]) -> str:
    rendered = "".join(segments)
    return (rendered[1:] if rendered.startswith(".") else rendered) or "(root)"


def _literal(value: object) -> str:
    return repr(value) if type(value) is not str else f'"{value}"'


def _is_scalar(value: object) -> bool:
    kind = type(value)
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    return kind in (str, int, bool, type(None))


class _Walk:
    """One schema check; appends to ``problems`` as it goes so every violation is listed."""

    def __init__(self, problems: list[str], object_root: bool = True, nullable: bool = False, wide: bool = False) -> None:
        self.problems = problems
        self.object_root = object_root
        self.nullable = nullable
        self.wide = wide

    def report(self, segments: tuple[str, ...], message: str) -> None:
        self.problems.append(f"{_path(segments)}: {message}")

    def node(self, node: object, at: tuple[str, ...], depth: int, on_path: set[int]) -> None:
        if type(node) not in _OBJECTS:
            self.report(at, f"a schema must be an object, got {type_word(node)}")
            return
        if id(node) in on_path:
            self.report(at, "the schema refers to itself (cycle)")
            return
        if depth >= MAX_SCHEMA_DEPTH:
            self.report(at, f"schema nests deeper than {MAX_SCHEMA_DEPTH} levels")
            return
        entries: dict[str, Any] = {}
        for key, child in list(node.items()):  # type: ignore[attr-defined]
            if type(key) is not str:
                self.report(at, f"schema key of type {type(key).__name__}, expected string")
            elif key not in _STRUCTURE and key not in _ANNOTATIONS and not (key == "anyOf" and self.wide):
                self.report(at, f'unsupported keyword "{key}"')
            else:
                entries[key] = child
        on_path.add(id(node))
        try:
            self.keywords(entries, at, depth, on_path)
        finally:
            on_path.discard(id(node))

    def keywords(self, entries: dict[str, Any], at: tuple[str, ...], depth: int, on_path: set[int]) -> None:
        if "anyOf" in entries:  # only present in the wide subset
            self.union(entries, at, depth, on_path)
            self.annotations(entries, at)
            return
        declared_types = self.declared_types(entries, at)
        for keyword, wanted in _NEEDS_TYPE.items():
            if keyword in entries and (declared_types is None or wanted not in declared_types):
                self.report(at, f'"{keyword}" needs "type": "{wanted}"')
        self.annotations(entries, at)
        properties = entries.get("properties", _MISSING)
        names: set[str] = set()
        if properties is not _MISSING:
            names = self.properties(properties, at, depth, on_path)
        if "required" in entries:
            self.required(entries["required"], names, at)
        extra = entries.get("additionalProperties", _MISSING)
        if extra is not _MISSING and type(extra) is not bool:
            if self.wide:  # dict[str, X]: the schema of every undeclared key's value
                self.node(extra, (*at, ".additionalProperties"), depth + 1, on_path)
            else:
                self.report((*at, ".additionalProperties"), "must be true or false (schemas are not supported)")
        if "items" in entries:
            items = entries["items"]
            if type(items) in _ARRAYS:
                self.report((*at, ".items"), "tuple-form items (an array of schemas) is not supported")
            else:
                self.node(items, (*at, ".items"), depth + 1, on_path)
        if "enum" in entries:
            self.enum(entries["enum"], declared_types, at)
        if "const" in entries and "enum" in entries:
            self.report(at, 'use either "enum" or "const", not both')
        elif "const" in entries:
            self.members([entries["const"]], declared_types, (*at, ".const"))

    def annotations(self, entries: dict[str, Any], at: tuple[str, ...]) -> None:
        for keyword in _ANNOTATION_ORDER:  # a fixed order: the violations list reads the same every run
            if keyword not in entries:
                continue
            value = entries[keyword]
            if keyword in _TEXT_ANNOTATIONS and type(value) is not str:
                self.report((*at, f".{keyword}"), f"must be a string, got {type_word(value)}")
            elif not is_json(value):
                self.report((*at, f".{keyword}"), "annotation must be JSON data")

    def union(self, entries: dict[str, Any], at: tuple[str, ...], depth: int, on_path: set[int]) -> None:
        """``anyOf`` alone (a union is its members), each member supported, every pair told apart.

        Only members that are themselves supported are compared, so the
        comparison reads nothing the walk has not vouched for.
        """
        beside = [f'"{key}"' for key in entries if key in _STRUCTURE]
        if beside:
            self.report(at, f'"anyOf" excludes {", ".join(beside)} (set them on its members)')
        where = (*at, ".anyOf")
        members = entries["anyOf"]
        if type(members) not in _ARRAYS or len(members) < 2:
            self.report(where, "must be an array of at least two schemas")
            return
        listed: list[object] = list(members)
        before = len(self.problems)
        for index, member in enumerate(listed):
            self.node(member, (*where, f"[{index}]"), depth + 1, on_path)
        if len(self.problems) == before:
            for problem in union_overlaps(listed):
                self.report(at, problem)

    def declared_types(self, entries: dict[str, Any], at: tuple[str, ...]) -> tuple[str, ...] | None:
        declared = entries.get("type", _MISSING)
        if declared is _MISSING:
            if not at and self.object_root:
                self.report(at, 'the root schema must declare "type": "object"')
            elif "enum" not in entries and "const" not in entries:
                self.report(at, 'missing "type"')
            return None
        if type(declared) in _ARRAYS:
            return self.nullable_types(list(declared), at)
        if type(declared) is not str or declared not in _TYPES:
            self.report((*at, ".type"), f"unsupported type {_literal(declared)} (one of: {', '.join(_TYPES)})")
            return None
        if not at and self.object_root and declared != "object":
            self.report(at, f'the root schema must be of type "object", not "{declared}"')
        return (str(declared),)

    def nullable_types(self, declared: list[object], at: tuple[str, ...]) -> tuple[str, ...] | None:
        """``[<type>, "null"]`` (either order) where nullable values are allowed; any other array is refused."""
        if not self.nullable:
            self.report((*at, ".type"), "type arrays are not supported; use a single type")
            return None
        words = [word for word in declared if type(word) is str and word in _TYPES]
        if len(words) != 2 or len(declared) != 2 or "null" not in words or words[0] == words[1]:
            self.report((*at, ".type"), 'a type array must be the nullable form [<type>, "null"]')
            return None
        return (str(words[0]), str(words[1]))

    def properties(self, properties: object, at: tuple[str, ...], depth: int, on_path: set[int]) -> set[str]:
        where = (*at, ".properties")
        if type(properties) not in _OBJECTS:
            self.report(where, f"must be an object of schemas, got {type_word(properties)}")
            return set()
        names: set[str] = set()
        for key, child in list(properties.items()):  # type: ignore[attr-defined]
            if type(key) is not str:
                self.report(where, f"property name of type {type(key).__name__}, expected string")
                continue
            names.add(key)
            self.node(child, (*where, member_path_segment(key, first=False)), depth + 1, on_path)
        return names

    def required(self, required: object, names: set[str], at: tuple[str, ...]) -> None:
        where = (*at, ".required")
        if type(required) not in _ARRAYS:
            self.report(where, f"must be an array of property names, got {type_word(required)}")
            return
        seen: set[str] = set()
        for index, name in enumerate(list(required)):  # type: ignore[call-overload]
            if type(name) is not str:
                self.report((*where, f"[{index}]"), f"must be a string, got {type_word(name)}")
            elif name in seen:
                self.report((*where, f"[{index}]"), f'"{name}" is listed twice')
            elif name not in names:
                self.report((*where, f"[{index}]"), f'"{name}" is not declared in properties')
            else:
                seen.add(name)

    def enum(self, enum: object, declared_types: tuple[str, ...] | None, at: tuple[str, ...]) -> None:
        where = (*at, ".enum")
        if type(enum) not in _ARRAYS or not enum:
            self.report(where, "must be a non-empty array of scalars")
            return
        self.members(list(enum), declared_types, where)  # type: ignore[call-overload]

    def members(self, members: list[object], declared_types: tuple[str, ...] | None, where: tuple[str, ...]) -> None:
        for index, member in enumerate(members):
            at = (*where, f"[{index}]") if where[-1] == ".enum" else where
            if not _is_scalar(member):
                self.report(at, f"must be a JSON scalar, got {type_word(member)}")
            elif declared_types is not None and not any(type(member) in _MEMBER_TYPES[t] for t in declared_types):
                self.report(at, f"{_literal(member)} is not of type {' or '.join(declared_types)}")


def _shape(node: Any) -> Shape:
    """Lower a schema already known to be supported (so every access is safe)."""
    if "anyOf" in node:
        return Shape(None, any_of=tuple(_shape(member) for member in node["anyOf"]))
    declared = node.get("type")
    types = None if declared is None else (declared,) if type(declared) is str else tuple(declared)
    enum: tuple[object, ...] | None = None
    const = "const" in node
    if const:
        enum = (node["const"],)
    elif "enum" in node:
        enum = tuple(node["enum"])
    properties = tuple((name, _shape(child)) for name, child in node.get("properties", {}).items())
    return Shape(
        types,
        enum=enum,
        const=const,
        properties=properties,
        required=frozenset(node.get("required", ())),
        additional=_additional(node.get("additionalProperties")),
        items=_shape(node["items"]) if "items" in node else None,
    )


def _additional(extra: Any) -> Shape | bool | None:
    """``additionalProperties``: a schema for every undeclared key, ``False`` for none, else anything goes."""
    if extra is False:
        return False
    return None if extra is None or extra is True else _shape(extra)
