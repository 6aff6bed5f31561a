"""Compiled validators: a schema becomes a tree of closures, checked without interpretation.

Both vocabularies (a tool's ``SchemaSpec`` and the structured-output JSON
Schema subset) are first lowered to a :class:`Shape`, and a Shape compiles
once into nested closures. Validating is then a walk of plain function calls
over exact ``type()`` checks: no schema dictionary is consulted and no user
code runs (a hostile ``__eq__`` or ``__iter__`` is never reached, because a
value of a foreign type is rejected by its type before anything else).

A checker returns ``None`` when the value is valid, which keeps the valid
path allocation-free; on a problem it returns ``(relative path, message)``
pairs, and each enclosing checker prefixes its own segment. Paths are only
built for values that fail. :func:`render` turns them into the messages the
model reads: ``config.host: expected string, got number``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Final, cast

import orjson

from dsh_tools.definitions.shape_code import Validator, admits, compile_fast_validator
from dsh_tools.definitions.props import Prop, checked_spec
from dsh_tools.json_values import FrozenDict, member_path_segment
from dsh_tools.json_walk import PMAP_TYPE as _PMAP
from dsh_tools.json_walk import PVECTOR_TYPE as _PVECTOR

__all__ = [
    "PYTHON_TYPES",
    "SPEC_MEMO_SIZE",
    "Check",
    "Shape",
    "Validator",
    "compile_shape",
    "compile_spec",
    "compile_validator",
    "render",
    "spec_shape",
    "spec_validator",
    "total_validator",
    "validate_args",
]

Problems = list[tuple[str, str]]
Check = Callable[[object], "Problems | None"]

_FROZEN_DICT: Final[type] = FrozenDict
_MISSING: Final = object()

_PYTHON_TYPES: Final[dict[str, frozenset[type]]] = {
    "string": frozenset({str}),
    "integer": frozenset({int}),
    "number": frozenset({int, float}),
    "boolean": frozenset({bool}),
    "null": frozenset({type(None)}),
    "object": frozenset({dict, _FROZEN_DICT, _PMAP}),
    "array": frozenset({list, tuple, _PVECTOR}),
}
PYTHON_TYPES: Final = _PYTHON_TYPES
"""JSON type word → the Python types the checkers accept for it (read by the fast path's callers)."""
_WORDS: Final[dict[type, str]] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    dict: "object",
    _FROZEN_DICT: "object",
    _PMAP: "object",
    list: "array",
    tuple: "array",
    _PVECTOR: "array",
}


class Shape:
    """What a value must look like, in the terms both schema vocabularies share.

    ``types`` are JSON type words in declared order (``None``: any type);
    ``enum`` the allowed literals (``None``: any); ``properties`` in declared
    order; ``additional`` is a Shape for undeclared keys, ``False`` to forbid
    them, or ``None`` to allow anything; ``items`` the element Shape;
    ``any_of`` alternatives of which the value must match one (``types`` is
    then ``None``).
    """

    __slots__ = ("additional", "any_of", "const", "enum", "items", "properties", "required", "types")

    def __init__(
        self,
        types: tuple[str, ...] | None,
        *,
        enum: tuple[object, ...] | None = None,
        const: bool = False,
        properties: tuple[tuple[str, Shape], ...] = (),
        required: frozenset[str] = frozenset(),
        additional: Shape | bool | None = None,
        items: Shape | None = None,
        any_of: tuple[Shape, ...] | None = None,
    ) -> None:
        self.types = types
        self.any_of = any_of
        self.enum = enum
        self.const = const
        self.properties = properties
        self.required = required
        self.additional = additional
        self.items = items


def type_word(value: object) -> str:
    """The JSON type word of ``value`` for ``got <type>`` (a Python type name if not JSON)."""
    kind = type(value)
    word = _WORDS.get(kind)
    if word is None:
        return f"non-JSON {kind.__name__}"
    if kind is float and not math.isfinite(value):  # type: ignore[arg-type]
        return "non-finite number"
    return word


def _literal(value: object) -> str:
    return orjson.dumps(value).decode()


def _enum_key(value: object) -> tuple[str, object]:
    """Type-aware identity for enum membership: ``True`` is not ``1``, ``1`` is ``1.0``."""
    kind = type(value)
    if kind is bool:
        return ("boolean", value)
    if kind is int or kind is float:
        return ("number", value)
    if kind is str:
        return ("string", value)
    if value is None:
        return ("null", None)
    return ("other", id(value))


def compile_shape(shape: Shape) -> Check:
    """Compile ``shape`` into a checker (recursion depth = shape depth, bounded by callers)."""
    if shape.any_of is not None:
        return _union_check(shape.any_of)
    type_check = _type_check(shape.types)
    if shape.enum is not None:
        return _with_enum(type_check, shape.enum, shape.const, shape.types)
    if shape.types is not None and "object" in shape.types:
        return _object_check(shape, type_check)
    if shape.types is not None and "array" in shape.types and shape.items is not None:
        return _array_check(shape, type_check)
    return type_check


def _type_check(types: tuple[str, ...] | None) -> Check:
    if types is None:
        return lambda value: None
    allowed = frozenset().union(*(_PYTHON_TYPES[word] for word in types))
    expected = f"expected {' or '.join(types)}, got "
    numbers = float in allowed

    def check(value: object) -> Problems | None:
        kind = type(value)
        if kind in allowed and not (numbers and kind is float and not math.isfinite(value)):  # type: ignore[arg-type]
            return None
        return [("", expected + type_word(value))]

    return check


def _union_check(alternatives: tuple[Shape, ...]) -> Check:
    """Valid when one alternative accepts the value.

    Only alternatives whose JSON type admits the value are tried, so the
    report is about the member the value was evidently meant for: of those,
    the one with the fewest problems (the first on a tie), so a tagged
    object whose tag matches is reported on its own fields, not on the
    other member's tag. When no member admits its type, one line names
    every type the union accepts: ``expected integer or string, got boolean``.
    """
    members = tuple(
        (None if alt.types is None else frozenset().union(*(_PYTHON_TYPES[word] for word in alt.types)), compile_shape(alt))
        for alt in alternatives
    )
    words = dict.fromkeys(word for alt in alternatives for word in (alt.types or ()))
    expected = f"expected {' or '.join(words)}, got "
    # A union of enums (and null) is one Literal spread over JSON types: name all its members at once.
    enums = [alt.enum if alt.enum is not None else (None,) if alt.types == ("null",) else None for alt in alternatives]
    only_enums = all(enum is not None for enum in enums)
    one_of = f"expected one of {', '.join(_literal(member) for enum in enums for member in (enum or ()))}"

    def check(value: object) -> Problems | None:
        kind = type(value)
        best: Problems | None = None
        for admits, member_check in members:
            if admits is not None and kind not in admits:
                continue
            found = member_check(value)
            if found is None:
                return None
            if best is None or len(found) < len(best):
                best = found
        if only_enums:
            return [("", one_of)]
        return best or [("", expected + type_word(value))]

    return check


def _with_enum(type_check: Check, enum: tuple[object, ...], const: bool, types: tuple[str, ...] | None) -> Check:
    keys = frozenset(_enum_key(member) for member in enum)
    listed = ", ".join(_literal(member) for member in enum)
    message = f"expected {listed}" if const else f"expected one of {listed}"

    # The shortcut skips the type check, so it takes only members the type admits (an MCP schema may list others).
    strings = frozenset(member for member in enum if type(member) is str and admits(types, "string"))

    def check(value: object) -> Problems | None:
        if type(value) is str and value in strings:  # the common case, settled without calls
            return None
        problems = type_check(value)
        if problems is not None:
            return problems
        if _enum_key(value) in keys:
            return None
        return [("", message)]

    return check


_FAST_WORDS: Final = frozenset({"string", "integer", "boolean", "null", "number"})


def _fast_types(shape: Shape) -> frozenset[type]:
    """Types a value may have that settle its check without a call (plain scalars, no enum).

    A float is never settled here: it still needs the finiteness check.
    """
    if shape.types is None or shape.enum is not None or not set(shape.types) <= _FAST_WORDS:
        return frozenset()
    return frozenset().union(*(_PYTHON_TYPES[word] - {float} for word in shape.types))


def _object_check(shape: Shape, type_check: Check) -> Check:
    fields = tuple(
        (name, member_path_segment(name, first=False), name in shape.required, _fast_types(child), compile_shape(child))
        for name, child in shape.properties
    )
    declared = frozenset(name for name, _ in shape.properties)
    additional = shape.additional
    extra_check = compile_shape(additional) if isinstance(additional, Shape) else None
    check_extra = extra_check is not None or additional is False
    extra_fast = _fast_types(additional) if isinstance(additional, Shape) else frozenset()

    def check(value: object, missing: object = _MISSING) -> Problems | None:
        kind = type(value)
        if kind is dict or kind is _FROZEN_DICT:
            get = value.get  # type: ignore[attr-defined]  # dict.get either way (C)
        elif kind is _PMAP:
            # PMap.get is pure Python (~10x dict.get); one public items() pass is cheaper.
            get = dict(value.items()).get  # type: ignore[attr-defined]
        else:
            return type_check(value)
        problems: Problems | None = None
        for name, segment, required, fast, child in fields:
            member = get(name, missing)
            if member is missing:
                if required:
                    problems = problems or []
                    problems.append((segment, "missing required property"))
                continue
            if type(member) in fast:
                continue
            found = child(member)
            if found is not None:
                problems = problems or []
                problems.extend((segment + rel, message) for rel, message in found)
        if check_extra:
            found = _check_extra(value, declared, extra_check, extra_fast)  # type: ignore[arg-type]
            if found:
                problems = (problems or []) + found
        return problems

    return check


def _check_extra(
    value: Mapping[object, object], declared: frozenset[str], extra_check: Check | None, fast: frozenset[type]
) -> Problems | None:
    """Check the keys beyond ``properties`` (a Shape for each, or none allowed)."""
    problems: Problems | None = None
    for key, member in list(value.items()):
        if type(key) is not str:
            problems = problems or []
            problems.append(("", f"object key of type {type(key).__name__}, expected string"))
            continue
        if key in declared or type(member) in fast:
            continue
        found = extra_check(member) if extra_check is not None else [("", "unexpected property")]
        if found is not None:
            segment = member_path_segment(key, first=False)
            problems = problems or []
            problems.extend((segment + rel, message) for rel, message in found)
    return problems


def _array_check(shape: Shape, type_check: Check) -> Check:
    assert shape.items is not None
    item_check = compile_shape(shape.items)
    fast = _fast_types(shape.items)

    def check(value: object) -> Problems | None:
        kind = type(value)
        if kind is not list and kind is not tuple and kind is not _PVECTOR:
            return type_check(value)
        problems: Problems | None = None
        for index, item in enumerate(cast("Sequence[object]", value)):
            if type(item) in fast:
                continue
            found = item_check(item)
            if found is not None:
                problems = problems or []
                problems.extend((f"[{index}]{rel}", message) for rel, message in found)
        return problems

    return check


def render(problems: Problems | None) -> list[str]:
    """``(relative path, message)`` pairs → ``"config.host: expected string, got number"``."""
    if not problems:
        return []
    lines = []
    for rel, message in problems:
        path = rel[1:] if rel.startswith(".") else rel
        lines.append(f"{path or '(root)'}: {message}")
    return lines


def prop_shape(prop: Prop) -> Shape:
    """Lower one (checked) Prop to a Shape; ``nullable`` adds ``null`` to types and enum (or a ``null`` alternative)."""
    if prop.any_of is not None:
        alternatives = tuple(prop_shape(member) for member in prop.any_of)
        return Shape(None, any_of=(*alternatives, Shape(("null",))) if prop.nullable else alternatives)
    assert prop.type is not None
    types = (prop.type, "null") if prop.nullable else (prop.type,)
    enum: tuple[object, ...] | None = None
    if prop.enum is not None:
        enum = (*prop.enum, None) if prop.nullable else prop.enum
    extra = prop.additional_properties
    return Shape(
        types,
        enum=enum,
        properties=tuple((name, prop_shape(child)) for name, child in (prop.properties or {}).items()),
        required=frozenset(name for name, child in (prop.properties or {}).items() if child.required),
        additional=prop_shape(extra) if isinstance(extra, Prop) else extra,
        items=prop_shape(prop.items) if prop.items is not None else None,
    )


def spec_shape(spec: Mapping[str, Prop]) -> Shape:
    """The object Shape of a whole (checked) ``SchemaSpec``."""
    return Shape(
        ("object",),
        properties=tuple((name, prop_shape(prop)) for name, prop in spec.items()),
        required=frozenset(name for name, prop in spec.items() if prop.required),
    )


def compile_spec(spec: object) -> Callable[[object], list[str]]:
    """Check ``spec`` (``ValueError`` if malformed) and compile it to a total validator."""
    return compile_validator(spec_shape(checked_spec(spec)))


def compile_validator(shape: Shape) -> Callable[[object], list[str]]:
    """``shape``'s total validator, answering valid values from the generated fast path.

    The generated function (:mod:`~dsh_tools.definitions.shape_code`) vouches
    for a valid value in one straight-line pass; a value it does not vouch
    for goes to the closure checker, which finds and renders the problems
    (or finds none, when the fast path was merely unsure).
    """
    return compile_fast_validator(
        shape,
        slow=total_validator(compile_shape(shape)),
        fallback=compile_shape,
        objects=_PYTHON_TYPES["object"],
        arrays=_PYTHON_TYPES["array"],
    )


def total_validator(check: Check) -> Callable[[object], list[str]]:
    """Wrap a checker so it returns rendered messages and never raises."""

    def validate(value: object) -> list[str]:
        try:
            problems = check(value)
        except Exception as error:  # noqa: BLE001 - totality; e.g. a key whose __eq__ raises
            return [f"(root): could not be validated ({type(error).__name__})"]
        return render(problems) if problems else []

    return validate


SPEC_MEMO_SIZE: Final = 256
"""How many specs :func:`validate_args` keeps compiled (the oldest is dropped first)."""

_SpecEntry = tuple[object, "dict[object, object] | None", Validator]
_spec_memo: dict[int, _SpecEntry] = {}
_IMMUTABLE_SPECS: Final[frozenset[type]] = frozenset({_PMAP, _FROZEN_DICT})
"""Spec mapping types that cannot change after construction: identity alone proves a memo hit."""


def _spec_snapshot(spec: object) -> dict[object, object] | None:
    """What a memo hit must still find in a mutable spec: a private copy of its ``name → Prop`` pairs.

    Props are immutable all the way down, so a spec equal to the copy (the
    same names, the same or equal Props: one C-level dict comparison, by
    identity first) compiles to the same validator.
    """
    return None if type(spec) in _IMMUTABLE_SPECS else dict(spec)  # type: ignore[call-overload]


def spec_validator(spec: object) -> Validator:
    """The compiled validator of ``spec``, memoised by the spec object's identity.

    Calling :func:`validate_args` again with the same spec object reuses the
    validator instead of compiling it again. A ``dict`` spec edited in place
    since (a key added, a Prop replaced) is noticed and recompiled: the memo
    keeps the spec object itself (so its id cannot be reused by another
    object while the entry lives) and a snapshot of its pairs. Only exact
    ``dict`` specs and immutable mappings are memoised; any other mapping
    type might compute its items, so it is compiled each time. Raises
    ``ValueError`` for a malformed spec (never memoised).
    """
    key = id(spec)
    entry = _spec_memo.get(key)
    if entry is not None and entry[0] is spec:
        snapshot = entry[1]
        if snapshot is None or snapshot == spec:
            return entry[2]
    validator = compile_spec(spec)
    if type(spec) is dict or type(spec) in _IMMUTABLE_SPECS:
        if len(_spec_memo) >= SPEC_MEMO_SIZE:
            _spec_memo.pop(next(iter(_spec_memo)), None)
        _spec_memo[key] = (spec, _spec_snapshot(spec), validator)
    return validator


def validate_args(spec: object, value: object) -> list[str]:
    """Every violation of ``value`` against ``spec`` as path-qualified messages (empty = valid).

    Total: never raises. A malformed ``spec`` is reported as a violation too.
    Extra keys are allowed, defaults are not applied, ``None`` is a violation
    for a non-nullable property, and a bool is not a number. The compiled
    validator is memoised by the spec object (:func:`spec_validator`), so
    calling this in a loop with one spec costs a validation, not a compile.
    """
    try:
        validator = spec_validator(spec)
    except Exception as error:  # noqa: BLE001 - total by contract
        return [f"(root): cannot validate against a malformed schema spec: {error}"]
    return validator(value)
