"""The valid-input fast path: a schema's Shape written out as one straight-line predicate.

Almost every call a model makes has valid arguments, so the hot question is
"is this valid?", not "what is wrong with it?". :func:`compile_predicate`
turns a :class:`~dsh_tools.definitions.validation.Shape` into Python source,
one function per object level, in which each property costs a dictionary
lookup and an exact ``type()`` test — no closure call per property, no
problem lists. The closure checker (:func:`~dsh_tools.definitions.validation.compile_shape`)
still answers every value the predicate does not vouch for, and writes the
messages.

The predicate is *conservative*: ``True`` only when the closure checker would
find nothing, ``False`` when unsure (a value of a type it does not read
quickly, a non-string enum member, a construct it does not know). A
``False`` costs only the closure walk it would have run anyway.

Safety of the generated source: every name in it is ours; property names
enter only as ``repr()`` string literals (always a well-formed literal), and
enum sets, key sets and fallback checkers are passed in as constants, never
written as code. Containers are written inline up to :data:`INLINE_DEPTH`
levels and in functions of their own below that, so the source stays within
the compiler's nesting limits whatever the schema depth.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from itertools import count
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # validation imports this module; the Shape class is only needed for types
    from dsh_tools.definitions.validation import Check, Shape

__all__ = ["Predicate", "compile_predicate"]

Predicate = Callable[[object], bool]

_MISSING: Final = object()
_EXACT: Final = {"string": "str", "integer": "int", "boolean": "bool"}
"""Words whose test is one exact type."""
_SCALAR_TESTS: Final[dict[str, str]] = {
    "string": "{t} is str",
    "integer": "{t} is int",
    "boolean": "{t} is bool",
    "null": "{v} is None",
    "number": "({t} is int or ({t} is float and {v} - {v} == 0.0))",  # inf - inf and nan - nan are nan
}


INLINE_DEPTH: Final = 12
"""Container levels written inline in one function; deeper levels get a function of their own."""


class _Writer:
    """Accumulates the generated functions and the constants they refer to."""

    def __init__(
        self, fallback: Callable[[Shape], Check], objects: tuple[type, ...], arrays: tuple[type, ...]
    ) -> None:
        self.fallback = fallback
        self.objects = objects
        self.arrays = arrays
        self.functions: list[str] = []
        self.constants: dict[str, object] = {"M": _MISSING}
        self._names = count()

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._names)}"

    def constant(self, value: object) -> str:
        name = self.fresh("C")
        self.constants[name] = value
        return name

    def type_test(self, types: tuple[type, ...], t: str) -> str:
        """``t is A or t is B`` over constants for ``types`` (``False`` when there are none)."""
        return " or ".join(f"{t} is {self.constant(kind)}" for kind in types) or "False"

    def function(self, shape: Shape) -> str:
        """Name of a generated ``f(value) -> bool`` for ``shape``, its body starting a fresh depth."""
        name = self.fresh("f")
        body = [f"    {line}" for line in self.value_lines(shape, "o", 0)]
        self.functions.append("\n".join([f"def {name}(o):", *body, "    return True"]))
        return name

    def value_lines(self, shape: Shape, v: str, depth: int) -> list[str]:
        """Lines that ``return False`` unless ``v`` (a present value) surely satisfies ``shape``."""
        types = shape.types
        if getattr(shape, "any_of", None) is not None:  # a construct this writer leaves to the checker
            return [f"if {self.constant(self.fallback(shape))}({v}) is not None: return False"]
        if types is None:
            return []
        if shape.enum is not None:
            strings = frozenset(member for member in shape.enum if type(member) is str)
            test = f"(type({v}) is str and {v} in {self.constant(strings)})"
            if None in shape.enum:
                test = f"({test} or {v} is None)"
            return [f"if not {test}: return False"]
        containers = [word for word in types if word in ("object", "array")]
        scalars = [word for word in types if word not in ("object", "array")]
        if len(containers) > 1 or any(word not in _SCALAR_TESTS for word in scalars):
            return [f"if {self.constant(self.fallback(shape))}({v}) is not None: return False"]
        if not containers:
            if len(scalars) == 1 and scalars[0] in _EXACT:
                return [f"if type({v}) is not {_EXACT[scalars[0]]}: return False"]
            t = self.fresh("t")
            tests = " or ".join(_SCALAR_TESTS[word].format(t=t, v=v) for word in scalars)
            return [f"{t} = type({v})", f"if not ({tests}): return False"]
        if depth >= INLINE_DEPTH:
            body = [f"if not {self.function(shape)}({v}): return False"]
        elif containers[0] == "object":
            body = self.object_lines(shape, v, depth)
        else:
            body = self.array_lines(shape, v, depth)
        if not scalars:
            return body
        if scalars != ["null"]:  # a nullable container is all Props produce; leave anything else alone
            return [f"if {self.constant(self.fallback(shape))}({v}) is not None: return False"]
        return [f"if {v} is not None:", *_indent(body)]

    def object_lines(self, shape: Shape, v: str, depth: int) -> list[str]:
        t, get = self.fresh("t"), self.fresh("g")
        lines = [f"{t} = type({v})", f"if not ({self.type_test(self.objects, t)}): return False"]
        if shape.properties:
            lines.append(f"{get} = {v}.get")
        for name, child in shape.properties:
            member = self.fresh("v")
            checks = self.value_lines(child, member, depth + 1)
            lines.append(f"{member} = {get}({name!r}, M)")
            if name in shape.required:
                lines += [f"if {member} is M: return False", *checks]
            elif checks:
                lines += [f"if {member} is not M:", *_indent(checks)]
        additional = shape.additional
        if additional is None or additional is True:
            return lines
        key, member = self.fresh("k"), self.fresh("x")
        declared = self.constant(frozenset(name for name, _ in shape.properties))
        if additional is False:
            extra = ["return False"]
        else:  # a Shape every undeclared key's value must satisfy
            extra = self.value_lines(additional, member, depth + 1)
        loop = [f"if type({key}) is not str: return False", f"if {key} in {declared}: continue", *extra]
        return [*lines, f"for {key}, {member} in {v}.items():", *_indent(loop)]

    def array_lines(self, shape: Shape, v: str, depth: int) -> list[str]:
        t = self.fresh("t")
        lines = [f"{t} = type({v})", f"if not ({self.type_test(self.arrays, t)}): return False"]
        if shape.items is not None:
            item = self.fresh("x")
            checks = self.value_lines(shape.items, item, depth + 1)
            if checks:
                lines += [f"for {item} in {v}:", *_indent(checks)]
        return lines


def _indent(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def compile_predicate(
    shape: Shape, *, fallback: Callable[[Shape], Check], objects: Collection[type], arrays: Collection[type]
) -> Predicate:
    """A predicate that is ``True`` only for values ``compile_shape(shape)`` finds valid.

    ``fallback`` compiles the closure checker for any sub-shape the writer
    leaves alone (it is the checker's own compiler, so both agree by design).
    ``objects``/``arrays`` are the types the checker accepts as JSON objects
    and arrays; objects are read here only when they are dicts (``dict.get``
    is the fast read), any other accepted mapping is left to the checker.
    """
    fast_objects = tuple(sorted((kind for kind in objects if issubclass(kind, dict)), key=str))
    writer = _Writer(fallback, fast_objects, tuple(sorted(arrays, key=str)))
    root = writer.function(shape)
    namespace: dict[str, object] = dict(writer.constants)
    exec(compile("\n\n".join(writer.functions), "<dsh_tools validator>", "exec"), namespace)  # noqa: S102 - see module doc
    predicate: Predicate = namespace[root]  # type: ignore[assignment]
    return predicate
