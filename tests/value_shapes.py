"""Value shapes several suites build: deep nesting and exponential sharing."""

from __future__ import annotations

from typing import Any


def shared_tree(levels: int) -> dict[str, Any]:
    """``levels`` containers, each holding the one below twice: 2**levels leaves once written out."""
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"anyOf": [node, node]}
    return node


def wrapped(levels: int, inner: Any = 0) -> Any:
    """``inner`` inside ``levels`` nested lists."""
    for _ in range(levels):
        inner = [inner]
    return inner


def frozen(value: Any) -> Any:
    """``value`` as the registry holds it: ``freeze_json``'s verified ``FrozenDict``/``tuple`` form."""
    from dsh_tools.json_values import freeze_json

    return freeze_json(value).unwrap()


def deep_frozen(value: Any) -> Any:
    """``value`` with every ``dict`` a ``FrozenDict`` and every ``list`` a ``tuple``, *unchecked*
    (NaN, huge integers and the like stay): frozen containers nobody verified."""
    from dsh_tools.json_values import FrozenDict

    if type(value) is dict:
        return FrozenDict({key: deep_frozen(item) for key, item in value.items()})
    if type(value) is list or type(value) is tuple:
        return tuple(deep_frozen(item) for item in value)
    return value


def extent_recount(value: Any) -> tuple[int, int]:
    """``(values, container levels)`` of a frozen value, counted afresh (what a verified mark must say)."""
    from dsh_tools.json_values import FrozenDict

    if type(value) is FrozenDict or type(value) is tuple:
        children = [extent_recount(item) for item in (value.values() if type(value) is FrozenDict else value)]
        return 1 + sum(size for size, _ in children), 1 + max((height for _, height in children), default=0)
    return 1, 0


def assert_marks_true(value: Any) -> None:
    """Every ``FrozenDict`` in ``value`` is marked verified, and its mark is its recount."""
    from dsh_tools.json_values import FrozenDict
    from dsh_tools.json_walk import extent_of

    if type(value) is FrozenDict:
        size, height = extent_recount(value)
        assert extent_of(value) == size << 8 | height, value
    if type(value) is FrozenDict or type(value) is tuple:
        for item in value.values() if type(value) is FrozenDict else value:
            assert_marks_true(item)
