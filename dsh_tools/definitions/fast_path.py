"""The valid-input fast path: a schema's Shape written out as one straight-line validator.

Almost every call a model makes has valid arguments, so the hot question is
"is this valid?", not "what is wrong with it?". :func:`compile_fast_validator`
turns a :class:`~dsh_tools.definitions.validation.Shape` into the source of
one Python function in which each property costs a dictionary lookup and an
exact ``type()`` test: no closure call per property, no problem lists. At the
first doubt it hands the value to the slow validator (the closure checker,
:func:`~dsh_tools.definitions.validation.compile_shape`, with its messages),
which decides.

The fast part is *conservative*: it returns ``[]`` only for values the
closure checker finds valid, and defers everything else — a mistake, a value
of a type it does not read quickly (a PMap), a non-string enum member, a
construct it does not know, an exception. Deferring costs only the walk the
checker would have made anyway.

Safety of the generated source: every name in it is ours; property names
enter only as ``repr()`` string literals (always a well-formed literal), and
enum sets, key sets and the checkers it defers to are passed in as constants,
never written as code. Containers are written inline up to
:data:`INLINE_DEPTH` levels and in functions of their own below that, so the
source stays within the compiler's nesting limits whatever the schema depth.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from itertools import count
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # validation imports this module; the Shape class is only needed for types
    from dsh_tools.definitions.validation import Check, Shape

__all__ = ["INLINE_DEPTH", "SourceNames", "Validator", "compile_fast_validator", "indent"]

Validator = Callable[[object], list[str]]

INLINE_DEPTH: Final = 12
"""Container levels written inline in one function; deeper levels get a function of their own."""

_EXACT: Final = {"string": "str", "integer": "int", "boolean": "bool"}
"""Words whose test is one exact type."""
_SCALAR_TESTS: Final[dict[str, str]] = {
    "string": "{t} is str",
    "integer": "{t} is int",
    "boolean": "{t} is bool",
    "null": "{v} is None",
    "number": "({t} is int or ({t} is float and {v} - {v} == 0.0))",  # inf - inf and nan - nan are nan
}


class SourceNames:
    """Fresh local names and named constants for one piece of generated source.

    Values reach the source only as the names of constants (the namespace
    the source is executed in), never as code.
    """

    def __init__(self) -> None:
        self.constants: dict[str, object] = {}
        self._names = count()

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._names)}"

    def constant(self, value: object) -> str:
        name = self.fresh("C")
        self.constants[name] = value
        return name


class _Writer(SourceNames):
    """Accumulates the generated functions and the constants they refer to.

    ``fail`` is the statement that gives up on the value at hand: in the root
    function it returns the slow validator's answer, in a nested function
    ``False`` (its caller then gives up in turn).
    """

    def __init__(
        self, fallback: Callable[[Shape], Check], objects: tuple[type, ...], arrays: tuple[type, ...]
    ) -> None:
        super().__init__()
        self.fallback = fallback
        self.objects = objects
        self.arrays = arrays
        self.functions: list[str] = []
        self.fail = "return False"

    def type_test(self, types: tuple[type, ...], t: str) -> str:
        """``t is A or t is B`` over constants for ``types`` (``False`` when there are none)."""
        return " or ".join(f"{t} is {self.constant(kind)}" for kind in types) or "False"

    def deferred(self, shape: Shape, v: str) -> list[str]:
        """Lines that leave ``v`` to the closure checker of ``shape`` (a construct not written here)."""
        return [f"if {self.constant(self.fallback(shape))}({v}) is not None: {self.fail}"]

    def nested_function(self, shape: Shape) -> str:
        """Name of a generated ``f(value) -> bool`` for ``shape``, its body starting a fresh depth."""
        name, outer = self.fresh("f"), self.fail
        self.fail = "return False"
        body = indent(self.value_lines(shape, "o", 0))
        self.fail = outer
        self.functions.append("\n".join([f"def {name}(o):", *body, "    return True"]))
        return name

    def value_lines(self, shape: Shape, v: str, depth: int) -> list[str]:
        """Lines that give up unless ``v`` (a present value) surely satisfies ``shape``."""
        types = shape.types
        if getattr(shape, "any_of", None) is not None:
            return self.deferred(shape, v)
        if types is None:
            return []
        if shape.enum is not None:
            strings = frozenset(member for member in shape.enum if type(member) is str)
            test = f"(type({v}) is str and {v} in {self.constant(strings)})"
            if None in shape.enum:
                test = f"({test} or {v} is None)"
            return [f"if not {test}: {self.fail}"]
        containers = [word for word in types if word in ("object", "array")]
        scalars = [word for word in types if word not in ("object", "array")]
        if len(containers) > 1 or any(word not in _SCALAR_TESTS for word in scalars):
            return self.deferred(shape, v)
        if not containers:
            if len(scalars) == 1 and scalars[0] in _EXACT:
                return [f"if type({v}) is not {_EXACT[scalars[0]]}: {self.fail}"]
            t = self.fresh("t")
            tests = " or ".join(_SCALAR_TESTS[word].format(t=t, v=v) for word in scalars)
            return [f"{t} = type({v})", f"if not ({tests}): {self.fail}"]
        if scalars and scalars != ["null"]:  # a nullable container is all Props produce
            return self.deferred(shape, v)
        if depth >= INLINE_DEPTH:
            body = [f"if not {self.nested_function(shape)}({v}): {self.fail}"]
        elif containers[0] == "object":
            body = self.object_lines(shape, v, depth)
        else:
            body = self.array_lines(shape, v, depth)
        return [f"if {v} is not None:", *indent(body)] if scalars else body

    def object_lines(self, shape: Shape, v: str, depth: int) -> list[str]:
        """Exact dict types only; a required key is read directly (a missing one raises, which defers)."""
        t = self.fresh("t")
        lines = [f"{t} = type({v})", f"if not ({self.type_test(self.objects, t)}): {self.fail}"]
        for name, child in shape.properties:
            member = self.fresh("v")
            checks = self.value_lines(child, member, depth + 1)
            if name in shape.required:
                lines += [f"{member} = {v}[{name!r}]", *checks]
            elif checks:
                lines += [f"if {name!r} in {v}:", f"    {member} = {v}[{name!r}]", *indent(checks)]
        additional = shape.additional
        if additional is None or additional is True:
            return lines
        key, member = self.fresh("k"), self.fresh("x")
        declared = self.constant(frozenset(name for name, _ in shape.properties))
        # ``additional`` is False (no other keys) or the Shape every undeclared key's value must satisfy.
        extra = [self.fail] if additional is False else self.value_lines(additional, member, depth + 1)
        loop = [f"if type({key}) is not str: {self.fail}", f"if {key} in {declared}: continue", *extra]
        return [*lines, f"for {key}, {member} in {v}.items():", *indent(loop)]

    def array_lines(self, shape: Shape, v: str, depth: int) -> list[str]:
        t = self.fresh("t")
        lines = [f"{t} = type({v})", f"if not ({self.type_test(self.arrays, t)}): {self.fail}"]
        if shape.items is not None:
            item = self.fresh("x")
            checks = self.value_lines(shape.items, item, depth + 1)
            if checks:
                lines += [f"for {item} in {v}:", *indent(checks)]
        return lines


def indent(lines: list[str]) -> list[str]:
    """``lines`` one level deeper (generated source, four spaces)."""
    return [f"    {line}" for line in lines]


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
    writer = _Writer(fallback, fast_objects, tuple(sorted(arrays, key=str)))
    slow_name = writer.constant(slow)
    writer.fail = f"return {slow_name}(o)"
    body = indent(indent(writer.value_lines(shape, "o", 0) or ["pass"]))
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
    namespace: dict[str, object] = dict(writer.constants)
    source = "\n\n".join(writer.functions)
    exec(compile(source, "<dsh_tools validator>", "exec"), namespace)  # noqa: S102 - see the module docstring
    validator: Validator = namespace[root]  # type: ignore[assignment]
    return validator
