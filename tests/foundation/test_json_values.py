"""The JSON boundary: freeze_json / is_json are total; frozen values are immutable and detached."""

from __future__ import annotations

from typing import Any

import pytest
from pyrsistent import pmap, pvector
from returns.result import Failure, Success

from dsh_tools.json_values import (
    MAX_DEPTH,
    MAX_VALUES,
    FrozenDict,
    dumps,
    freeze_json,
    is_json,
    thaw_json,
)

from hostile_values import (
    HOSTILE,
    Impersonator,
    MyStr,
    RaisingEverything,
    StatefulDict,
    WithDict,
    mutual_cycle,
    nested_dicts,
    nested_lists,
    self_referencing_dict,
    self_referencing_list,
)
from value_shapes import shared_tree, wrapped


def failure_of(value: object) -> str:
    result = freeze_json(value)
    assert isinstance(result, Failure), f"expected not JSON: {value!r}"
    message = result.failure()
    assert isinstance(message, str)
    return message


def frozen(value: object) -> Any:
    result = freeze_json(value)
    assert isinstance(result, Success), result
    return result.unwrap()


def is_frozen_dict(value: object) -> bool:
    return type(value) is FrozenDict


def is_tuple(value: object) -> bool:
    return type(value) is tuple


@pytest.mark.parametrize("index", range(len(HOSTILE)), ids=[f"{i}-{type(v).__name__}" for i, v in enumerate(HOSTILE)])
def test_hostile_values_are_not_json_and_never_raise(index: int) -> None:
    value = HOSTILE[index]  # looked up here: pytest itself would trip over the hostile ones
    assert is_json(value) is False
    assert isinstance(freeze_json(value), Failure)


@pytest.mark.parametrize("levels", [100_000])
@pytest.mark.parametrize("build", [nested_lists, nested_dicts], ids=["lists", "dicts"])
def test_very_deep_nesting_is_refused_after_max_depth_containers(
    build: Any, levels: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dsh_tools.json_walk as json_walk

    opened: list[object] = []
    original = json_walk._open

    def counting_open(source: Any) -> Any:
        opened.append(source)
        return original(source)

    monkeypatch.setattr(json_walk, "_open", counting_open)
    message = failure_of(build(levels))
    assert "nesting deeper than" in message
    assert len(opened) == MAX_DEPTH  # the walk stops at the limit, not after 100,000 levels


def test_depth_limit_is_exact_and_encodable() -> None:
    deepest = nested_lists(MAX_DEPTH)
    assert is_json(deepest)
    # anything accepted can be encoded, even wrapped in a few envelopes, and thawed
    assert dumps({"event": {"data": [frozen(deepest)]}}).startswith(b'{"event":{"data":[[[')
    assert thaw_json(frozen(deepest)) == deepest
    assert not is_json(nested_lists(MAX_DEPTH + 1))


def test_valid_values_are_json() -> None:
    values: list[object] = [None, True, False, 0, -1, 2**63, -(2**63), 2**64 - 1, 1.5, -0.0, "", "ü\x00", [], (), {}]
    for value in values:
        assert is_json(value), value
    assert is_json({"a": [1, 2.5, "x", None, True, {"b": ()}], "": {}})


def test_integers_are_json_exactly_when_dumps_can_encode_them() -> None:
    for n in (2**64 - 1, -(2**63), 2**64, -(2**63) - 1, 10**30):
        encodable = True
        try:
            dumps(n)
        except TypeError:
            encodable = False
        assert is_json(n) is encodable, n


def test_shared_non_cyclic_references_are_fine() -> None:
    shared = {"x": [1]}
    value = {"a": shared, "b": shared, "c": [shared, shared]}
    assert thaw_json(frozen(value)) == value


def test_lists_become_tuples_and_dicts_frozen_dicts() -> None:
    out = frozen({"t": (1, (2, 3)), "l": [{"k": "v"}]})
    assert is_frozen_dict(out)
    t = out["t"]
    assert is_tuple(t) and t == (1, (2, 3))
    assert is_tuple(out["l"]) and is_frozen_dict(out["l"][0])
    assert frozen([1, 2]) == (1, 2) and frozen([1, 2]) != [1, 2]  # a tuple is not a list


def test_pyrsistent_input_is_accepted_and_converted() -> None:
    out = frozen(pmap({"b": pvector([1, pmap({"y": 1, "x": 2})]), "a": 1}))
    assert is_frozen_dict(out) and is_tuple(out["b"]) and is_frozen_dict(out["b"][1])
    # a PMap has no order of its own (string-hash order): code-point order is the stable one
    assert list(out) == ["a", "b"] and list(out["b"][1]) == ["x", "y"]


def test_objects_keep_their_key_order_through_freeze_thaw_and_dumps() -> None:
    source = {"zeta": 1, "alpha": {"path": "p", "offset": 2, "limit": 3}, "Beta": [{"z": 0, "a": 1}]}
    out = frozen(source)
    assert list(out) == ["zeta", "alpha", "Beta"]
    assert list(out["alpha"]) == ["path", "offset", "limit"]
    assert list(thaw_json(out)) == ["zeta", "alpha", "Beta"]  # type: ignore[call-overload]
    assert list(thaw_json(out)["alpha"]) == ["path", "offset", "limit"]  # type: ignore[index]
    expected = b'{"zeta":1,"alpha":{"path":"p","offset":2,"limit":3},"Beta":[{"z":0,"a":1}]}'
    assert dumps(out) == dumps(source) == expected
    assert dumps(FrozenDict(out)) == expected  # an unverified FrozenDict: the checked path, same bytes


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ("\ud800", "(root)", "string with a lone surrogate"),
        ("ok \udfff", "(root)", "string with a lone surrogate"),
        ({"a": ["x", "\ud83d"]}, "a[1]", "string with a lone surrogate"),
        ({"a": {"\udc00": 1}}, "a", "object key with a lone surrogate"),
        ({"\udc00": 1}, "(root)", "object key with a lone surrogate"),
        ([FrozenDict({"k": ("\ud800",)})], "[0].k[0]", "string with a lone surrogate"),
    ],
)
def test_lone_surrogates_are_not_json(value: object, path: str, reason: str) -> None:
    assert failure_of(value) == f"{path}: {reason}"
    assert not is_json(value)


def test_non_ascii_text_without_surrogates_is_json() -> None:
    value = {"名前": "é😀\u2028", "emoji": ["😀", "ü"]}
    assert thaw_json(frozen(value)) == value


def test_scalars_freeze_to_themselves() -> None:
    s = "a string"
    assert frozen(s) is s
    assert frozen(None) is None
    big = 2**40
    assert frozen(big) is big
    assert frozen(1.25) == 1.25


def test_frozen_value_is_immutable() -> None:
    out = frozen({"a": [1, {"b": 2}]})
    assert is_frozen_dict(out)
    with pytest.raises(TypeError):
        out["a"] = 3
    inner = out["a"]
    assert is_tuple(inner)
    with pytest.raises(TypeError):
        inner[0] = 9
    with pytest.raises(TypeError):
        inner[1]["b"] = 3
    assert thaw_json(out) == {"a": [1, {"b": 2}]}


def test_frozen_value_is_detached_from_its_input() -> None:
    source: dict[str, Any] = {"a": [1, {"b": 2}], "c": "x"}
    out = frozen(source)
    source["a"][1]["b"] = 99
    source["a"].append("more")
    source["new"] = 1
    assert thaw_json(out) == {"a": [1, {"b": 2}], "c": "x"}


def test_already_frozen_values_keep_their_identity() -> None:
    out = frozen({"a": [1, {"b": (2, 3)}], "c": "x"})
    again = frozen(out)
    assert again is out
    assert is_frozen_dict(out)
    assert frozen(out["a"]) is out["a"]
    flat = (1, "two", None)
    assert frozen(flat) is flat
    built = FrozenDict({"a": (1, FrozenDict({"b": "c"}))})  # built by hand, never verified
    assert frozen(built) is built


def test_frozen_containers_holding_mutable_data_are_refrozen() -> None:
    # a FrozenDict or tuple built by anyone may hold plain (mutable) containers inside
    inner = [1, 2]
    for mixed in (FrozenDict({"list": inner}), pmap({"list": inner})):
        out = frozen(mixed)
        assert out is not mixed
        assert is_frozen_dict(out) and is_tuple(out["list"])
    held = frozen(({"a": 1},))
    assert is_tuple(held) and is_frozen_dict(held[0])
    inner.append(3)
    assert thaw_json(out) == {"list": [1, 2]}


def test_frozen_containers_holding_hostile_data_are_not_json() -> None:
    assert not is_json(pmap({"k": float("nan")}))
    assert not is_json(pvector([RaisingEverything()]))
    assert not is_json(pmap({1: "x"}))
    assert not is_json(FrozenDict({"k": float("nan")}))
    assert not is_json((RaisingEverything(),))
    assert not is_json(FrozenDict({1: "x"}))
    assert not is_json(FrozenDict({"k": "\ud800"}))


def test_thaw_returns_plain_new_containers() -> None:
    out = frozen({"a": [1, {"b": (2,)}]})
    plain = thaw_json(out)
    assert plain == {"a": [1, {"b": [2]}]}
    assert type(plain) is dict
    assert isinstance(plain, dict)
    assert type(plain["a"]) is list and type(plain["a"][1]) is dict
    plain["a"].append(5)  # mutating the thawed copy leaves the frozen value alone
    assert thaw_json(out) == {"a": [1, {"b": [2]}]}


@pytest.mark.parametrize(
    ("value", "path"),
    [
        (float("nan"), "(root)"),
        (b"x", "(root)"),
        ({"a": {"b": [0, float("inf")]}}, "a.b[1]"),
        ({"my key": {1.5: 1}}, '["my key"]'),
        ({"my key": [None, b""]}, '["my key"][1]'),
        ([[0, [set()]]], "[0][1][0]"),
        ({"a": {"b c": {"d": object()}}}, 'a["b c"].d'),
        ({"ok": 1, "x": [1, {"y": MyStr("s")}]}, "x[1].y"),
    ],
)
def test_failures_are_path_qualified(value: object, path: str) -> None:
    message = failure_of(value)
    assert message.startswith(f"{path}: "), message


def test_failure_messages_say_what_is_wrong() -> None:
    assert "non-finite" in failure_of([float("nan")])
    assert "bytes" in failure_of({"b": b""})
    assert "StatefulDict" in failure_of([StatefulDict()])
    assert "cycle" in failure_of(self_referencing_dict())
    assert "cycle" in failure_of(self_referencing_list())
    assert "cycle" in failure_of(mutual_cycle())
    assert "key" in failure_of({"a": {3: 1}}) and "int" in failure_of({"a": {3: 1}})


def test_cycle_path_points_at_the_back_reference() -> None:
    assert failure_of(self_referencing_dict()).startswith("self: ")
    assert failure_of(mutual_cycle()).startswith("root.b[0]: ")


def test_no_user_code_runs_during_the_walk() -> None:
    calls: list[str] = []

    class Spy(dict[str, Any]):
        def keys(self) -> Any:
            calls.append("keys")
            return super().keys()

        def __iter__(self) -> Any:
            calls.append("iter")
            return super().__iter__()

        def __eq__(self, other: object) -> bool:
            calls.append("eq")
            return True

        __hash__ = None

    assert not is_json({"x": [Spy(a=1)]})
    assert not is_json(Impersonator())
    assert calls == []


def test_dumps_encodes_plain_and_frozen_values() -> None:
    value = {"a": [1, 2.5, None, True, "s", {"b": ()}]}
    expected = b'{"a":[1,2.5,null,true,"s",{"b":[]}]}'
    assert dumps(value) == expected
    assert dumps(frozen(value)) == expected


@pytest.mark.parametrize("value", [b"x", {1, 2}, StatefulDict(a=1), MyStr("s"), object(), {"k": [WithDict()]}])
def test_dumps_refuses_non_json_with_type_error(value: object) -> None:
    with pytest.raises(TypeError):
        dumps(value)




def test_shared_containers_stay_shared_when_frozen() -> None:
    leaf = {"type": "string"}
    frozen = freeze_json({"a": leaf, "b": [leaf, leaf]}).unwrap()
    assert type(frozen) is FrozenDict
    pair = frozen["b"]
    assert type(pair) is tuple
    assert frozen["a"] is pair[0] is pair[1]


def test_a_tree_that_sharing_makes_huge_is_not_json() -> None:
    # 2**60 leaves once expanded: encoding it would never finish; refusing it takes 60 steps
    outcome = freeze_json(shared_tree(60))
    assert isinstance(outcome, Failure)
    assert outcome.failure().endswith(f"more than {MAX_VALUES:,} values")
    fine = freeze_json(shared_tree(12)).unwrap()
    assert thaw_json(fine) == shared_tree(12)


def test_the_value_count_limit_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    import dsh_tools.json_walk as json_walk

    monkeypatch.setattr(json_walk, "MAX_VALUES", 5)
    assert isinstance(freeze_json([1, 2, [3]]), Success)  # 5 values: root, 1, 2, [3], 3
    refused = freeze_json([1, 2, [3, 4]])
    assert isinstance(refused, Failure) and refused.failure() == "(root): more than 5 values"


@pytest.mark.parametrize("deep_first", [False, True])
def test_a_shared_container_met_again_deeper_still_counts_against_max_depth(deep_first: bool) -> None:
    leaf: dict[str, Any] = {"a": [[1]]}  # three levels of containers
    for extra, accepted in ((MAX_DEPTH - 4, True), (MAX_DEPTH - 3, False)):
        deep = wrapped(extra, leaf)
        value = [deep, leaf] if deep_first else [leaf, deep]
        outcome = freeze_json(value)
        assert isinstance(outcome, Success) is accepted, (extra, deep_first)
        if accepted:
            assert thaw_json(outcome.unwrap()) == value and dumps(outcome.unwrap())
        else:
            assert isinstance(outcome, Failure) and outcome.failure().endswith(f"nesting deeper than {MAX_DEPTH}")


def test_shared_containers_cannot_stack_past_max_depth() -> None:
    tower: list[Any] = [[]]
    for _ in range(20):
        tower.append(wrapped(100, tower[-1]))  # each level reuses the one below: 2,000 deep in all
    outcome = freeze_json(tower)
    assert isinstance(outcome, Failure) and "nesting deeper than" in outcome.failure()


def test_thawing_a_flat_verified_object_is_a_new_plain_dict_in_its_order() -> None:
    from dsh_tools.json_values import freeze_json, thaw_json

    frozen: object = freeze_json({"b": 1, "a": "x", "c": None, "d": True}).unwrap()
    thawed = thaw_json(frozen)
    assert type(thawed) is dict and thawed == {"b": 1, "a": "x", "c": None, "d": True}
    assert list(thawed) == ["b", "a", "c", "d"] and thawed is not frozen
    nested: Any = thaw_json(freeze_json({"a": {"b": [1]}}).unwrap())  # deeper: its members are thawed too
    assert nested == {"a": {"b": [1]}} and type(nested["a"]) is dict and type(nested["a"]["b"]) is list


def test_count_over_counts_a_scalar_as_one_value() -> None:
    from dsh_tools.off_loop import count_over

    assert count_over("text", 0) and not count_over("text", 1) and not count_over(None, 5)
    assert count_over([1, 2, 3], 3) and not count_over([1, 2, 3], 4)
