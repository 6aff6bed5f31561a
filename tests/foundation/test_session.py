"""SessionLog: append-only, JSON-only, frozen, in order."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools.context import Agent, Context, SessionLog
from dsh_tools.json_values import FrozenDict, thaw_json


class EventType(str):
    pass


def test_events_are_listed_in_append_order() -> None:
    log = SessionLog()
    log.append("tool/code-dispatch", {"n": 1})
    log.append("note", "text")
    log.append("note", None)
    assert [t for t, _ in log.events()] == ["tool/code-dispatch", "note", "note"]
    assert [thaw_json(d) for _, d in log.events()] == [{"n": 1}, "text", None]
    assert len(log) == 3


def test_appended_data_is_frozen_and_detached() -> None:
    log = SessionLog()
    data: dict[str, Any] = {"args": [1, {"k": "v"}]}
    log.append("e", data)
    data["args"][1]["k"] = "changed"
    data["extra"] = True
    (_, stored), = log.events()
    assert type(stored) is FrozenDict
    assert thaw_json(stored) == {"args": [1, {"k": "v"}]}


def test_appended_data_keeps_its_key_order() -> None:
    log = SessionLog()
    log.append("e", {"zeta": 1, "alpha": {"path": "p", "offset": 0}})
    (_, stored), = log.events()
    assert isinstance(stored, FrozenDict)
    assert list(stored) == ["zeta", "alpha"]
    thawed = thaw_json(stored)
    assert isinstance(thawed, dict) and list(thawed["alpha"]) == ["path", "offset"]


def test_events_returns_a_new_list_each_time() -> None:
    log = SessionLog()
    log.append("e", 1)
    listed = log.events()
    listed.clear()
    assert len(log.events()) == 1


@pytest.mark.parametrize("data", [b"x", {"k": float("nan")}, {1: 2}, {"s": {1}}, object()], ids=repr)
def test_non_json_data_is_a_type_error_and_nothing_is_appended(data: object) -> None:
    log = SessionLog()
    with pytest.raises(TypeError, match="not JSON"):
        log.append("e", data)
    assert log.events() == []


@pytest.mark.parametrize("event_type", ["", None, 3, EventType("e")], ids=repr)
def test_event_type_must_be_a_non_empty_exact_str(event_type: object) -> None:
    log = SessionLog()
    with pytest.raises(TypeError):
        log.append(event_type, {})  # type: ignore[arg-type]
    assert log.events() == []


def test_each_agent_has_its_own_session() -> None:
    root = Context()
    a, b = Agent(root, name="a"), Agent(root, name="b")
    a.session.append("e", 1)
    assert len(a.session) == 1 and len(b.session) == 0
