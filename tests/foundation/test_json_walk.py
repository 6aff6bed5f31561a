"""The two walks behind ``freeze_json``: the fast tree walk and the exact walk agree.

The fast walk only decides how soon an answer comes, so for every value the
answer (the frozen form, or the exact walk's message) is the one the exact walk
gives alone; and a plain tree is answered without the exact walk at all.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from pyrsistent import pmap, pvector
from returns.result import Failure, Success

import dsh_tools.json_walk as json_walk
from dsh_tools.json_walk import MAX_DEPTH, NotJson, extent_of, frozen_or_not, nests_within_limits
from dsh_tools.json_values import FrozenDict, freeze_json
from hostile_values import HOSTILE
from value_shapes import deep_frozen, shared_tree, wrapped

PLAIN: list[Any] = [
    {},
    [],
    (),
    {"b": 1, "a": [True, None, 1.5, "x", -(2**63), 2**64 - 1]},
    [{"path": f"src/m{i}.py", "line": i, "text": "é" * 3} for i in range(50)],
    wrapped(json_walk.MAX_DEPTH - 1, {"deepest": "leaf"}),
    deep_frozen({"already": [{"frozen": 1}], "mixed": (1, 2)}),
    FrozenDict({"renew": [1, {"x": [2]}]}),
    (FrozenDict(a=1), [2]),
]


def _exact_only(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record every value handed to the exact walk."""
    handed: list[object] = []
    exact = json_walk._walk_exactly

    def recording(root: object) -> Any:
        handed.append(root)
        return exact(root)

    monkeypatch.setattr(json_walk, "_walk_exactly", recording)
    return handed


@pytest.mark.parametrize("index", range(len(PLAIN)))
def test_a_plain_tree_is_frozen_by_the_fast_walk_alone(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    value = PLAIN[index]
    expected = json_walk._walk_exactly(value)
    handed = _exact_only(monkeypatch)
    outcome = json_walk.freeze(value)
    assert handed == []
    assert isinstance(outcome, Success) and isinstance(expected, Success)
    assert outcome.unwrap() == expected.unwrap()
    assert _shape(outcome.unwrap()) == _shape(expected.unwrap())


def _shape(value: object) -> object:
    """The frozen form with its container types spelled out (``==`` ignores dict vs FrozenDict)."""
    if type(value) is FrozenDict:
        return ("object", [(key, _shape(item)) for key, item in value.items()])
    if type(value) is tuple:
        return ("array", [_shape(item) for item in value])
    return (type(value).__name__, value)


def test_an_unchanged_frozen_value_comes_back_as_itself_and_only_renewed_parts_are_new() -> None:
    inner = deep_frozen({"x": [1]})
    outer = FrozenDict({"kept": inner, "renewed": [1]})
    frozen: Any = json_walk.freeze(outer).unwrap()
    assert type(frozen) is FrozenDict and frozen is not outer
    assert frozen["kept"] is inner and frozen["renewed"] == (1,)
    assert list(frozen) == ["kept", "renewed"]  # the renewed key keeps its place
    assert json_walk.freeze(inner).unwrap() is inner


def test_the_input_is_never_touched() -> None:
    source = {"a": [1, {"b": 2}]}
    frozen: Any = json_walk.freeze(source).unwrap()
    assert source == {"a": [1, {"b": 2}]} and type(source["a"]) is list
    assert frozen == {"a": (1, {"b": 2})}


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(shared_tree(3), id="shared"),
        pytest.param({"m": pmap({"b": 1, "a": 2})}, id="pmap"),
        pytest.param([pvector([1])], id="pvector"),
        pytest.param([0] * 70_000, id="over-budget"),
        pytest.param({"s": "\ud800"}, id="surrogate"),
    ],
)
def test_what_the_fast_walk_does_not_take_goes_to_the_exact_walk(value: object, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = json_walk._walk_exactly(value)
    handed = _exact_only(monkeypatch)
    outcome = json_walk.freeze(value)
    assert handed == [value]
    assert type(outcome) is type(expected)
    if isinstance(outcome, Success):
        assert _shape(outcome.unwrap()) == _shape(expected.unwrap())
    else:
        assert outcome.failure() == expected.failure()


def test_a_shared_container_stays_shared_through_the_hand_over() -> None:
    leaf = [1]
    frozen: Any = json_walk.freeze({"a": leaf, "b": leaf}).unwrap()
    assert frozen["a"] is frozen["b"]


@pytest.mark.parametrize("index", range(len(HOSTILE)), ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(HOSTILE)])
def test_every_hostile_value_gets_the_exact_walks_message(index: int) -> None:
    value = HOSTILE[index]
    outcome, expected = json_walk.freeze(value), json_walk._walk_exactly(value)
    assert isinstance(outcome, Failure) and isinstance(expected, Failure)
    assert outcome.failure() == expected.failure() == freeze_json(value).failure()


def test_empty_containers_freeze_to_one_shared_value() -> None:
    assert json_walk.freeze({}).unwrap() is json_walk.freeze({}).unwrap() == FrozenDict()
    assert type(json_walk.freeze({}).unwrap()) is FrozenDict
    assert json_walk.freeze([]).unwrap() == () and type(json_walk.freeze([]).unwrap()) is tuple


def test_frozen_text_content_is_what_freezing_the_plain_block_makes() -> None:
    from dsh_tools.json_values import freeze_json
    from dsh_tools.json_walk import extent_of, frozen_text_content

    for text in ("", "hi", "ünïcödé ✓", "x" * 10_000, "line\nbreak"):
        made = frozen_text_content(text)
        plain = freeze_json(({"type": "text", "text": text},)).unwrap()
        assert made == plain and type(made) is type(plain)
        assert made is not None and type(plain) is tuple
        assert extent_of(made[0]) == extent_of(plain[0])  # marked verified alike: later freezes take it in O(1)
        assert list(made[0].items()) == list(plain[0].items())  # type: ignore[union-attr]
    assert frozen_text_content("bad \ud800") is None  # not Unicode: freezing would say why


def _nested(levels: int) -> object:
    value: object = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"in": value}
    return value


@pytest.mark.parametrize("levels", [1, 2, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH])
def test_nests_within_limits_answers_what_freezing_it_nested_answers(levels: int) -> None:
    frozen = frozen_or_not(_nested(levels))
    assert extent_of(frozen) is not None  # a verified object: the O(1) path
    nested_ok = type(frozen_or_not({"arguments": frozen})) is not NotJson
    assert nests_within_limits(frozen) is nested_ok
    assert nested_ok is (levels < MAX_DEPTH)  # the boundary itself is exercised
    as_array = (frozen,)  # not a verified object: the plain path
    assert nests_within_limits(as_array) is (type(frozen_or_not({"a": as_array})) is not NotJson)
    assert nests_within_limits("text") and nests_within_limits(None)


@functools.cache
def _flat_cases() -> list[dict[Any, Any]]:
    """Flat objects of every member kind the fast path takes, and of every kind it must leave to the walks (made once)."""
    import random

    rng = random.Random(33)
    nested = freeze_json({"inner": [1, {"x": "y"}]}).unwrap()
    deepest = freeze_json({"d": wrapped(MAX_DEPTH - 2, "leaf")}).unwrap()  # verified, one level short of the limit
    too_deep = freeze_json({"d": wrapped(MAX_DEPTH - 1, "leaf")}).unwrap()  # verified, at the limit: no room above it
    unverified = deep_frozen({"inner": [1]})  # nobody checked it: the fast path leaves it to the walks
    assert extent_of(deepest) is not None and extent_of(too_deep) is not None and extent_of(unverified) is None

    class Text(str):
        pass

    scalars: list[object] = [
        "", "plain", "é" * 3, "\ud800", "a\udfffb", 0, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1, 1.5, -0.0,
        float("nan"), float("inf"), True, False, None, nested, deepest, too_deep, unverified, [1], {"k": 1}, (1,),
        Text("sub"), b"x",
    ]
    keys: list[object] = ["a", "é", "\ud800", 1, Text("k")]
    cases: list[dict[Any, Any]] = [{}, {"city": "Paris", "days": 3}, {"deepest": deepest}, {"x": too_deep}]
    for _ in range(400):
        size = rng.randint(1, 6)
        cases.append({rng.choice(keys) if rng.random() < 0.15 else f"k{i}": rng.choice(scalars) for i in range(size)})
    return cases


@pytest.mark.parametrize("index", range(404))
def test_a_flat_object_is_answered_as_the_exact_walk_answers_it(index: int) -> None:
    """Flat objects with every kind of member, hostile ones included (the tree walk checks a float's
    finiteness inline, as it does an int's range): the answer and its mark are the exact walk's."""
    value = _flat_cases()[index]
    outcome, expected = json_walk.freeze(value), json_walk._walk_exactly(value)
    assert type(outcome) is type(expected)
    if isinstance(outcome, Success):
        assert _shape(outcome.unwrap()) == _shape(expected.unwrap())
        assert extent_of(outcome.unwrap()) == extent_of(expected.unwrap())
    else:
        assert outcome.failure() == expected.failure()


def test_flat_arguments_are_frozen_by_the_tree_walk_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    handed = _exact_only(monkeypatch)
    inner = freeze_json({"a": 1}).unwrap()
    frozen = frozen_or_not({"city": "Paris", "days": 3, "ratio": 0.5, "detailed": True, "note": None, "inner": inner})
    assert handed == [] and type(frozen) is FrozenDict
    assert extent_of(frozen) == (1 + 6 + 1) << 8 | 2  # the object, its six members, the inner object's member; two levels
    not_finite = {"n": float("nan")}
    assert type(frozen_or_not(not_finite)) is NotJson and handed == [not_finite]  # the tree walk gave it up at once


def test_a_flat_object_is_read_from_a_snapshot_of_the_callers_dict() -> None:
    source = {"a": "x"}
    frozen: Any = frozen_or_not(source)
    source["a"] = "changed"
    assert frozen == {"a": "x"} and frozen is not source
