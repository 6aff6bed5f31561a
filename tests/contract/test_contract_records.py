"""API.md "Conventions" and "Records": immutable values, camelCase ``to_json()``."""

from __future__ import annotations

import math
from typing import Any

import pytest

from dsh_tools import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    HookContext,
    PluginSource,
    SessionLog,
    TerminalCallView,
    TerminalResultView,
    ToolErrorInfo,
    ToolExecutionResult,
    ToolOutput,
    ToolResult,
    ToolSchema,
    UserSource,
    text_block,
)
from dsh_tools.json_values import FrozenDict, thaw_json


def test_text_block() -> None:
    assert dict(text_block("hi")) == {"type": "text", "text": "hi"}


def test_result_to_json_camel_case_and_optionals_omitted() -> None:
    result = ToolExecutionResult(call_id="c1", content=[text_block("x")], is_error=False)
    assert result.to_json() == {"callId": "c1", "content": [{"type": "text", "text": "x"}], "isError": False}


def test_result_to_json_full() -> None:
    result = ToolExecutionResult(
        call_id="c1",
        content=[text_block("Error: no")],
        is_error=True,
        error=ToolErrorInfo(name="ToolArgsError", code="INVALID_ARGS"),
        additional_context=HookContext(content=[text_block("ctx")], source=UserSource()),
        meta={"k": [1, 2]},
    )
    assert result.to_json() == {
        "callId": "c1",
        "content": [{"type": "text", "text": "Error: no"}],
        "isError": True,
        "error": {"name": "ToolArgsError", "code": "INVALID_ARGS"},
        "additionalContext": {"content": [{"type": "text", "text": "ctx"}], "source": {"kind": "user"}},
        "meta": {"k": [1, 2]},
    }


def test_hook_context_to_json_sources() -> None:
    """"``HookContext.to_json()`` is ``{"content": [...], "source": {"kind": "user"}}`` or ... plugin"."""
    user = HookContext(content=[text_block("a")], source=UserSource())
    assert user.to_json() == {"content": [{"type": "text", "text": "a"}], "source": {"kind": "user"}}
    plugin = HookContext(content=[text_block("a")], source=PluginSource(plugin="lint"))
    assert plugin.to_json() == {
        "content": [{"type": "text", "text": "a"}],
        "source": {"kind": "plugin", "plugin": "lint"},
    }


def test_records_refuse_assignment() -> None:
    """"Mutating any of them is impossible, not merely discouraged."""
    result = ToolExecutionResult(call_id="c", content=[text_block("x")], is_error=False, meta={"a": [1]})
    with pytest.raises(AttributeError):
        result.call_id = "d"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.is_error = True  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Deny(reason="x").reason = "y"  # type: ignore[misc]


def test_json_payloads_are_deep_frozen_and_detached() -> None:
    """"JSON payloads inside them (arguments, content, meta, parameters) are deep-frozen"."""
    meta: dict[str, Any] = {"list": [1, {"x": 2}]}
    content = [{"type": "text", "text": "t"}]
    result = ToolExecutionResult(call_id="c", content=content, is_error=False, meta=meta)
    meta["list"].append(3)
    content.append({"type": "text", "text": "u"})
    assert isinstance(result.meta, FrozenDict)
    assert type(result.meta["list"]) is tuple
    assert thaw_json(result.meta) == {"list": [1, {"x": 2}]}
    assert len(result.content) == 1
    assert isinstance(result.content[0], FrozenDict)
    with pytest.raises((TypeError, AttributeError)):
        meta_any: Any = result.meta
        meta_any["new"] = 1
    with pytest.raises((TypeError, AttributeError)):
        block_any: Any = result.content[0]
        block_any["text"] = "changed"
    schema = ToolSchema(name="t", description="d", parameters={"type": "object", "properties": {}})
    assert isinstance(schema.parameters, FrozenDict)
    assert thaw_json(schema.parameters) == {"type": "object", "properties": {}}


@pytest.mark.parametrize(
    "bad",
    [float("nan"), math.inf, b"bytes", {1, 2}, {1: "non-str key"}, object()],
    ids=["nan", "inf", "bytes", "set", "int-key", "object"],
)
def test_non_json_payload_is_type_error(bad: object) -> None:
    """"non-JSON data → ``TypeError``"; "No NaN/inf, no bytes, no sets ..."."""
    with pytest.raises(TypeError):
        ToolOutput(content=[text_block("x")], meta=bad)  # type: ignore[arg-type]


def test_json_check_is_total_on_hostile_input() -> None:
    """"Checking is total: it never raises on hostile input (... is simply "not JSON")."""

    class Hostile:
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError("boom")

        def __eq__(self, other: object) -> bool:
            raise RuntimeError("boom")

        def __hash__(self) -> int:
            return 1

    class StatefulDict(dict[str, Any]):
        extra = 1

    cycle: list[Any] = []
    cycle.append(cycle)
    for bad in (Hostile(), StatefulDict(a=1), cycle):
        with pytest.raises(TypeError):
            SessionLog().append("event", bad)


def test_tuple_accepted_as_json_array() -> None:
    output = ToolOutput(content=(text_block("x"),), meta={"t": (1, 2)})
    assert output.meta == {"t": (1, 2)}  # a frozen array is a tuple
    assert thaw_json(output.meta) == {"t": [1, 2]}


def test_decisions_to_json() -> None:
    assert Allow().to_json() == {"kind": "allow"}
    assert Deny(reason="no").to_json() == {"kind": "deny", "reason": "no"}
    assert Ask().to_json() == {"kind": "ask"}
    assert Ask(reason="why").to_json() == {"kind": "ask", "reason": "why"}
    assert Accept().to_json() == {"kind": "accept"}
    assert Accept(content=[text_block("c")]).to_json() == {"kind": "accept", "content": [{"type": "text", "text": "c"}]}
    ctx = HookContext(content=[text_block("h")], source=UserSource())
    assert Block(feedback=[text_block("f")], additional_context=ctx).to_json() == {
        "kind": "block",
        "feedback": [{"type": "text", "text": "f"}],
        "additionalContext": {"content": [{"type": "text", "text": "h"}], "source": {"kind": "user"}},
    }


def test_tool_output_and_schema_to_json() -> None:
    assert ToolOutput(content=[text_block("a")]).to_json() == {"content": [{"type": "text", "text": "a"}]}
    assert ToolOutput(content=[], meta={"m": 1}).to_json() == {"content": [], "meta": {"m": 1}}
    assert ToolSchema(name="n", description="d", parameters={"type": "object"}).to_json() == {
        "name": "n",
        "description": "d",
        "parameters": {"type": "object"},
    }
    assert ToolErrorInfo(name="X", code="Y").to_json() == {"name": "X", "code": "Y"}


# -- presentation views ----------------------------------------------------------


def test_call_views_to_json() -> None:
    assert GenericCallView(title="t").to_json() == {"card": "generic", "title": "t"}
    full = GenericCallView(
        title="t",
        kind="read",
        raw_input={"p": 1},
        content=[text_block("c")],
        locations=[FileLocation(path="/a", line=3), FileLocation(path="/b")],
    )
    assert full.to_json() == {
        "card": "generic",
        "title": "t",
        "kind": "read",
        "rawInput": {"p": 1},
        "content": [{"type": "text", "text": "c"}],
        "locations": [{"path": "/a", "line": 3}, {"path": "/b"}],
    }
    assert TerminalCallView(title="ls", description="list", cwd="/w").to_json() == {
        "card": "terminal",
        "title": "ls",
        "description": "list",
        "cwd": "/w",
    }
    assert TerminalCallView(title="ls").to_json() == {"card": "terminal", "title": "ls"}
    diff = FileDiff(path="/f", old_text=None, new_text="new")
    assert DiffCallView(title="w", diffs=[diff]).to_json() == {
        "card": "diff",
        "title": "w",
        "diffs": [{"path": "/f", "oldText": None, "newText": "new"}],
    }


def test_result_views_to_json() -> None:
    assert GenericResultView().to_json() == {"card": "generic"}
    assert GenericResultView(title="T", content=[text_block("c")]).to_json() == {
        "card": "generic",
        "title": "T",
        "content": [{"type": "text", "text": "c"}],
    }
    assert TerminalResultView(output="o", exit_code=0, signal="SIGTERM", title="t").to_json() == {
        "card": "terminal",
        "title": "t",
        "output": "o",
        "exitCode": 0,
        "signal": "SIGTERM",
    }
    assert DiffResultView(diffs=[FileDiff(path="/f", old_text="a", new_text="b")]).to_json() == {
        "card": "diff",
        "diffs": [{"path": "/f", "oldText": "a", "newText": "b"}],
    }
    assert ToolResult(content=[text_block("x")], is_error=False, meta={"m": 1}).to_json() == {
        "content": [{"type": "text", "text": "x"}],
        "isError": False,
        "meta": {"m": 1},
    }


def test_view_positional_field_order() -> None:
    """Fields in the order API.md lists them (``FileDiff(path, old_text, new_text)``...)."""
    assert FileDiff("/p", "o", "n").to_json() == {"path": "/p", "oldText": "o", "newText": "n"}
    assert FileLocation("/p", 2).to_json() == {"path": "/p", "line": 2}
    assert DiffResultView([FileDiff("/p", None, "n")], "T").title == "T"
    assert ToolResult([text_block("a")], True).is_error is True
    assert ToolExecutionResult("c", [text_block("a")], False).call_id == "c"
    assert HookContext([text_block("a")], UserSource()).source == UserSource()
    assert ToolSchema("n", "d", {"type": "object"}).name == "n"
    assert ToolErrorInfo("N", "C").code == "C"


def test_session_log_append_and_events() -> None:
    """"``SessionLog.append(type, data)`` requires JSON data; ``SessionLog.events()`` lists ``(type, data)`` in order."""
    log = SessionLog()
    log.append("a", {"x": 1})
    log.append("b", [1, 2])
    events = log.events()
    assert [(kind, thaw_json(data)) for kind, data in events] == [("a", {"x": 1}), ("b", [1, 2])]
    with pytest.raises(TypeError):
        log.append("c", {"bad": object()})
