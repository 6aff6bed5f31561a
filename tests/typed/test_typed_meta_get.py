"""``meta_get(key)`` on results and journal records: one typed read of ``meta``, never a raise.

``meta`` is any JSON value, so the accessor answers only for a JSON object
holding the key, and ``None`` for a list, a string, a number, nothing, or
anything that is not exactly a JSON object, whose methods it never calls.
"""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import ToolExecutionInput, ToolExecutionResult, ToolOutput, boot, text_block, tool
from dsh_tools.context.context import Agent
from dsh_tools.execution import meta_member
from dsh_tools.json_values import FrozenDict, JsonValue
from dsh_tools.store.records import CallRecord


def result(meta: JsonValue | None) -> ToolExecutionResult:
    return ToolExecutionResult("c1", [], False, meta=meta)


def record(meta: JsonValue | None) -> CallRecord:
    return CallRecord("r1", "c1", None, "t", {}, "ok", 0.0, meta=meta)


META: JsonValue = {"approvalId": "a1", "none": None, "nested": {"list": [1, 2]}}


@pytest.mark.parametrize("build", [result, record], ids=["result", "record"])
def test_a_key_of_an_object_meta_reads_its_frozen_value(build: Any) -> None:
    held = build(META)
    assert held.meta_get("approvalId") == "a1"
    nested = held.meta_get("nested")
    assert type(nested) is FrozenDict and nested["list"] == (1, 2)
    assert held.meta_get("none") is None  # null reads as absent
    assert held.meta_get("missing") is None
    assert held.meta_get("") is None


@pytest.mark.parametrize("meta", [None, [], ["approvalId"], ("approvalId", "a1"), "approvalId", "xapprovalIdx", 0, 1.5, True, {}])
@pytest.mark.parametrize("build", [result, record], ids=["result", "record"])
def test_meta_that_is_not_an_object_holding_the_key_reads_none(build: Any, meta: JsonValue | None) -> None:
    assert build(meta).meta_get("approvalId") is None


class Hostile(dict[str, Any]):
    """A dict subclass every read of which raises: never a JSON object to the accessor."""

    def get(self, *args: object) -> Any:
        raise RuntimeError("read")

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("read")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compare")

    __hash__ = None


class Impostor:
    """Claims to be a dict; its methods raise."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return dict

    def get(self, *args: object) -> Any:
        raise RuntimeError("read")


@pytest.mark.parametrize("meta", [Hostile(approvalId="a1"), Impostor(), object()])
@pytest.mark.parametrize("build", [result, record], ids=["result", "record"])
def test_a_hostile_meta_is_refused_by_the_record_and_ignored_by_the_accessor(build: Any, meta: object) -> None:
    with pytest.raises(TypeError, match="must be JSON"):
        build(meta)
    held = build({"approvalId": "a1"})
    object.__setattr__(held, "meta", meta)  # past the record's freeze: the accessor alone
    assert held.meta_get("approvalId") is None


@pytest.mark.parametrize("key", [1, None, ["approvalId"], ("approvalId",)])
def test_a_key_that_is_not_a_string_reads_none_even_when_unhashable(key: Any) -> None:
    assert result(META).meta_get(key) is None
    assert record(META).meta_get(key) is None
    assert meta_member({1: "one"}, 1) is None  # a JSON object's keys are strings


@tool(needs_approval=True)
async def drop_table(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


@tool
async def annotated(name: str) -> ToolOutput:
    """Content with meta."""
    return ToolOutput([text_block(name)], meta={"rows": 3, "tags": ["a"]})


async def test_a_parked_call_s_approval_id_reads_alike_on_the_result_and_in_the_journal() -> None:
    ctx = boot(approval="defer")
    ctx.tools.register(drop_table)
    parked = await ctx.tools.execute(ToolExecutionInput("c1", "drop_table", {"name": "users"}, Agent(ctx, name="ops")))
    assert parked.outcome == "approval-pending"
    approval_id = parked.meta_get("approvalId")
    assert type(approval_id) is str and approval_id
    (journaled,) = await ctx.tools.store.journal(call_id="c1")
    assert journaled.meta_get("approvalId") == approval_id == journaled.approval_id


async def test_a_body_s_meta_reads_through_the_accessor() -> None:
    ctx = boot()
    ctx.tools.register(annotated)
    done = await ctx.tools.execute(ToolExecutionInput("c2", "annotated", {"name": "x"}))
    assert done.meta_get("rows") == 3 and done.meta_get("tags") == ("a",)
    assert done.meta_get("approvalId") is None
