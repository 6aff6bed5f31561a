"""The order in which an annotation's unions were written, read from its source text.

Python's ``typing`` caches the special forms and generics it builds, and the
cache compares its keys with ``==``. Unions are equal whatever the order of
their members, so once anything in the process (a dependency, often) has
built ``NotRequired[str | int]``, writing ``NotRequired[int | str]`` hands
back that object, members in *its* order. A schema read from the annotation
object would then list ``anyOf`` members in an order that depends on what
was imported first, and an SDK rendered from it would change with it.

An annotation written as text (``from __future__ import annotations``, or a
quoted annotation) still says what its author wrote. :func:`declared_unions`
reads the unions out of that text and evaluates each member on its own, as
``typing.get_type_hints`` evaluates the whole; :func:`in_declared_order`
puts a union's members back in that order. An annotation evaluated when its
class or function was defined keeps whatever order the cache gave it: its
text is gone by the time anyone can read it.
"""

from __future__ import annotations

import ast
import builtins
import sys
import typing
from collections.abc import Mapping, Sequence
from typing import Any, ForwardRef

__all__ = ["Declared", "declared_of", "declared_unions", "in_declared_order"]

Declared = tuple[tuple[object, ...], ...]
"""The members of each union an annotation's text writes, in the order written."""

_MAX_TEXT = 4_096
"""Longer annotation text is not read (the order is then the objects' own)."""


def declared_of(owner: object, name: str) -> Declared:
    """The unions written in the annotation of ``name`` on ``owner`` (a TypedDict's field, a function's parameter).

    Evaluated where ``typing.get_type_hints`` evaluates them: a function's
    globals; for a TypedDict field, the module that declared it (a field
    inherited from a base is the base's) and the class's namespace.
    """
    try:
        annotation = getattr(owner, "__annotations__", {}).get(name)
        if _text(annotation) is None:
            return ()
        if isinstance(owner, type):
            module = getattr(annotation, "__forward_module__", None) or owner.__module__
            globalns, localns = vars(sys.modules[module]), vars(owner)
        else:
            globalns, localns = getattr(owner, "__globals__"), None
    except Exception:  # noqa: BLE001 - no readable text: the objects' order
        return ()
    return declared_unions(annotation, globalns, localns) if type(globalns) is dict else ()


def declared_unions(annotation: object, globalns: dict[str, Any], localns: Mapping[str, Any] | None = None) -> Declared:
    """The unions ``annotation``'s text writes (``a | b``, ``Union[a, b]``, ``Optional[a]``), each in written order.

    Empty when the annotation is not text, or its text cannot be read; a union
    with a member that cannot be evaluated on its own is left out. Never raises.
    """
    text = _text(annotation)
    if text is None:
        return ()
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    # the inner links of a chain (a | b | c, a | (b | c)): its outermost link reads it whole, as Python flattens it
    chained = {
        id(link)
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)
        for link in (node.left, node.right)
    }
    found: list[tuple[object, ...]] = []
    for node in ast.walk(tree):
        members = _members(node, chained, globalns, localns)
        if members is not None:
            found.append(members)
    return tuple(found)


def _text(annotation: object) -> str | None:
    """The annotation's text if it may write a union, else ``None`` (most do not: nothing to parse).

    A union is written as ``a | b`` or as a subscript whose head evaluates to
    ``Union``/``Optional`` (an alias too: ``U = Union``), exactly what
    :func:`_members` reads, so text with neither ``|`` nor ``[`` holds none.
    """
    text = annotation.__forward_arg__ if isinstance(annotation, ForwardRef) else annotation
    if type(text) is not str or len(text) > _MAX_TEXT:
        return None
    return text if "|" in text or "[" in text else None


def in_declared_order(args: Sequence[object], declared: Declared) -> tuple[object, ...]:
    """``args`` (a union's members) in the order a declared union with the same members has, else as they are."""
    try:
        if any(len(written) == len(args) and all(a == b for a, b in zip(written, args)) for written in declared):
            return tuple(args)  # already as one union was written (two unions of the same members may differ in order)
        for written in declared:
            if len(written) == len(args) and all(any(arg == member for member in written) for arg in args):
                return written
    except Exception:  # noqa: BLE001 - a member whose == raises: the objects' order
        pass
    return tuple(args)


def _is_or(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)


def _members(node: ast.AST, chained: set[int], globalns: dict[str, Any], localns: Mapping[str, Any] | None) -> tuple[object, ...] | None:
    """The evaluated members of the union ``node`` writes, or ``None`` (not a union, or not evaluable)."""
    if _is_or(node):
        if id(node) in chained:
            return None
        operands: list[ast.expr] = []
        pending: list[ast.AST] = [node]
        while pending:  # left to right, without recursion (a chain may be long)
            link = pending.pop()
            if isinstance(link, ast.BinOp) and isinstance(link.op, ast.BitOr):
                pending += (link.right, link.left)
            elif isinstance(link, ast.expr):
                operands.append(link)
        return _evaluated(operands, globalns, localns)
    if isinstance(node, ast.Subscript):
        head = _evaluated([node.value], globalns, localns)
        if head == (typing.Union,):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return _evaluated(parts, globalns, localns)
        if head == (typing.Optional,):
            members = _evaluated([node.slice], globalns, localns)
            return None if members is None else (*members, type(None))
    return None


def _evaluated(nodes: Sequence[ast.expr], globalns: dict[str, Any], localns: Mapping[str, Any] | None) -> tuple[object, ...] | None:
    values: list[object] = []
    for node in nodes:
        try:
            value = _value(node, globalns, localns)
            if type(value) is str:  # a quoted member ("Hit"): its text names the type
                value = eval(compile(value, "<annotation>", "eval"), globalns, localns)  # noqa: S307 - as get_type_hints does
        except Exception:  # noqa: BLE001 - a member that does not evaluate alone: the union keeps the objects' order
            return None
        values.append(type(None) if value is None else value)
    return tuple(values)


def _value(node: ast.expr, globalns: dict[str, Any], localns: Mapping[str, Any] | None) -> object:
    """What ``node`` evaluates to: a name or a constant looked up directly (most members), anything else evaluated."""
    if isinstance(node, ast.Name):
        name = node.id
        if localns is not None and name in localns:
            return localns[name]
        if name in globalns:
            return globalns[name]
        found = globalns.get("__builtins__", builtins)  # what eval would see: the module's, else the interpreter's
        return found[name] if isinstance(found, dict) else getattr(found, name)
    if isinstance(node, ast.Constant):
        return node.value
    return eval(compile(ast.Expression(node), "<annotation>", "eval"), globalns, localns)  # noqa: S307 - the annotation's own text, as get_type_hints evaluates it
