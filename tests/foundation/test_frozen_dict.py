"""``FrozenDict``: an immutable, insertion-ordered, hashable ``dict``."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Mapping
from typing import Any

import orjson
import pytest

import dsh_tools
from dsh_tools.json_values import FrozenDict, freeze_json


def sample() -> Any:
    return FrozenDict({"b": 1, "a": (1, 2), "c": FrozenDict({"z": None, "y": "s"})})


MUTATIONS: list[tuple[str, Callable[[Any], object]]] = [
    ("setitem", lambda d: d.__setitem__("b", 2)),
    ("setitem new", lambda d: d.__setitem__("new", 2)),
    ("delitem", lambda d: d.__delitem__("b")),
    ("clear", lambda d: d.clear()),
    ("pop", lambda d: d.pop("b")),
    ("pop default", lambda d: d.pop("missing", None)),
    ("popitem", lambda d: d.popitem()),
    ("setdefault", lambda d: d.setdefault("new", 1)),
    ("setdefault existing", lambda d: d.setdefault("b")),
    ("update", lambda d: d.update({"b": 2})),
    ("update kwargs", lambda d: d.update(b=2)),
    ("update nothing", lambda d: d.update()),
    ("ior", lambda d: d.__ior__({"b": 2})),
]


@pytest.mark.parametrize(("name", "mutate"), MUTATIONS, ids=[name for name, _ in MUTATIONS])
def test_every_mutator_raises_type_error_and_changes_nothing(name: str, mutate: Callable[[Any], object]) -> None:
    value = sample()
    before = dict(value)
    with pytest.raises(TypeError, match="immutable"):
        mutate(value)
    assert dict(value) == before and list(value) == ["b", "a", "c"]


def test_augmented_assignment_and_del_statements_raise() -> None:
    value = sample()
    with pytest.raises(TypeError):
        value |= {"x": 1}
    with pytest.raises(TypeError):
        del value["b"]
    with pytest.raises(TypeError):
        value["b"] += 1


def test_attributes_cannot_be_set_and_init_cannot_refill() -> None:
    value = sample()
    with pytest.raises(AttributeError):
        value.extra = 1
    with pytest.raises(AttributeError):
        value._hash = 5
    with pytest.raises(AttributeError):
        value._extent = (1, 1)
    value.__init__({"b": 99, "new": 1})
    assert value == sample()


def test_it_cannot_be_subclassed() -> None:
    with pytest.raises(TypeError, match="subclassed"):
        type("Sub", (FrozenDict,), {})


def test_reads_are_a_dicts_in_insertion_order() -> None:
    value = sample()
    assert isinstance(value, dict) and isinstance(value, Mapping)
    assert list(value) == ["b", "a", "c"]
    assert list(value.items())[0] == ("b", 1)
    assert list(reversed(value)) == ["c", "a", "b"]
    assert value["a"] == (1, 2) and value.get("missing") is None and "c" in value and len(value) == 3
    assert value == {"a": (1, 2), "b": 1, "c": {"y": "s", "z": None}}  # == ignores order, as for dict
    assert FrozenDict(x=1) == FrozenDict([("x", 1)]) == {"x": 1}
    assert FrozenDict() == {} and not FrozenDict()


def test_hash_is_order_insensitive_consistent_with_equality_and_cached() -> None:
    forward = FrozenDict({"a": 1, "b": (2, 3)})
    backward = FrozenDict({"b": (2, 3), "a": 1})
    assert forward == backward and hash(forward) == hash(backward)
    assert hash(forward) == hash(forward)
    assert hash(FrozenDict({"a": 1})) != hash(FrozenDict({"a": 2}))
    assert len({forward, backward, FrozenDict({"a": 2})}) == 2
    assert {forward: "x"}[backward] == "x"
    with pytest.raises(TypeError):
        hash(FrozenDict({"a": [1]}))  # an unhashable value, like a tuple holding a list


def test_merging_gives_a_new_frozen_dict() -> None:
    value = FrozenDict({"a": 1, "b": 2})
    merged = value | {"b": 3, "c": 4}
    assert type(merged) is FrozenDict and list(merged.items()) == [("a", 1), ("b", 3), ("c", 4)]
    left = {"z": 0} | value
    assert type(left) is FrozenDict and list(left) == ["z", "a", "b"]
    assert value == {"a": 1, "b": 2}
    assert type(FrozenDict.fromkeys(["x", "y"], 0)) is FrozenDict


def test_copy_pickle_and_repr() -> None:
    value = sample()
    assert copy.copy(value) is value
    deep = copy.deepcopy(value)
    assert deep == value and type(deep) is FrozenDict and list(deep) == list(value)
    plain = value.copy()
    assert type(plain) is dict and plain == value  # dict's own copy: a plain, mutable one
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        loaded = pickle.loads(pickle.dumps(value, protocol=protocol))
        assert type(loaded) is FrozenDict and loaded == value and list(loaded) == ["b", "a", "c"]
        assert type(loaded["c"]) is FrozenDict
    assert repr(FrozenDict({"a": 1, "b": (2,)})) == "FrozenDict({'a': 1, 'b': (2,)})"


def test_orjson_writes_it_natively_in_order() -> None:
    assert orjson.dumps(sample()) == b'{"b":1,"a":[1,2],"c":{"z":null,"y":"s"}}'


def test_exported_from_the_package() -> None:
    assert dsh_tools.FrozenDict is FrozenDict
    assert "FrozenDict" in getattr(dsh_tools, "__all__")


def test_a_verified_value_is_marked_and_refreezes_in_constant_time() -> None:
    value = freeze_json({"a": {"b": [1]}}).unwrap()
    assert type(value) is FrozenDict
    assert freeze_json(value).unwrap() is value
    handmade = FrozenDict({"a": 1})
    assert getattr(handmade, "_extent", None) is None  # nobody verified it yet
    assert freeze_json(handmade).unwrap() is handmade
    assert getattr(handmade, "_extent", None) is not None
