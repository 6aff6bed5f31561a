"""Hostile input: ``execute`` never raises, and every path ends in exactly one observed result."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import orjson
import pytest

from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, ToolOutput, text_block
from dsh_tools.decisions import Allow, Ask, Deny
from dsh_tools.errors import HarnessError, ToolArgsError, ToolTimeoutError
from dsh_tools.execution import (
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolExecutionToken,
)
from dsh_tools.hooks import PreNext
from dsh_tools.context.context import Agent, Context
from dsh_tools.signals import AbortController
from pipeline_support import Results, texts

Body = Callable[[Any, ToolExecution], Any]


class Tool:
    def __init__(self, name: str, body: Body | None = None) -> None:
        self.name = name
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.body = body
        self.runs = 0

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock] | ToolOutput:
        self.runs += 1
        if self.body is None:
            return [text_block("ran")]
        value: Sequence[ContentBlock] | ToolOutput = self.body(args, exec)
        return value


@pytest.fixture
def ctx() -> Context:
    return boot(mode="native", timeouts=False)


@pytest.fixture
def tool(ctx: Context) -> Tool:
    t = Tool("t")
    ctx.tools.register(t)
    return t


@pytest.fixture
def results(ctx: Context) -> Results:
    return Results(ctx)


class _Dict(dict[str, Any]):
    pass


class _List(list[Any]):
    pass


class _Str(str):
    pass


class _Obj:
    def __init__(self) -> None:
        self.x = 1


def _cycle() -> list[Any]:
    value: list[Any] = []
    value.append(value)
    return value


def _deep() -> list[Any]:
    value: list[Any] = []
    for _ in range(100_000):
        value = [value]
    return value


class _Hostile:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("getattr")


NON_JSON: list[Any] = [
    math.nan,
    {"x": math.inf},
    {1, 2},
    {"s": {1}},
    object(),
    _Obj(),
    _cycle(),
    {"deep": _deep()},
    _Dict(a=1),
    {"nested": _List([1])},
    {"k": _Str("v")},
    {1: "int key"},
    b"bytes",
    {"h": _Hostile()},
    _Hostile(),
    (x for x in range(3)),
]
NON_JSON_IDS = [
    "nan", "inf", "set", "nested-set", "object", "instance", "cycle", "deep", "dict-subclass",
    "list-subclass", "str-subclass", "int-key", "bytes", "hostile-nested", "hostile", "generator",
]  # fmt: skip


@pytest.mark.parametrize("arguments", NON_JSON, ids=NON_JSON_IDS)
async def test_non_json_arguments_are_one_error_result(
    ctx: Context, tool: Tool, results: Results, arguments: Any
) -> None:
    policy: list[str] = []
    def pre(execution: ToolExecution, next: PreNext) -> Allow:
        policy.append("pre")
        return Allow()

    def guard(execution: ToolExecution) -> None:
        policy.append("guard")

    ctx.on("tools/pre-execute", pre)
    ctx.tools.guard(guard)
    agent = Agent(ctx, name="a")
    signal = AbortController().signal
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", arguments, agent=agent, signal=signal))
    assert result.is_error and result.call_id == "c1"
    assert tool.runs == 0 and policy == []
    ((execution, observed),) = results.seen
    assert observed == result
    assert execution.arguments is None
    assert (execution.call_id, execution.name, execution.agent, execution.signal) == ("c1", "t", agent, signal)


async def test_forged_parent_is_refused_and_dropped(ctx: Context, tool: Tool, results: Results) -> None:
    forged = object.__new__(ToolExecutionToken)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}, parent=forged))
    assert result.is_error and tool.runs == 0
    ((execution, _),) = results.seen
    assert execution.parent is None and execution.arguments is None
    assert execution.call_id == "c1" and execution.name == "t"


@pytest.mark.parametrize("parent", ["token", 1, object(), {"token": 1}], ids=["str", "int", "object", "dict"])
async def test_non_token_parent_is_refused(ctx: Context, tool: Tool, results: Results, parent: Any) -> None:
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}, parent=parent))
    assert result.is_error and tool.runs == 0 and len(results.seen) == 1
    assert results.seen[0][0].parent is None


def test_tokens_cannot_be_constructed() -> None:
    with pytest.raises(TypeError):
        ToolExecutionToken()


async def test_a_real_parent_token_is_accepted_and_kept(ctx: Context, tool: Tool, results: Results) -> None:
    await ctx.tools.execute(ToolExecutionInput("outer", "t", {}))
    token = results.seen[0][0].token
    assert type(token) is ToolExecutionToken
    result = await ctx.tools.execute(ToolExecutionInput("inner", "t", {}, parent=token))
    assert not result.is_error
    inner = results.seen[1][0]
    assert inner.parent is token and inner.token is not token
    # a real parent with invalid arguments keeps the parent for observers
    await ctx.tools.execute(ToolExecutionInput("bad", "t", {math.nan}, parent=token))  # type: ignore[arg-type]
    assert results.seen[2][0].parent is token and results.seen[2][0].arguments is None


async def test_a_token_of_another_registry_is_forged_here(tool: Tool) -> None:
    other = boot(timeouts=False)
    other.tools.register(Tool("t"))
    other_results = Results(other)
    await other.tools.execute(ToolExecutionInput("c", "t", {}))
    foreign = other_results.seen[0][0].token
    ctx = boot(timeouts=False)
    ctx.tools.register(tool)
    assert (await ctx.tools.execute(ToolExecutionInput("c", "t", {}, parent=foreign))).is_error
    assert tool.runs == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"call_id": ""},
        {"call_id": 1},
        {"call_id": None},
        {"name": 7},
        {"name": None},
        {"agent": "agent"},
        {"signal": "signal"},
        {"signal": True},
    ],
    ids=repr,
)
async def test_malformed_identity_fields_are_one_error_result(
    ctx: Context, tool: Tool, results: Results, fields: dict[str, Any]
) -> None:
    values: dict[str, Any] = {"call_id": "c1", "name": "t", "arguments": {}, **fields}
    result = await ctx.tools.execute(ToolExecutionInput(**values))
    assert result.is_error and tool.runs == 0
    assert len(results.seen) == 1 and results.seen[0][1] == result


@pytest.mark.parametrize("call", [None, {"call_id": "c1", "name": "t", "arguments": {}}, "t"], ids=repr)
async def test_not_an_input_at_all(ctx: Context, tool: Tool, results: Results, call: Any) -> None:
    result = await ctx.tools.execute(call)
    assert result.is_error and tool.runs == 0 and len(results.seen) == 1


class _Allow(Allow):
    pass


class _Deny(Deny):
    pass


def _raise(*args: Any) -> Any:
    raise RuntimeError("listener crashed")


@pytest.mark.parametrize(
    "listener",
    [
        lambda e, next: {"kind": "allow"},
        lambda e, next: {"kind": "deny", "reason": "x"},
        lambda e, next: _Allow(),
        lambda e, next: _Deny("x"),
        lambda e, next: None,
        lambda e, next: "allow",
        lambda e, next: True,
        lambda e, next: Deny(3),  # type: ignore[arg-type]
        lambda e, next: Deny(None),  # type: ignore[arg-type]
        lambda e, next: Ask(["why"]),  # type: ignore[arg-type]
        lambda e, next: Allow,
        _raise,
    ],
    ids=["dict-allow", "dict-deny", "allow-subclass", "deny-subclass", "none", "str", "bool", "int-reason",
         "none-reason", "list-reason", "class", "raises"],
)  # fmt: skip
async def test_pre_listener_returning_wrong_types_fails_closed(
    ctx: Context, tool: Tool, results: Results, listener: Any
) -> None:
    ctx.on("tools/pre-execute", listener)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    assert result.is_error and result.call_id == "c1"
    assert tool.runs == 0
    assert len(results.seen) == 1


async def test_pre_listener_calling_next_twice_is_fine(ctx: Context, tool: Tool) -> None:
    async def twice(execution: ToolExecution, next: PreNext) -> Allow | Deny | Ask:
        await next()
        return await next()

    ctx.on("tools/pre-execute", twice)
    assert not (await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))).is_error


@pytest.mark.parametrize("event", ["tools/pre-execute", "tools/post-execute"])
async def test_a_listener_passing_arguments_to_next_is_told_what_next_takes(
    ctx: Context, tool: Tool, results: Results, event: str
) -> None:
    async def misuses(*arguments: Any) -> Any:
        *own, next = arguments
        return await next(*own)  # next() takes nothing: the rest runs with this level's arguments

    ctx.on(event, misuses)  # type: ignore[call-overload]  # a listener typed loosely, as untyped code would be
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    assert result.is_error and len(results.seen) == 1
    assert result.text.startswith("Error: next() takes no arguments") and "_level" not in result.text


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str failed")


class BadStrType(Exception):
    def __str__(self) -> Any:
        return 42


def _throw(error: BaseException) -> Body:
    def body(args: Any, exec: ToolExecution) -> Any:
        raise error

    return body


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (Unprintable(), "Error: <unprintable Unprintable>"),
        (BadStrType(), "Error: <unprintable BadStrType>"),
        (ValueError("plain"), "Error: plain"),
        (KeyError("k"), "Error: 'k'"),
    ],
    ids=["unprintable", "bad-str-type", "value", "key"],
)
async def test_raising_body_becomes_error_text(
    ctx: Context, results: Results, error: BaseException, text: str
) -> None:
    ctx.tools.register(Tool("boom", _throw(error)))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "boom", {}))
    assert result.is_error and texts(result) == [text]
    assert result.error is None
    assert len(results.seen) == 1


class QuotaError(HarnessError):
    def __init__(self) -> None:
        super().__init__("quota exhausted", "QUOTA")


class UnprintableHarness(HarnessError):
    def __str__(self) -> str:
        raise RuntimeError("nope")


@pytest.mark.parametrize(
    ("error", "info", "text"),
    [
        (QuotaError(), ToolErrorInfo("QuotaError", "QUOTA"), "Error: quota exhausted"),
        (ToolArgsError(["path: missing required property"]), ToolErrorInfo("ToolArgsError", "INVALID_ARGS"), None),
        (ToolTimeoutError("slow"), ToolErrorInfo("ToolTimeoutError", "TOOL_TIMEOUT"), "Error: slow"),
        (HarnessError("base", "BASE"), ToolErrorInfo("HarnessError", "BASE"), "Error: base"),
        (UnprintableHarness("x", "ODD"), ToolErrorInfo("UnprintableHarness", "ODD"),
         "Error: <unprintable UnprintableHarness>"),
    ],
    ids=["subclass", "args", "timeout", "base", "unprintable"],
)  # fmt: skip
async def test_harness_errors_carry_structured_info(
    ctx: Context, error: HarnessError, info: ToolErrorInfo, text: str | None
) -> None:
    ctx.tools.register(Tool("boom", _throw(error)))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "boom", {}))
    assert result.is_error and result.error == info
    assert texts(result) == [text if text is not None else f"Error: {error}"]
    assert result.to_json()["error"] == {"name": info.name, "code": info.code}


async def test_a_call_id_with_a_lone_surrogate_is_refused_and_recorded_as_text(
    ctx: Context, tool: Tool, results: Results
) -> None:
    """Not Unicode text, so no record could be written out: the call does not run, and what
    observers see (and the result) carries the id with U+FFFD in place of the surrogate."""
    result = await ctx.tools.execute(ToolExecutionInput("c\ud800", "t", {}))
    assert result.is_error and tool.runs == 0
    assert texts(result) == ["Error: invalid tool call: call_id holds a lone surrogate (not Unicode text)"]
    assert result.call_id == "c\ufffd" and results.seen[0][0].call_id == "c\ufffd"
    assert orjson.dumps(result.to_json())  # JSON all the way down


async def test_a_name_with_a_lone_surrogate_names_no_tool(ctx: Context, tool: Tool, results: Results) -> None:
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t\udc00", {}))
    assert result.error == ToolErrorInfo("ToolNotFoundError", "UNKNOWN_TOOL") and tool.runs == 0
    assert texts(result) == ['Error: unknown tool "t\ufffd"']
    assert results.seen[0][0].name == "t\ufffd"


def test_a_tool_name_with_a_lone_surrogate_is_refused_at_definition() -> None:
    with pytest.raises(ValueError, match="tool name must be Unicode text"):
        boot().tools.register(Tool("t\ud800"))


async def test_unknown_tool_is_unknown_tool(ctx: Context, results: Results) -> None:
    result = await ctx.tools.execute(ToolExecutionInput("c1", "ghost", {}))
    assert result.is_error
    assert result.error == ToolErrorInfo("ToolNotFoundError", "UNKNOWN_TOOL")
    assert texts(result) == ['Error: unknown tool "ghost"']
    assert len(results.seen) == 1


class _Out(ToolOutput):
    pass


@pytest.mark.parametrize(
    "value",
    [
        None,
        "text",
        text_block("a dict, not a list"),
        [1],
        [{"text": "no type"}],
        [{"type": 1}],
        [{"type": "text", "text": math.nan}],
        [{"type": "text", "x": {1}}],
        [_Dict(type="text")],
        [text_block("ok"), None],
        _List([text_block("list subclass")]),
        {"content": [text_block("x")]},
        _Out([text_block("x")]),
        (x for x in [text_block("x")]),
        42,
    ],
    ids=["none", "str", "dict", "int-block", "untyped", "int-type", "nan", "set", "dict-subclass-block",
         "none-block", "list-subclass", "wire-dict", "output-subclass", "generator", "int"],
)  # fmt: skip
async def test_malformed_body_output_is_an_error(ctx: Context, results: Results, value: Any) -> None:
    ctx.tools.register(Tool("odd", lambda args, exec: value))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "odd", {}))
    assert result.is_error and result.call_id == "c1"
    assert len(results.seen) == 1
    result.to_json()  # the result itself is well formed


@pytest.mark.parametrize(
    "value",
    [
        [text_block("list")],
        (text_block("tuple"),),
        ToolOutput([text_block("output")], meta={"lines": [1, 2]}),
        ToolOutput([text_block("output")]),
        [],
    ],
    ids=["list", "tuple", "output-meta", "output", "empty"],
)
async def test_well_formed_body_output(ctx: Context, value: Any) -> None:
    ctx.tools.register(Tool("ok", lambda args, exec: value))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "ok", {}))
    assert not result.is_error
    expected = value.content if type(value) is ToolOutput else value
    assert [dict(b) for b in result.content] == [dict(b) for b in expected]
    if type(value) is ToolOutput and value.meta is not None:
        assert result.to_json()["meta"] == {"lines": [1, 2]}
    else:
        assert "meta" not in result.to_json()


async def test_tool_output_with_non_json_meta_is_an_error(ctx: Context) -> None:
    ctx.tools.register(Tool("odd", lambda args, exec: ToolOutput([text_block("x")], meta={1, 2})))  # type: ignore[arg-type]
    result = await ctx.tools.execute(ToolExecutionInput("c1", "odd", {}))
    assert result.is_error


# -- participants whose dunder methods raise ------------------------------------------


class _HostileClass:
    """``isinstance`` on this raises: its ``__class__`` lookup fails."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # noqa: PLE0302
        raise RuntimeError("no class for you")

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} for you")


class _HostileEq:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("ne")

    __hash__ = None  # type: ignore[assignment]


class _StrWithHostileNe(str):
    def __ne__(self, other: object) -> bool:
        raise RuntimeError("ne")

    __hash__ = str.__hash__


async def test_hostile_agent_field_is_an_error_result(ctx: Context, tool: Tool, results: Results) -> None:
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}, agent=_HostileClass()))  # type: ignore[arg-type]
    assert result.is_error and tool.runs == 0
    assert len(results.seen) == 1 and results.seen[0][0].agent is None


async def test_hostile_identity_fields_everywhere(ctx: Context, tool: Tool, results: Results) -> None:
    h = _HostileEq()
    result = await ctx.tools.execute(ToolExecutionInput(h, h, h, agent=h, parent=h, signal=h))  # type: ignore[arg-type]
    assert result.is_error and tool.runs == 0 and len(results.seen) == 1


async def test_guard_returning_a_hostile_object_fails_closed(ctx: Context, tool: Tool, results: Results) -> None:
    ctx.tools.guard(lambda e: _HostileClass())  # type: ignore[arg-type,return-value]
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    assert result.is_error and tool.runs == 0 and len(results.seen) == 1


@pytest.mark.parametrize(
    "make", [_HostileEq, _HostileClass, lambda: _StrWithHostileNe("allowed-once")], ids=["eq", "class", "str-ne"]
)
async def test_approval_returning_a_hostile_outcome_fails_closed(
    ctx: Context, tool: Tool, results: Results, make: Callable[[], Any]
) -> None:
    outcome = make()
    from dsh_tools.approval import ApprovalOutcome, ApprovalRequest
    from dsh_tools.context.services import APPROVAL

    class Approver:
        async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
            value: ApprovalOutcome = outcome
            return value

    ctx.provide(APPROVAL, Approver())
    ctx.on("tools/pre-execute", lambda e, next: Ask())
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}, agent=Agent(ctx, name="a")))
    assert result.is_error and tool.runs == 0 and len(results.seen) == 1


@pytest.mark.parametrize(
    "call_id", [_HostileEq(), _StrWithHostileNe("c1"), _Str("c1"), 1, None], ids=["eq", "str-ne", "str-subclass", "int", "none"]
)
async def test_wrapper_result_with_a_malformed_call_id_fails_closed(
    ctx: Context, tool: Tool, results: Results, call_id: Any
) -> None:
    from dsh_tools.hooks import ExecuteNext

    async def wrapper(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        return ToolExecutionResult(call_id, [text_block("forged")], False)

    ctx.on("tools/execute", wrapper)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    assert result.is_error and type(result.call_id) is str and result.call_id == "c1"
    assert texts(result) != ["forged"]
    assert len(results.seen) == 1


class _NoInitHarness(HarnessError):
    def __init__(self) -> None:  # forgets super().__init__: no message, no code
        pass


class _RaisingCodeHarness(HarnessError):
    @property
    def code(self) -> str:
        raise RuntimeError("code")

    @code.setter
    def code(self, value: str) -> None:
        pass


class _NonStrCodeHarness(HarnessError):
    def __init__(self) -> None:
        super().__init__("odd code", 404)  # type: ignore[arg-type]


class _RaisingMetaHarness(HarnessError):
    @property
    def meta(self) -> dict[str, object] | None:
        raise RuntimeError("meta")

    @meta.setter
    def meta(self, value: dict[str, object] | None) -> None:
        pass


@pytest.mark.parametrize(
    "error", [_NoInitHarness(), _RaisingCodeHarness("m", "X"), _NonStrCodeHarness()], ids=["no-init", "raising-code", "int-code"]
)
async def test_malformed_harness_errors_are_still_error_results(
    ctx: Context, results: Results, error: HarnessError
) -> None:
    ctx.tools.register(Tool("boom", _throw(error)))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "boom", {}))
    assert result.is_error and result.error is None
    assert len(results.seen) == 1
    result.to_json()


@pytest.mark.parametrize(
    ("error", "meta"),
    [
        (HarnessError("m", "X", meta={"hint": [1, "two"]}), {"hint": [1, "two"]}),
        (HarnessError("m", "X", meta={"not json": object()}), None),
        (_RaisingMetaHarness("m", "X"), None),
    ],
    ids=["json", "not-json", "raising"],
)
async def test_a_harness_error_s_meta_is_the_result_s_when_it_is_json(
    ctx: Context, results: Results, error: HarnessError, meta: object
) -> None:
    ctx.tools.register(Tool("boom", _throw(error)))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "boom", {}))
    from dsh_tools import thaw_json

    assert result.is_error and result.text == "Error: m" and thaw_json(result.meta) == meta
    result.to_json()


async def test_observer_with_hostile_attributes_is_contained(
    ctx: Context, tool: Tool, results: Results, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    class Observer:
        def __call__(self, execution: ToolExecution, result: ToolExecutionResult) -> None:
            raise ValueError("observer failed")

        def __getattr__(self, name: str) -> Any:
            raise RuntimeError(f"no {name}")

    ctx.on("tools/result", Observer())
    later = Results(ctx)
    with caplog.at_level(logging.WARNING, logger="dsh_tools"):
        result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    assert not result.is_error
    assert len(later.seen) == 1
    records = [r for r in caplog.records if r.name == ctx.logger.name]
    assert len(records) == 1 and "observer failed" in records[0].getMessage()


async def test_a_token_another_registry_minted_is_refused_as_a_parent(ctx: Context, tool: Tool, results: Results) -> None:
    """Each registry knows its own tokens by its mark: a real token from elsewhere is as foreign as a forged one."""
    from dsh_tools import boot

    minted = boot().tools.mint_token()
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}, parent=minted))
    assert result.is_error and "parent is not a token issued by this registry" in result.text
    assert ctx.tools.issued(ctx.tools.mint_token()) and not ctx.tools.issued(minted)
    assert tool.runs == 0
