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
