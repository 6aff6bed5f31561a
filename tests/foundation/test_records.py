"""Record base, execution records, decisions and errors: immutability and wire shapes."""

from __future__ import annotations

import copy
import pickle
from typing import TYPE_CHECKING, Any

import pytest

from dsh_tools.content import ContentBlock, ToolOutput, text_block
from dsh_tools.decisions import Accept, Allow, Ask, Block, Deny
from dsh_tools.errors import (
    CodeRunFailedError,
    HarnessError,
    OutputSchemaError,
    ToolArgsError,
    ToolNotFoundError,
    ToolTimeoutError,
)
from dsh_tools.execution import (
    HookContext,
    PluginSource,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolExecutionToken,
    UserSource,
    mint_token,
)
from dsh_tools.context import Agent, Context
from dsh_tools.json_values import FrozenDict, JsonValue, thaw_json
from dsh_tools.record import Record, camel_case
from dsh_tools.signals import AbortController


class Sample(Record):
    _wire_tag = ("kind", "sample")
    _json_fields = frozenset({"payload"})
    first_name: str
    payload: JsonValue
    long_field_name: int | None = None
    count: int = 0


def is_frozen_container(value: object) -> bool:
    return type(value) is FrozenDict or type(value) is tuple


# -- Record base -------------------------------------------------------------


def test_positional_and_keyword_construction_agree() -> None:
    a = Sample("x", {"k": [1]}, 3, 4)
    b = Sample(first_name="x", payload={"k": [1]}, long_field_name=3, count=4)
    c = Sample("x", {"k": [1]}, count=4, long_field_name=3)
    assert a == b == c
    assert hash(a) == hash(b)
    assert Sample("x", 1).long_field_name is None and Sample("x", 1).count == 0


def test_construction_errors() -> None:
    with pytest.raises(TypeError, match="first_name"):
        Sample(payload=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional"):
        Sample("x", 1, 2, 3, 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="nope"):
        Sample("x", 1, nope=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="multiple"):
        Sample("x", 1, first_name="y")  # type: ignore[misc]


def test_a_subclass_with_its_own_new_builds_through_its_generated_constructor() -> None:
    # Sample's generated __new__ is specialised to Sample; a subclass whose own __new__ calls super().__new__
    # (as the checked presentation records do) must be built with its own fields, not Sample's.
    class Extended(Sample):
        extra: str = "e"

        if not TYPE_CHECKING:

            def __new__(cls, *args, **kwargs):
                return super().__new__(cls, *args, **kwargs)

    made = Extended("x", {"k": [1]}, extra="z")
    assert type(made) is Extended and made.extra == "z" and is_frozen_container(made.payload)
    with pytest.raises(TypeError, match="nope"):
        Extended("x", 1, extra="z", nope=2)  # type: ignore[call-arg]
    copied = made.set(extra="w", count=2)  # Extended's own generated set: its fields, Sample's included
    assert type(copied) is Extended and (copied.extra, copied.count, copied.first_name) == ("w", 2, "x")
    assert copied.payload is made.payload
    with pytest.raises(TypeError, match="nope"):
        made.set(nope=2)


class Pair(Record):
    _json_fields = frozenset({"held", "given"})
    held: JsonValue
    given: JsonValue = None


def test_carrying_takes_only_the_carried_fields_as_they_are() -> None:
    frozen = (1, 2)
    made = Pair._carrying({"held": frozen}, given={"k": [1]})
    assert made.held is frozen and is_frozen_container(made.given)  # the other JSON field is still frozen
    assert type(made.given) is FrozenDict and thaw_json(made.given) == {"k": [1]}
    with pytest.raises(TypeError, match="only JSON fields"):
        Sample._carrying({"first_name": "x"}, payload=1)
    with pytest.raises(TypeError, match="positional"):
        Pair(1, 2, 3)  # type: ignore[call-arg]  # the carried names are keyword-only


def test_a_result_gets_its_outcome_however_it_is_made() -> None:
    timeout = ToolErrorInfo("ToolTimeoutError", "TOOL_TIMEOUT")
    made = ToolExecutionResult("c", (), True, timeout)
    assert made.outcome == "timeout"
    assert made.set(is_error=False, error=None).outcome == "ok"
    assert ToolExecutionResult._carrying({"content": ()}, "c", is_error=True, error=timeout).outcome == "timeout"


def test_a_hand_written_set_reaches_its_own_classes_generated_one_through_super() -> None:
    class Counted(Sample):
        extra: int = 0

        if not TYPE_CHECKING:

            def set(self, *args, **kwargs):
                return super().set(*args, **kwargs, extra=self.extra + 1)

    made = Counted("x", [1]).set(count=4)
    assert type(made) is Counted and (made.count, made.extra) == (4, 1)


def test_a_generated_constructor_shows_its_source_in_a_traceback() -> None:
    import traceback

    try:
        Sample(payload=1)  # type: ignore[call-arg]
    except TypeError as error:
        frames = traceback.extract_tb(error.__traceback__)
    assert any("generated __new__ of Sample" in frame.filename and frame.line for frame in frames)


def test_json_fields_are_deep_frozen_and_detached() -> None:
    source: dict[str, Any] = {"a": [1, {"b": 2}]}
    record = Sample("x", source)
    source["a"][1]["b"] = 99
    source["a"].append(3)
    assert is_frozen_container(record.payload)
    assert thaw_json(record.payload) == {"a": [1, {"b": 2}]}


def test_non_json_payload_is_a_type_error_naming_field_and_path() -> None:
    with pytest.raises(TypeError, match=r"Sample\.payload.*a\.b\[1\]"):
        Sample("x", {"a": {"b": [0, float("nan")]}})
    with pytest.raises(TypeError, match="payload"):
        Sample("x", {1, 2})  # type: ignore[arg-type]


def test_assignment_and_deletion_raise_attribute_error() -> None:
    record = Sample("x", [1])
    with pytest.raises(AttributeError):
        record.first_name = "y"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        record.brand_new = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        del record.first_name
    assert record.first_name == "x"


def test_set_and_evolver_keep_working_and_refreeze() -> None:
    record = Sample("x", [1])
    changed = record.set(payload={"new": [2]}, count=5)
    assert record.payload == (1,) and record.count == 0
    assert changed.count == 5 and is_frozen_container(changed.payload)
    assert thaw_json(changed.payload) == {"new": [2]}
    evolver = record.evolver()
    evolver.set("payload", [{"z": 1}])
    evolved = evolver.persistent()
    assert type(evolved) is Sample
    assert is_frozen_container(evolved.payload)
    assert thaw_json(evolved.payload) == [{"z": 1}]
    with pytest.raises(TypeError):
        record.set(payload=b"bytes")


def test_set_copies_kept_fields_as_they_are_and_refuses_unknown_fields() -> None:
    payload = {"k": [1]}
    record = Sample("x", payload, 3)
    changed = record.set("count", 7)
    assert changed.payload is record.payload and changed.long_field_name == 3 and changed.count == 7
    assert type(changed) is Sample and changed != record and changed == Sample("x", payload, 3, 7)
    assert record.set(first_name="y").set(first_name="x") == record
    with pytest.raises(TypeError, match="nope"):
        record.set(nope=1)
    with pytest.raises(AttributeError):
        changed.count = 1  # type: ignore[misc]  # the copy is frozen too


def test_structural_equality_is_per_class() -> None:
    assert Deny("x") == Deny("x")
    assert Deny("x") != Deny("y")
    assert Deny("x") != Ask("x")
    assert Allow() == Allow() and hash(Allow()) == hash(Allow())


def test_copy_and_pickle_round_trip() -> None:
    record = Sample("x", {"a": [1]}, 2)
    assert copy.copy(record) == record
    assert copy.deepcopy(record) == record
    assert pickle.loads(pickle.dumps(record)) == record


def test_to_json_camel_cases_and_omits_absent_optionals() -> None:
    assert Sample("x", {"a": (1,)}).to_json() == {"kind": "sample", "firstName": "x", "payload": {"a": [1]}, "count": 0}
    assert Sample("x", None, 7).to_json() == {
        "kind": "sample",
        "firstName": "x",
        "payload": None,
        "longFieldName": 7,
        "count": 0,
    }
    wire = Sample("x", [{"a": 1}]).to_json()
    assert type(wire["payload"]) is list and type(wire["payload"][0]) is dict


def test_camel_case() -> None:
    assert camel_case("call_id") == "callId"
    assert camel_case("additional_context") == "additionalContext"
    assert camel_case("name") == "name"


# -- execution records ---------------------------------------------------------


def test_token_cannot_be_constructed_subclassed_or_pickled() -> None:
    with pytest.raises(TypeError):
        ToolExecutionToken()
    with pytest.raises(TypeError):
        ToolExecutionToken(object())
    with pytest.raises(TypeError):

        class Forged(ToolExecutionToken):  # noqa: F841
            pass

    token = mint_token()
    with pytest.raises(TypeError):
        pickle.dumps(token)
    assert copy.copy(token) is token
    assert copy.deepcopy(token) is token
    assert copy.deepcopy({"t": token})["t"] is token
    with pytest.raises(AttributeError):
        token.call_id = "x"  # type: ignore[attr-defined]


def test_tokens_compare_by_identity() -> None:
    a, b = mint_token(), mint_token()
    assert a == a and a != b
    assert len({a, b, a}) == 2


def test_execution_input_accepts_anything() -> None:
    hostile: object = {1, 2}
    call = ToolExecutionInput("c1", "tool", hostile)  # type: ignore[arg-type]
    assert call.arguments is hostile
    odd = ToolExecutionInput(call_id=3, name=None, arguments=None)  # type: ignore[arg-type]
    assert odd.name is None


def test_execution_is_immutable_with_frozen_detached_arguments() -> None:
    args: dict[str, Any] = {"path": "/x", "opts": [1, {"deep": True}]}
    signal = AbortController().signal
    execution = ToolExecution(mint_token(), "c1", "read", args, signal=signal)  # type: ignore[arg-type]
    args["opts"][1]["deep"] = False
    assert is_frozen_container(execution.arguments)
    assert thaw_json(execution.arguments) == {"path": "/x", "opts": [1, {"deep": True}]}
    for name in ("token", "call_id", "name", "arguments", "agent", "parent", "signal"):
        with pytest.raises(AttributeError):
            setattr(execution, name, None)
    replaced = execution.set(signal=None)
    assert replaced.signal is None and execution.signal is signal
    assert replaced.token is execution.token


def test_execution_to_json_is_the_wire_identity() -> None:
    ctx = Context()
    agent = Agent(ctx, name="reviewer")
    parent = mint_token()
    frozen_args: Any = {"a": [1]}  # frozen at construction
    execution = ToolExecution(mint_token(), "c1", "read", frozen_args, agent, parent, AbortController().signal)
    assert execution.to_json() == {"callId": "c1", "name": "read", "arguments": {"a": [1]}, "agent": "reviewer"}
    assert ToolExecution(mint_token(), "c2", "x", None).to_json() == {"callId": "c2", "name": "x", "arguments": None}


def test_result_wire_shape() -> None:
    result = ToolExecutionResult("c1", [text_block("hi")], False)
    assert result.to_json() == {"callId": "c1", "content": [{"type": "text", "text": "hi"}], "isError": False}
    full = ToolExecutionResult(
        call_id="c2",
        content=[text_block("Error: boom")],
        is_error=True,
        error=ToolErrorInfo("ToolTimeoutError", "TOOL_TIMEOUT"),
        additional_context=HookContext([text_block("ctx")], PluginSource("audit")),
        meta={"logs": [1, 2]},
    )
    assert full.to_json() == {
        "callId": "c2",
        "content": [{"type": "text", "text": "Error: boom"}],
        "isError": True,
        "error": {"name": "ToolTimeoutError", "code": "TOOL_TIMEOUT"},
        "additionalContext": {"content": [{"type": "text", "text": "ctx"}], "source": {"kind": "plugin", "plugin": "audit"}},
        "meta": {"logs": [1, 2]},
    }


def test_result_content_and_meta_are_frozen_and_checked() -> None:
    block: dict[str, Any] = {"type": "text", "text": "a"}
    result = ToolExecutionResult("c", [block], False, meta={"m": [1]})
    block["text"] = "changed"
    assert thaw_json(result.content) == [{"type": "text", "text": "a"}]
    assert is_frozen_container(result.content) and is_frozen_container(result.meta)
    with pytest.raises(TypeError, match="meta"):
        ToolExecutionResult("c", [], False, meta={"x": b"bytes"})
    with pytest.raises(TypeError, match="content"):
        ToolExecutionResult("c", [{"type": "text", "text": float("inf")}], False)


def test_hook_context_wire_shapes() -> None:
    user = HookContext([text_block("x")], UserSource())
    assert user.to_json() == {"content": [{"type": "text", "text": "x"}], "source": {"kind": "user"}}
    plugin = HookContext((), PluginSource(plugin="lint"))
    assert plugin.to_json() == {"content": [], "source": {"kind": "plugin", "plugin": "lint"}}
    assert UserSource() == UserSource() and PluginSource("a") != PluginSource("b")


def test_tool_output_and_error_info_wire_shapes() -> None:
    assert ToolOutput([text_block("a")]).to_json() == {"content": [{"type": "text", "text": "a"}]}
    assert ToolOutput([], meta={"k": 1}).to_json() == {"content": [], "meta": {"k": 1}}
    assert ToolErrorInfo(name="N", code="C").to_json() == {"name": "N", "code": "C"}
    block: ContentBlock = text_block("t")
    assert block == {"type": "text", "text": "t"}


# -- decisions ---------------------------------------------------------------


def test_decision_wire_shapes() -> None:
    context = HookContext([text_block("c")], UserSource())
    assert Allow().to_json() == {"kind": "allow"}
    assert Deny("no").to_json() == {"kind": "deny", "reason": "no"}
    assert Ask().to_json() == {"kind": "ask"}
    assert Ask("why").to_json() == {"kind": "ask", "reason": "why"}
    assert Accept().to_json() == {"kind": "accept"}
    assert Accept(content=[text_block("new")], additional_context=context).to_json() == {
        "kind": "accept",
        "content": [{"type": "text", "text": "new"}],
        "additionalContext": {"content": [{"type": "text", "text": "c"}], "source": {"kind": "user"}},
    }
    assert Block([text_block("fix it")]).to_json() == {"kind": "block", "feedback": [{"type": "text", "text": "fix it"}]}


def test_decisions_are_immutable_and_freeze_content() -> None:
    feedback = [{"type": "text", "text": "f"}]
    block = Block(feedback)
    feedback.append({"type": "text", "text": "g"})
    assert len(block.feedback) == 1 and is_frozen_container(block.feedback)
    with pytest.raises(AttributeError):
        block.feedback = []  # type: ignore[misc]
    with pytest.raises(TypeError):
        Accept(content=[{"type": "text", "text": b"x"}])  # bytes type-check as Sequence; runtime refuses


# -- errors ------------------------------------------------------------------


def test_error_codes_and_attributes() -> None:
    base = HarnessError("something broke", "SOME_CODE")
    assert str(base) == "something broke" and base.code == "SOME_CODE" and base.message == "something broke"
    assert isinstance(base, Exception)

    not_found = ToolNotFoundError("grep")
    assert not_found.code == "UNKNOWN_TOOL" and not_found.tool_name == "grep" and "grep" in str(not_found)

    args = ToolArgsError(["path: missing required property", "offset: expected integer, got string"])
    assert args.code == "INVALID_ARGS"
    assert args.violations == ("path: missing required property", "offset: expected integer, got string")
    assert "path: missing required property" in str(args) and "offset: expected integer" in str(args)
    assert ToolArgsError(iter(["a"])).violations == ("a",)

    schema = OutputSchemaError(["(root): expected object"])
    assert schema.code == "UNSUPPORTED_SCHEMA" and schema.violations == ("(root): expected object",)

    assert CodeRunFailedError("exception: boom").code == "CODE_RUN_FAILED"
    assert str(CodeRunFailedError("exception: boom")) == "exception: boom"
    assert ToolTimeoutError("late").code == "TOOL_TIMEOUT"
    for cls in (ToolNotFoundError, ToolArgsError, OutputSchemaError, CodeRunFailedError, ToolTimeoutError):
        assert issubclass(cls, HarnessError)


@pytest.mark.parametrize(
    "error",
    [
        HarnessError("m", "C"),
        ToolNotFoundError("t"),
        ToolArgsError(["a: x", "b: y"]),
        OutputSchemaError(["p"]),
        CodeRunFailedError("m"),
        ToolTimeoutError("m"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_errors_survive_copy_and_pickle(error: HarnessError) -> None:
    for clone in (copy.copy(error), copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
        assert type(clone) is type(error)
        assert str(clone) == str(error)
        assert clone.code == error.code
        assert vars(clone) == vars(error)
