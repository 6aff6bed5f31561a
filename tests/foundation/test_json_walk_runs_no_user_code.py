"""No user code runs while a value is frozen, and a freeze never raises.

The walks check exact types so that nothing a caller wrote runs halfway
through: these are the places where Python would run it anyway (a colliding
key's ``__eq__`` while a ``dict`` is copied, a metaclass's ``__name__`` while a
message is worded, a key's ``__hash__`` while a ``PMap`` is read by key).
"""

from __future__ import annotations

from returns.result import Failure

import dsh_tools.json_walk as json_walk
from dsh_tools.json_values import freeze_json


def test_a_colliding_key_runs_no_user_code_and_cannot_rewrite_the_value_before_the_exact_walk() -> None:
    """The fast walk snapshots a ``dict`` with ``dict.update``; when the source table has a deleted slot
    that re-inserts key by key, and a key whose hash collides with a ``str`` key has its ``__eq__``
    called. That ``__eq__`` can delete itself from the source, so the exact walk (which the fast walk
    then hands over to) sees a different, valid value and the freeze succeeds."""
    calls: list[object] = []
    source: dict[object, object] = {"a": 1, "b": 2}

    class Key:
        armed = False

        def __hash__(self) -> int:
            return hash("a")

        def __eq__(self, other: object) -> bool:
            if Key.armed:
                Key.armed = False
                calls.append(other)
                del source[self]
            return False

    del source["b"]  # a deleted slot: the snapshot no longer clones the table, it inserts key by key
    source[Key()] = 3
    assert isinstance(json_walk._walk_exactly(source), Failure)  # what the value is, as given
    Key.armed = True
    outcome = freeze_json(source)
    assert calls == []  # no user code runs during either walk
    assert isinstance(outcome, Failure)
    assert "object key of type Key" in outcome.failure()


class _Renaming(type):
    """A metaclass whose ``__name__`` is a property: reading a class's name runs its code."""

    action: list[object] = []

    @property
    def __name__(cls) -> str:  # type: ignore[override]
        if _Renaming.action:
            _Renaming.action.pop()()  # type: ignore[operator]
        return "Sneaky"


def test_a_foreign_leaf_whose_class_name_runs_code_cannot_empty_its_list_before_the_exact_walk() -> None:
    """The fast walk asked ``_scalar_problem`` about a foreign leaf, whose message reads ``type(x).__name__``:
    a metaclass property runs there, empties the list, and the exact walk then accepts what it reads."""

    class Sneaky(metaclass=_Renaming):
        pass

    inner: list[object] = [Sneaky()]
    value = {"a": inner}
    _Renaming.action[:] = [inner.clear]
    outcome = freeze_json(value)
    _Renaming.action.clear()
    assert inner != []  # no user code ran
    assert isinstance(outcome, Failure) and outcome.failure().endswith("is not a JSON type")


def test_a_class_name_that_raises_does_not_make_freeze_raise() -> None:
    """``freeze`` (and ``frozen_or_not``, ``nests_within_limits`` on top of it) never raise: a foreign leaf or key
    whose metaclass ``__name__`` raises is still just "not JSON"."""

    class Raising(type):
        @property
        def __name__(cls) -> str:  # type: ignore[override]
            raise RuntimeError("boom")

    class Leaf(metaclass=Raising):
        pass

    class Key(metaclass=Raising):
        pass

    for value in ([Leaf()], {Key(): 1}, Leaf()):
        assert isinstance(json_walk.freeze(value), Failure)
        assert type(json_walk.frozen_or_not(value)) is json_walk.NotJson
        assert json_walk.nests_within_limits(value) is False


def test_a_pmap_with_a_key_whose_hash_raises_is_not_json_and_freeze_does_not_raise() -> None:
    """The exact walk read a ``PMap``'s values by key (``source[key]``), which hashes each key and compares
    it with its bucket's others: a foreign key's ``__hash__``/``__eq__`` ran, and a raising one escaped ``freeze``."""
    from pyrsistent import pmap

    class Key:
        armed = False

        def __hash__(self) -> int:
            if Key.armed:
                raise RuntimeError("boom")
            return hash("a")

        def __eq__(self, other: object) -> bool:
            if Key.armed:
                raise RuntimeError("boom")
            return self is other

    value = pmap({Key(): 1, "a": 2})
    Key.armed = True
    try:
        for root in (value, [value]):
            outcome = json_walk.freeze(root)
            assert isinstance(outcome, Failure) and "object key of type Key" in outcome.failure()
            assert json_walk.nests_within_limits(root) is False
    finally:
        Key.armed = False
