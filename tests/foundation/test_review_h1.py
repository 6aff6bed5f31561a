"""Review h1: hostile inputs the two freeze walks must answer alike."""

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
