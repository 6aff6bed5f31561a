"""Values that are not JSON however they try to look like it, shared by the JSON boundary's suites."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, NoReturn

from dsh_tools.json_values import MAX_DEPTH


def nested_lists(levels: int) -> object:
    value: object = 0
    for _ in range(levels):
        value = [value]
    return value


def nested_dicts(levels: int) -> object:
    value: object = 0
    for _ in range(levels):
        value = {"a": value}
    return value


# -- hostile objects ---------------------------------------------------------


class RaisingEq:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__")

    def __hash__(self) -> int:
        raise RuntimeError("__hash__")


class RaisingEverything:
    def __getattr__(self, name: str) -> NoReturn:
        raise RuntimeError(f"__getattr__ {name}")

    def __iter__(self) -> NoReturn:
        raise RuntimeError("__iter__")

    def __len__(self) -> int:
        raise RuntimeError("__len__")

    def __str__(self) -> str:
        raise RuntimeError("__str__")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__")

    def __bool__(self) -> bool:
        raise RuntimeError("__bool__")


class StatelessDict(dict[str, Any]):
    pass


class StatefulDict(dict[str, Any]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.secret = "extra"


class StatelessList(list[Any]):
    pass


class LyingList(list[Any]):
    """Iterating it yields something other than what it holds."""

    def __iter__(self) -> Any:
        return iter(["lie"])

    def __len__(self) -> int:
        raise RuntimeError("__len__")


class MyStr(str):
    pass


class MyInt(int):
    pass


class MyFloat(float):
    pass


class ImpersonatingMeta(type):
    """A metaclass claiming, via hash and equality, to be ``str``."""

    def __hash__(cls) -> int:
        return hash(str)

    def __eq__(cls, other: object) -> bool:
        return True


class Impersonator(metaclass=ImpersonatingMeta):
    pass


class RaisingHashMeta(type):
    def __hash__(cls) -> int:
        raise RuntimeError("metaclass __hash__")


class RaisingHash(metaclass=RaisingHashMeta):
    pass


class WithDict:
    def __init__(self) -> None:
        self.a = 1


def self_referencing_dict() -> dict[str, Any]:
    d: dict[str, Any] = {"x": 1}
    d["self"] = d
    return d


def self_referencing_list() -> list[Any]:
    items: list[Any] = [1]
    items.append(items)
    return items


def mutual_cycle() -> dict[str, Any]:
    a: dict[str, Any] = {}
    b: list[Any] = [a]
    a["b"] = b
    return {"root": a}


HOSTILE: list[object] = [
    RaisingEq(),
    RaisingEverything(),
    [RaisingEverything()],
    {"k": RaisingEq()},
    StatelessDict(),
    StatefulDict(a=1),
    StatelessList(),
    LyingList([1]),
    MyStr("s"),
    MyInt(1),
    MyFloat(1.0),
    True.__class__,  # a type object
    Impersonator(),
    [Impersonator()],
    RaisingHash(),
    {"k": RaisingHash()},
    WithDict(),
    float("nan"),
    float("inf"),
    float("-inf"),
    [1, [2, {"x": float("nan")}]],
    {"a": {"b": [0.0, float("-inf")]}},
    self_referencing_dict(),
    self_referencing_list(),
    mutual_cycle(),
    {1: "int key"},
    {None: "none key"},
    {MyStr("k"): 1},
    {("a",): 1},
    b"bytes",
    bytearray(b"x"),
    memoryview(b"x"),
    {1, 2},
    frozenset({1}),
    OrderedDict(a=1),
    range(3),
    iter([1]),
    object(),
    print,
    lambda: None,
    1j,
    2**64,
    -(2**63) - 1,
    nested_lists(MAX_DEPTH + 1),
    nested_dicts(MAX_DEPTH + 1),
]
