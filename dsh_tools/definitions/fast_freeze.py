"""A typed tool's value, checked and frozen in one pass written out from its output Shape.

A typed call's value used to be walked twice: once by the generic freeze
(:func:`dsh_tools.json_values.freeze_json`), which cannot know the shape and
so dispatches on every node's type, then again by the output validator.
For the values tools actually return (a list of small records, say) the
shape already says what every node must be, so one generated function can
copy each object into its ``FrozenDict`` and check its members on the way.
On a 10 KB list of 108 records that is about a third of the two walks.

:func:`compile_fast_freezer` writes that function, on the same terms as the
validator fast path (:mod:`~dsh_tools.definitions.fast_path`): it is
*conservative*. It returns the frozen value only when the value is certainly
JSON by the boundary's rules (exact types, no lone surrogates, 64-bit
integers, finite floats, within :data:`BUDGET`) and certainly valid;
at the first doubt (a mistake, an extra key, an unusual container, an
exception) it returns :data:`UNSURE` and the caller runs the two exact walks,
which find and word the problem. Shapes it does not write (an untyped value,
a non-string enum, ``anyOf``, a schema for undeclared keys, a container type
beside a scalar one other than ``null``, more than :data:`INLINE_DEPTH`
levels, a record so wide that the budget could not keep a value within
``MAX_VALUES``) get no fast freezer at all.

The frozen form equals the generic freeze's (objects in their own key order,
arrays as tuples); only a container the value held twice comes out as two
equal copies instead of one shared one. :data:`BUDGET` bounds the copies,
counted as the exact walk counts values against its
:data:`~dsh_tools.json_walk.MAX_VALUES` (every container and scalar, a shared
one each time it is met): an array is charged its members' whole size,
an object's members included.

Safety of the generated source is the validator's: property names enter only
as ``repr()`` literals, key sets and helpers as constants.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from dsh_tools.definitions.fast_path import INLINE_DEPTH, SourceNames, indent
from dsh_tools.frozen_dict import FrozenDict
from dsh_tools.json_values import FrozenJson
from dsh_tools.json_walk import INT_MAX, INT_MIN, MAX_VALUES, find_surrogate, verified

if TYPE_CHECKING:  # validation imports the fast path; the Shape class is only needed for types
    from dsh_tools.definitions.validation import Shape

__all__ = ["BUDGET", "UNSURE", "Freezer", "compile_fast_freezer"]


class _Unsure:
    """The type of :data:`UNSURE`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNSURE"


UNSURE: Final = _Unsure()
"""What a freezer returns for a value it does not vouch for (``None`` is JSON's null)."""

Freezer = Callable[[object], "FrozenJson | _Unsure"]

BUDGET: Final = 65_536
"""Values inside arrays a freezer takes before leaving the value to the exact walks.

Each array is charged its length times the most values one member can hold
outside arrays of its own (:func:`_size`: 1 for a scalar, an object's members
too), so with the part of the value outside every array, which the shape
bounds, no vouched value holds more than ``_size(root) + BUDGET`` values.
"""

_SCALAR_TESTS: Final[dict[str, str]] = {
    "string": "({t} is str and ({v}.isascii() or S({v}) is None))",
    "integer": "({t} is int and {low} <= {v} <= {high})",
    "number": "(({t} is int and {low} <= {v} <= {high}) or ({t} is float and {v} - {v} == 0.0))",
    "boolean": "{t} is bool",
    "null": "{v} is None",
}
"""JSON-by-the-boundary tests, per type word (``S`` finds a lone surrogate; inf - inf is nan)."""
_INT_RANGE: Final = {"low": str(INT_MIN), "high": str(INT_MAX)}


class _Unwritable(Exception):
    """The shape holds a construct the freezer does not write: no fast freezer."""


class _Doubt(Exception):
    """Raised by generated code at the first doubt (any exception there means the same)."""


class _Writer(SourceNames):
    """Generates the lines of one freezer; every failed test is ``raise D`` (caught at the root)."""

    def value_lines(self, shape: Shape, v: str, depth: int) -> tuple[list[str], str, str, str]:
        """Lines that freeze ``v`` into the returned name, or raise ``D`` unless it surely fits ``shape``.

        Also returned: the expressions of the frozen value's size and height
        (as the walks count them), for the mark each object gets.
        """
        if shape.any_of is not None:
            raise _Unwritable
        if shape.enum is not None:
            return self.enum_lines(shape.enum, v), v, "1", "0"
        types = shape.types
        if types is None:
            raise _Unwritable
        containers = [word for word in types if word in ("object", "array")]
        scalars = [word for word in types if word not in ("object", "array")]
        if len(containers) > 1 or any(word not in _SCALAR_TESTS for word in scalars):
            raise _Unwritable
        if not containers:
            t = self.fresh("t")
            tests = " or ".join(_SCALAR_TESTS[word].format(t=t, v=v, **_INT_RANGE) for word in scalars)
            return [f"{t} = type({v})", f"if not ({tests}): raise D"], v, "1", "0"
        if (scalars and scalars != ["null"]) or depth >= INLINE_DEPTH:
            raise _Unwritable  # one function, nested loops: Python's block nesting stays in bounds
        if containers[0] == "object":
            lines, frozen, size, height = self.object_lines(shape, v, depth)
        else:
            lines, frozen, size, height = self.array_lines(shape, v, depth)
        if not scalars:
            return lines, frozen, size, height
        null = [f"{frozen} = None", f"{size} = 1", f"{height} = 0"]
        return [f"if {v} is None:", *indent(null), "else:", *indent(lines)], frozen, size, height

    def enum_lines(self, members: tuple[object, ...], v: str) -> list[str]:
        if any(type(member) is not str and member is not None for member in members):
            raise _Unwritable  # 1 == True == 1.0: left to the exact check
        strings = self.constant(frozenset(member for member in members if type(member) is str))
        test = f"(type({v}) is str and {v} in {strings})"
        return [f"if not ({test}{f' or {v} is None' if None in members else ''}): raise D"]

    def object_lines(self, shape: Shape, v: str, depth: int) -> tuple[list[str], str, str, str]:
        """Copy an exact dict (its own key order) and check it; any undeclared key is a doubt.

        Objects take nothing from the budget themselves: with no undeclared
        keys their fan-out is the shape's, so an array that holds them is
        charged their size (:func:`_size`) for each member. Each one is
        marked verified (``M``) with its size and height once its members passed.
        """
        if shape.additional not in (None, False):
            raise _Unwritable
        f, k, n, z, h = self.fresh("f"), self.fresh("k"), self.fresh("n"), self.fresh("z"), self.fresh("h")
        lines = [
            f"if type({v}) is not dict: raise D",
            f"{f} = N(FrozenDict)",
            f"U({f}, {v})",
            f"for {k} in {f}:",
            f"    if type({k}) is not str: raise D",
            f"{z} = 1",
            f"{h} = 1",
        ]
        present = sum(1 for name, _ in shape.properties if name in shape.required)
        counted = f"{n} = {present}"
        optional = False
        for name, child in shape.properties:
            member = self.fresh("v")
            checks, frozen, size, height = self.value_lines(child, member, depth + 1)
            if frozen != member:
                checks = [*checks, f"P({f}, {name!r}, {frozen})"]
            if size != "1":  # a container: its values beyond the one counted below, its levels
                checks = [*checks, f"{z} += {size} - 1", f"if {height} >= {h}: {h} = {height} + 1"]
            if name in shape.required:
                lines += [f"{member} = {f}[{name!r}]", *checks]
            else:
                optional = True
                lines += [f"if {name!r} in {f}:", f"    {member} = {f}[{name!r}]", f"    {n} += 1", *indent(checks)]
        if optional:
            lines.insert(0, counted)
        # Exact str keys, every declared one present: a count that matches leaves no other key.
        lines += [f"if len({f}) != {n if optional else present}: raise D", f"{z} += len({f})", f"M({f}, {z}, {h})"]
        return lines, f, z, h

    def array_lines(self, shape: Shape, v: str, depth: int) -> tuple[list[str], str, str, str]:
        s, z, h = self.fresh("s"), self.fresh("z"), self.fresh("h")
        size = 1 if shape.items is None else _size(shape.items)
        lines = [
            f"if type({v}) is not list and type({v}) is not tuple: raise D",
            f"{s} = tuple({v})",
            f"left -= len({s})" if size == 1 else f"left -= len({s}) * {size}",
            "if left < 0: raise D",
            f"{h} = 1",
        ]
        if shape.items is None:
            return [*lines, f"if {s}: raise D", f"{z} = 1"], s, z, h  # members of any kind: left to the exact walks
        item = self.fresh("x")
        checks, frozen, item_size, item_height = self.value_lines(shape.items, item, depth + 1)
        if frozen == item:  # scalars: the snapshot is the frozen form
            return [*lines, f"{z} = 1 + len({s})", f"for {item} in {s}:", *indent(checks)], s, z, h
        built, append = self.fresh("a"), self.fresh("p")
        loop = [*checks, f"{append}({frozen})", f"{z} += {item_size}", f"if {item_height} >= {h}: {h} = {item_height} + 1"]
        start = [f"{z} = 1", f"{built} = []", f"{append} = {built}.append"]
        return [*lines, *start, f"for {item} in {s}:", *indent(loop), f"{built} = tuple({built})"], built, z, h


def _size(shape: Shape) -> int:
    """The most values ``shape`` holds outside the arrays in it (an array is one: it charges its members).

    Only for shapes the writer writes (no ``anyOf``, at most :data:`INLINE_DEPTH` levels).
    """
    if shape.enum is not None or shape.types is None or "object" not in shape.types:
        return 1
    return 1 + sum(_size(child) for _, child in shape.properties)


def compile_fast_freezer(shape: Shape) -> Freezer | None:
    """A function that freezes a value it can vouch for (and marks it verified), else ``UNSURE``.

    ``None`` when ``shape`` holds a construct the freezer does not write;
    the caller then always takes the exact walks.
    """
    writer = _Writer()
    try:
        lines, frozen, _, _ = writer.value_lines(shape, "o", 0)
    except _Unwritable:
        return None
    if _size(shape) + BUDGET > MAX_VALUES:  # so wide that a value could pass the limit outside any array
        return None
    source = "\n".join(
        [
            "def freeze_valid(o):",
            f"    left = {BUDGET}",
            "    try:",
            *indent(indent(lines)),
            "    except Exception:",  # D, a missing required key, a hostile key's __eq__, ...
            "        return UNSURE",
            f"    return {frozen}",
        ]
    )
    namespace: dict[str, object] = {
        **writer.constants,
        "D": _Doubt,
        "FrozenDict": FrozenDict,
        "N": dict.__new__,
        "U": dict.update,
        "P": dict.__setitem__,
        "S": find_surrogate,
        "M": verified,
        "UNSURE": UNSURE,
    }
    exec(compile(source, "<dsh_tools freezer>", "exec"), namespace)  # noqa: S102 - see the module docstring
    freezer: Freezer = namespace["freeze_valid"]  # type: ignore[assignment]
    return freezer
