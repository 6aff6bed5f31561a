"""The verified mark: what lets a frozen value through again without a second walk, and only that.

Every ``FrozenDict`` a walk returns carries its extent (values and height, as
the exact walk counts them); the fast walk takes one by its extent. The
mark must be true (it equals a recount), set by nobody but the walks, and
never stretch a budget: a verified object placed deeper or in a bigger value
is judged where it now sits, with the message the plain value would get.
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import orjson
import pytest
from returns.result import Failure, Success

import dsh_tools.json_walk as json_walk
from dsh_tools.json_values import FrozenDict, dumps, freeze_json, thaw_json
from dsh_tools.json_walk import MAX_DEPTH, extent_of
from hostile_values import HOSTILE
from value_mutations import mutate
from value_shapes import assert_marks_true, deep_frozen, shared_tree

VALID: dict[str, Any] = {
    "path": "src/ünï.py",
    "hits": [{"line": i, "text": "x" * i, "tags": ["a", None], "m": {"r": 0.5}} for i in range(4)],
    "grid": [[1, 2], [], [[{}]]],
    "empty": {},
}


@pytest.mark.parametrize("seed", range(20))
def test_every_object_a_freeze_returns_is_marked_with_its_true_extent(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        value = mutate(VALID, rng)
        outcome = freeze_json(value)
        if isinstance(outcome, Success):
            assert_marks_true(outcome.unwrap())
            assert freeze_json(outcome.unwrap()).unwrap() is outcome.unwrap()  # taken as it is
            assert freeze_json([outcome.unwrap(), value]).unwrap() == (outcome.unwrap(), outcome.unwrap())


def test_the_exact_walk_marks_too() -> None:
    for value in (shared_tree(4), {"a": [1, {"b": 2}]}, [deep_frozen({"x": [1]})]):
        outcome = json_walk._walk_exactly(value)
        assert isinstance(outcome, Success)
        assert_marks_true(outcome.unwrap())


def test_a_marked_object_is_taken_by_its_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    marked: Any = freeze_json({"a": [1, 2], "b": {"c": "d"}}).unwrap()
    walked: list[object] = []
    original = json_walk._fast_freeze_tree

    def recording(value: Any, *rest: Any) -> Any:
        walked.append(value)
        return original(value, *rest)

    monkeypatch.setattr(json_walk, "_fast_freeze_tree", recording)
    frozen: Any = json_walk.freeze({"x": marked, "y": [marked]}).unwrap()
    assert frozen["x"] is marked and frozen["y"][0] is marked
    assert not any(value is marked or value is marked["b"] for value in walked)


def test_a_large_marked_object_costs_the_fast_walk_one_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its extent counts against ``MAX_VALUES``, not against the fast walk's work: wrapping it is not a re-walk."""
    big: Any = freeze_json({"a": list(range(json_walk._TREE_BUDGET + 10))}).unwrap()

    def no_exact_walk(root: object) -> object:
        raise AssertionError("a marked object beyond the fast walk's budget was handed to the exact walk")

    monkeypatch.setattr(json_walk, "_walk_exactly", no_exact_walk)
    frozen: Any = json_walk.freeze({"x": big, "y": [big, {"z": big}]}).unwrap()
    assert frozen["x"] is big and frozen["y"][0] is big and frozen["y"][1]["z"] is big
    values = 3 + 3 * (2 + json_walk._TREE_BUDGET + 10)  # the root, the array, the inner object, big three times
    assert extent_of(frozen) == values << 8 | 5  # five levels: root, array, inner object, big's two


def test_a_tuple_or_object_nobody_verified_is_no_proof() -> None:
    assert freeze_json((["list"],)).unwrap() == (("list",),)
    assert isinstance(freeze_json(deep_frozen({"a": float("nan")})), Failure)
    assert isinstance(freeze_json((freeze_json({"a": 1}).unwrap(), float("nan"))), Failure)
    handmade = FrozenDict({"a": [1]})
    assert extent_of(handmade) is None
    assert freeze_json(handmade).unwrap() == FrozenDict({"a": (1,)})


@pytest.mark.parametrize("index", range(len(HOSTILE)), ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(HOSTILE)])
def test_hostile_values_beside_marked_ones_get_the_plain_message(index: int) -> None:
    marked = freeze_json({"ok": [1]}).unwrap()
    value = HOSTILE[index]
    beside = freeze_json([marked, value])
    plain = freeze_json([{"ok": [1]}, value])
    assert isinstance(beside, Failure) and isinstance(plain, Failure)
    assert beside.failure() == plain.failure()


def test_a_marked_object_placed_deeper_is_judged_where_it_sits() -> None:
    tower: Any = {"leaf": 1}
    for _ in range(MAX_DEPTH - 1):
        tower = {"k": tower}
    deepest = freeze_json(tower).unwrap()  # MAX_DEPTH levels of its own
    assert extent_of(deepest) is not None
    for around in ([deepest], {"k": deepest}, [[1, deepest]]):
        outcome = freeze_json(around)
        plain = freeze_json(thaw_json(around))
        assert isinstance(outcome, Failure) and "nesting deeper than" in outcome.failure()
        assert isinstance(plain, Failure) and outcome.failure() == plain.failure()


def test_a_marked_object_counts_its_values_against_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    marked = freeze_json({"a": [1, 2, 3]}).unwrap()  # 5 values
    monkeypatch.setattr(json_walk, "MAX_VALUES", 6)
    assert isinstance(freeze_json([marked]), Success)  # 6 values
    refused = freeze_json([marked, 0])
    assert isinstance(refused, Failure) and "more than 6 values" in refused.failure()
    assert refused.failure() == freeze_json([{"a": [1, 2, 3]}, 0]).failure()


def test_only_the_walks_can_set_the_mark_and_copies_come_out_unmarked() -> None:
    marked: Any = freeze_json({"a": {"b": 1}}).unwrap()
    with pytest.raises(AttributeError):
        marked._extent = 1
    for made in (copy.deepcopy(marked), pickle.loads(pickle.dumps(marked)), marked | {"c": 2}):
        assert made == marked | made and extent_of(made) is None
    assert copy.copy(marked) is marked


def test_a_marked_value_is_written_natively_as_the_checked_path_writes_it() -> None:
    value = freeze_json([{"b": 1, "a": [1.5, None, "é"]}, "s", 2, True, None]).unwrap()
    assert dumps(value) == orjson.dumps(thaw_json(value)) == dumps(thaw_json(value))
    assert dumps(deep_frozen({"n": float("nan")})) == b'{"n":null}'  # unverified: the checked path, as before


def test_a_record_carries_frozen_json_fields_as_given_and_nothing_else() -> None:
    from dsh_tools import ToolExecutionResult

    value = freeze_json([{"a": 1}]).unwrap()
    made = ToolExecutionResult._carrying({"value": value, "content": ()}, "c", is_error=False)
    assert made.value is value and made.content == ()
    assert made == ToolExecutionResult("c", (), False, value=[{"a": 1}])
    with pytest.raises(TypeError, match="only JSON fields"):
        ToolExecutionResult._carrying({"call_id": "x"}, content=(), is_error=False)


@pytest.mark.parametrize("seed", range(10))
def test_the_array_fast_path_agrees_with_the_exact_walk(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    members: list[object] = [
        freeze_json({"a": [1, {"b": "c"}]}).unwrap(), FrozenDict({"a": 1}), deep_frozen({"n": float("nan")}),
        "text", "é", "\ud800", True, None, 7, 1.5, (1,), ["x"], {"k": "v"},
    ]
    if seed % 2:
        monkeypatch.setattr(json_walk, "MAX_VALUES", 12)
    for _ in range(200):
        array = tuple(rng.choice(members) for _ in range(rng.randrange(1, 6)))
        outcome, exact = json_walk.freeze(array), json_walk._walk_exactly(array)
        assert type(outcome) is type(exact)
        if isinstance(exact, Success):
            assert outcome.unwrap() == exact.unwrap()
            assert_marks_true(outcome.unwrap())
            if json_walk.verified_members(array):
                assert exact.unwrap() is array and outcome.unwrap() is array
        else:
            assert not json_walk.verified_members(array) and outcome.failure() == exact.failure()
