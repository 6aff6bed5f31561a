"""A Shape written out as one Python function: check it, or check and freeze it, in one pass.

Almost every value a schema meets is valid, so the hot question is "is this
valid?", not "what is wrong with it?". One writer turns a
:class:`~dsh_tools.definitions.validation.Shape` into one function in which
each property costs a dictionary lookup and an exact ``type()`` test, in
one of two modes over one rule set:

* **checking** (:func:`compile_fast_validator`): ``[]`` for a value it can
  vouch for; at the first doubt the closure checker
  (:func:`~dsh_tools.definitions.validation.compile_shape`) decides and
  words the problems. Constructs not written here (``anyOf``, ...) are left
  to the checker's closure for that sub-shape; levels below
  :data:`INLINE_DEPTH` get functions of their own.
* **freezing** (:func:`compile_fast_freezer`): it also copies objects into
  ``FrozenDict`` (marked verified, :func:`dsh_tools.json_walk.verified`) and
  arrays into tuples, with the JSON boundary's rules (the walks' own
  helpers and constants). At the first doubt it returns :data:`UNSURE` and
  the generic freeze and the checker decide. Shapes it cannot write (an
  untyped value, ``anyOf``, a schema for undeclared keys, deeper than
  :data:`INLINE_DEPTH`, too wide for :data:`BUDGET`) get no freezer.

Both are *conservative*: they vouch only for what the exact paths accept
and build what the generic freeze builds (a container held twice comes out
as two equal copies). Property names enter the source only as ``repr()``
literals, everything else as named constants, never as code. The source is
registered in :mod:`linecache` under a file name of its own for as long as
the function lives, so tracebacks, ``inspect.getsource`` and debuggers show it.
"""

from __future__ import annotations

import linecache
import math
import weakref
from collections.abc import Callable, Collection
from itertools import count
from typing import TYPE_CHECKING, Final

from dsh_tools.frozen_dict import FrozenDict
from dsh_tools.json_values import FrozenJson
from dsh_tools.json_walk import _HEIGHT_BITS, INT_MAX, INT_MIN, MAX_VALUES, _set_extent, find_surrogate, has_lone_surrogate

if TYPE_CHECKING:  # validation imports this module; the Shape class is only needed for types
    from dsh_tools.definitions.validation import Check, Shape

__all__ = ["BUDGET", "INLINE_DEPTH", "UNSURE", "Freezer", "Validator", "admits", "compile_fast_freezer", "compile_fast_validator"]

Validator = Callable[[object], list[str]]

INLINE_DEPTH: Final = 12
"""Container levels written inline in one function; deeper levels get a function of their own."""


class _Unsure:
    """The type of :data:`UNSURE`."""

    __slots__ = ()
    __repr__ = lambda self: "UNSURE"  # noqa: E731


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

_TYPE_TESTS: Final[dict[str, str]] = {
    "string": "{t} is str",
    "integer": "{t} is int",
    "boolean": "{t} is bool",
    "null": "{v} is None",
    "number": "({t} is int or ({t} is float and F({v})))",
}
"""The schema's test per type word (``F`` is ``math.isfinite``, as everywhere a number is checked)."""
_JSON_TESTS: Final[dict[str, str]] = {
    **_TYPE_TESTS,
    "string": "({t} is str and ({v}.isascii() or S({v}) is None))",
    "integer": "({t} is int and {low} <= {v} <= {high})",
    "number": "(({t} is int and {low} <= {v} <= {high}) or ({t} is float and F({v})))",
}
"""The same tests with the JSON boundary's rules added, for a value not frozen yet
(``S`` finds a lone surrogate; the 64-bit bounds are written in as literals)."""
_EXACT: Final = {"string": "str", "integer": "int", "boolean": "bool"}
"""Words whose schema test is one exact type."""


class _Unwritable(Exception):
    """The shape holds a construct the freezer does not write: no fast freezer."""


class _Doubt(Exception):
    """Raised by a generated freezer at the first doubt (any exception there means the same)."""


def admits(types: tuple[str, ...] | None, word: str) -> bool:
    """Whether a node of ``types`` (``None``: any) takes values of JSON type ``word``: an enum's shortcut
    settles a value by membership before its type, so it takes only members the type admits (both checkers)."""
    return types is None or word in types


class _Writer:
    """Writes the functions of one Shape and collects the constants they refer to.

    ``fail`` gives up on the value at hand: ``raise D`` in a freezer (caught
    at its root); in a checker the slow validator's answer at the root,
    ``return False`` in a nested function (whose caller then gives up).
    """

    def __init__(
        self,
        *,
        freezing: bool,
        fallback: Callable[[Shape], Check] | None = None,
        objects: tuple[type, ...] = (),
        arrays: tuple[type, ...] = (),
    ) -> None:
        self.constants: dict[str, object] = {}
        self._names = count()
        self.freezing = freezing
        self.fallback = fallback
        self.objects = objects
        self.arrays = arrays
        self.functions: list[str] = []
        self.fail = "raise D" if freezing else "return False"

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._names)}"

    def constant(self, value: object) -> str:
        name = self.fresh("C")
        self.constants[name] = value
        return name

    def type_test(self, types: tuple[type, ...], t: str) -> str:
        """``t is A or t is B`` over constants for ``types`` (``False`` when there are none)."""
        return " or ".join(f"{t} is {self.constant(kind)}" for kind in types) or "False"

    def deferred(self, shape: Shape, v: str) -> tuple[list[str], str, str, str]:
        """Lines that leave ``v`` to the closure checker of ``shape`` (a construct not written here)."""
        if self.freezing or self.fallback is None:
            raise _Unwritable
        return [f"if {self.constant(self.fallback(shape))}({v}) is not None: {self.fail}"], v, "1", "0"

    def nested_function(self, shape: Shape) -> str:
        """Name of a generated checking ``f(value) -> bool`` for ``shape``, its body starting a fresh depth."""
        name, outer = self.fresh("f"), self.fail
        self.fail = "return False"
        body = indent(self.value_lines(shape, "o", 0)[0])
        self.fail = outer
        self.functions.append("\n".join([f"def {name}(o):", *body, "    return True"]))
        return name

    def value_lines(self, shape: Shape, v: str, depth: int) -> tuple[list[str], str, str, str]:
        """Lines that give up unless ``v`` (a present value) surely fits ``shape``; then its frozen name, size, height."""
        if shape.any_of is not None:
            return self.deferred(shape, v)
        if shape.enum is not None:
            return self.enum_lines(shape.enum, shape.types, v), v, "1", "0"
        types = shape.types
        if types is None:
            if self.freezing:
                raise _Unwritable
            return [], v, "1", "0"
        containers = [word for word in types if word in ("object", "array")]
        scalars = [word for word in types if word not in ("object", "array")]
        if len(containers) > 1 or any(word not in _TYPE_TESTS for word in scalars):
            return self.deferred(shape, v)
        if not containers:
            if not self.freezing and len(scalars) == 1 and scalars[0] in _EXACT:
                return [f"if type({v}) is not {_EXACT[scalars[0]]}: {self.fail}"], v, "1", "0"
            t = self.fresh("t")
            tests = _JSON_TESTS if self.freezing else _TYPE_TESTS
            test = " or ".join(tests[word].format(t=t, v=v, low=INT_MIN, high=INT_MAX) for word in scalars)
            return [f"{t} = type({v})", f"if not ({test}): {self.fail}"], v, "1", "0"
        if scalars and scalars != ["null"]:  # a nullable container is all Props produce
            return self.deferred(shape, v)
        if depth >= INLINE_DEPTH:
            if self.freezing:
                raise _Unwritable  # one function, nested loops: Python's block nesting stays in bounds
            lines, frozen, size, height = [f"if not {self.nested_function(shape)}({v}): {self.fail}"], v, "1", "0"
        elif containers[0] == "object":
            lines, frozen, size, height = self.object_lines(shape, v, depth)
        else:
            lines, frozen, size, height = self.array_lines(shape, v, depth)
        if not scalars:
            return lines, frozen, size, height
        if not self.freezing:
            return [f"if {v} is not None:", *indent(lines)], v, "1", "0"
        null = [f"{frozen} = None", f"{size} = 1", f"{height} = 0"]
        return [f"if {v} is None:", *indent(null), "else:", *indent(lines)], frozen, size, height

    def enum_lines(self, members: tuple[object, ...], types: tuple[str, ...] | None, v: str) -> list[str]:
        """String members (and ``null``) the type admits are vouched for; any other member is left to the exact check (1 == True == 1.0).

        A freezer is not written for an enum with such members: it would only ever doubt. Nor does it
        vouch for a member with a lone surrogate (not JSON, so the exact walks refuse it).
        """
        if self.freezing and any(type(member) is not str and member is not None for member in members):
            raise _Unwritable
        strings = self.constant(
            frozenset(
                member
                for member in members
                if type(member) is str
                and admits(types, "string")
                and not (self.freezing and has_lone_surrogate(member))
            )
        )
        null = None in members and admits(types, "null")
        test = f"(type({v}) is str and {v} in {strings})"
        return [f"if not ({test}{f' or {v} is None' if null else ''}): {self.fail}"]

    def object_lines(self, shape: Shape, v: str, depth: int) -> tuple[list[str], str, str, str]:
        """Check an object's members; a required key is read directly (a missing one raises: a doubt).

        Freezing copies an exact dict whose keys are all ``str`` (checked before
        the copy, which would run a colliding foreign key's ``__eq__``, and
        again on the copy) into a ``FrozenDict`` (its own key order),
        doubts any undeclared key (so the fan-out is the shape's: an array of
        objects is charged their :func:`_size` per member), and marks it
        verified (``M``) with its size and height once its members passed.
        """
        freezing = self.freezing
        if freezing:
            # A key is vouched for by equalling a declared name, so a name that is not JSON text is never written.
            if shape.additional not in (None, False) or any(has_lone_surrogate(name) for name, _ in shape.properties):
                raise _Unwritable
            f, k, n, z, h = self.fresh("f"), self.fresh("k"), self.fresh("n"), self.fresh("z"), self.fresh("h")
            lines = [
                f"if type({v}) is not dict: {self.fail}",
                # The keys first, as freeze_json does: copying a non-str key whose hash collides runs its __eq__.
                f"for {k} in {v}:",
                f"    if type({k}) is not str: {self.fail}",
                f"{f} = N(FrozenDict)",
                f"U({f}, {v})",
                f"for {k} in {f}:",
                f"    if type({k}) is not str: {self.fail}",
                f"{z} = 1",
                f"{h} = 1",
            ]
        else:
            f, t = v, self.fresh("t")
            lines = [f"{t} = type({v})", f"if not ({self.type_test(self.objects, t)}): {self.fail}"]
        optional = False
        for name, child in shape.properties:
            member = self.fresh("v")
            checks, frozen, size, height = self.value_lines(child, member, depth + 1)
            if freezing and frozen != member:
                checks = [*checks, f"P({f}, {name!r}, {frozen})"]
            if freezing and size != "1":  # a container: its values beyond the one counted by len(), its levels
                checks = [*checks, f"{z} += {size} - 1", f"if {height} >= {h}: {h} = {height} + 1"]
            if name in shape.required:
                lines += [f"{member} = {f}[{name!r}]", *checks]
            elif freezing:
                optional = True
                lines += [f"if {name!r} in {f}:", f"    {member} = {f}[{name!r}]", f"    {n} += 1", *indent(checks)]
            elif checks:
                lines += [f"if {name!r} in {f}:", f"    {member} = {f}[{name!r}]", *indent(checks)]
        if freezing:
            present = sum(1 for name, _ in shape.properties if name in shape.required)
            if optional:
                lines.insert(0, f"{n} = {present}")
            # Exact str keys, every declared one present: a count that matches leaves no other key.
            lines += [f"if len({f}) != {n if optional else present}: {self.fail}", f"{z} += len({f})", f"M({f}, {z} << {_HEIGHT_BITS} | {h})"]
            return lines, f, z, h
        additional = shape.additional
        if additional is None or additional is True:
            return lines, v, "1", "0"
        key, member = self.fresh("k"), self.fresh("x")
        declared = self.constant(frozenset(name for name, _ in shape.properties))
        # ``additional`` is False (no other keys) or the Shape every undeclared key's value must satisfy.
        extra = [self.fail] if additional is False else self.value_lines(additional, member, depth + 1)[0]
        loop = [f"if type({key}) is not str: {self.fail}", f"if {key} in {declared}: continue", *extra]
        return [*lines, f"for {key}, {member} in {v}.items():", *indent(loop)], v, "1", "0"

    def array_lines(self, shape: Shape, v: str, depth: int) -> tuple[list[str], str, str, str]:
        """Check an array's members; freezing takes a tuple snapshot first and charges the budget."""
        if not self.freezing:
            t = self.fresh("t")
            lines = [f"{t} = type({v})", f"if not ({self.type_test(self.arrays, t)}): {self.fail}"]
            if shape.items is not None:
                item = self.fresh("x")
                checks = self.value_lines(shape.items, item, depth + 1)[0]
                if checks:
                    lines += [f"for {item} in {v}:", *indent(checks)]
            return lines, v, "1", "0"
        s, z, h = self.fresh("s"), self.fresh("z"), self.fresh("h")
        size = 1 if shape.items is None else _size(shape.items)
        lines = [
            f"if type({v}) is not list and type({v}) is not tuple: {self.fail}",
            f"{s} = tuple({v})",
            f"left -= len({s})" if size == 1 else f"left -= len({s}) * {size}",
            f"if left < 0: {self.fail}",
            f"{h} = 1",
        ]
        if shape.items is None:  # members of any kind: left to the exact walks
            return [*lines, f"if {s}: {self.fail}", f"{z} = 1"], s, z, h
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

    Only for shapes the freezer writes (no ``anyOf``, at most :data:`INLINE_DEPTH` levels).
    """
    if shape.enum is not None or shape.types is None or "object" not in shape.types:
        return 1
    return 1 + sum(_size(child) for _, child in shape.properties)


def indent(lines: list[str]) -> list[str]:
    """``lines`` one level deeper (generated source, four spaces)."""
    return [f"    {line}" for line in lines]


_serial = count()


def _define(source: str, namespace: dict[str, object], name: str) -> Callable[[object], object]:
    """Execute generated ``source`` and return its function ``name``, its source shown in tracebacks.

    The source goes into :mod:`linecache` under a file name of its own (as
    attrs does for the methods it writes) and leaves it with the function.
    """
    filename = f"<dsh_tools shape code {next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace["F"] = math.isfinite
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - see the module docstring
    function: Callable[[object], object] = namespace[name]  # type: ignore[assignment]
    weakref.finalize(function, linecache.cache.pop, filename, None)
    return function


def compile_fast_validator(
    shape: Shape,
    *,
    slow: Validator,
    fallback: Callable[[Shape], Check],
    objects: Collection[type],
    arrays: Collection[type],
) -> Validator:
    """``shape``'s validator: ``[]`` straight away for a value it can vouch for, else ``slow(value)``.

    ``slow`` is the total closure validator of the same shape, and
    ``fallback`` the checker's own compiler for any sub-shape the writer
    leaves alone, so both paths apply one set of rules by construction.
    ``objects``/``arrays`` are the types the checker accepts as JSON objects
    and arrays; objects are read here only when they are dicts (a dict
    lookup is the fast read), any other accepted mapping is left to ``slow``.
    """
    fast_objects = tuple(sorted((kind for kind in objects if issubclass(kind, dict)), key=str))
    writer = _Writer(freezing=False, fallback=fallback, objects=fast_objects, arrays=tuple(sorted(arrays, key=str)))
    slow_name = writer.constant(slow)
    writer.fail = f"return {slow_name}(o)"
    body = indent(indent(writer.value_lines(shape, "o", 0)[0] or ["pass"]))
    root = writer.fresh("validate")
    writer.functions.append(
        "\n".join(
            [
                f"def {root}(o):",
                "    try:",
                *body,
                "    except Exception:",  # a hostile key's __eq__, a missing required key, ...
                f"        return {slow_name}(o)",
                "    return []",
            ]
        )
    )
    return _define("\n\n".join(writer.functions), dict(writer.constants), root)  # type: ignore[return-value]


def compile_fast_freezer(shape: Shape) -> Freezer | None:
    """A function that freezes a value it can vouch for (its objects marked verified), else ``UNSURE``.

    ``None`` when ``shape`` holds a construct the freezer does not write;
    the caller then always takes the exact walks.
    """
    writer = _Writer(freezing=True)
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
        "M": _set_extent,  # verified(), inline: the packed extent straight into the slot
        "S": find_surrogate,
        "UNSURE": UNSURE,
    }
    return _define(source, namespace, "freeze_valid")  # type: ignore[return-value]
