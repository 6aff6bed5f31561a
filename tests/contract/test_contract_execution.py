"""API.md: execution semantics, decisions, denial texts, error results, wrappers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import pytest

from dsh_tools import (
    APPROVAL,
    KEEP,
    AbortController,
    AbortSignal,
    Accept,
    Agent,
    Allow,
    ApprovalRequest,
    Ask,
    Block,
    ContentBlock,
    Context,
    Deny,
    HarnessError,
    HookContext,
    PluginSource,
    PostToolDecision,
    PreToolDecision,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolNotFoundError,
    ToolOutput,
    boot,
    text_block,
)
from dsh_tools.json_values import FrozenDict, thaw_json

from contract_support import Echo, call, text_of

PreNextT = Callable[[], Awaitable[PreToolDecision]]
PostNextT = Callable[[], Awaitable[PostToolDecision]]


def observed(ctx: Context) -> list[tuple[ToolExecution, ToolExecutionResult]]:
    seen: list[tuple[ToolExecution, ToolExecutionResult]] = []
    ctx.on("tools/result", lambda e, r: seen.append((e, r)))
    return seen


def setup() -> tuple[Context, Echo, list[tuple[ToolExecution, ToolExecutionResult]]]:
    ctx = boot()
    echo = Echo("echo")
    ctx.tools.register(echo)
    return ctx, echo, observed(ctx)


async def test_success_result() -> None:
    ctx, echo, seen = setup()
    result = await call(ctx, "echo", {"text": "hi"}, call_id="id-1")
    assert type(result) is ToolExecutionResult
    assert result.to_json() == {"callId": "id-1", "content": [{"type": "text", "text": "echo:hi"}], "isError": False}
    assert len(seen) == 1 and seen[0][1] == result


async def test_execution_record_fields_and_immutability() -> None:
    """"Every field of ``ToolExecution`` refuses assignment (``AttributeError``)"."""
    ctx, echo, _ = setup()
    agent = Agent(ctx, name="a")
    signal = AbortController().signal
    await call(ctx, "echo", {"text": "hi"}, call_id="c9", agent=agent, signal=signal)
    (exec,) = echo.calls
    assert exec.call_id == "c9" and exec.name == "echo" and exec.agent is agent and exec.parent is None
    assert exec.signal is signal
    assert isinstance(exec.arguments, FrozenDict) and thaw_json(exec.arguments) == {"text": "hi"}
    for field in ("token", "call_id", "name", "arguments", "agent", "parent", "signal"):
        with pytest.raises(AttributeError):
            setattr(exec, field, None)
    token = exec.token
    assert token == token and hash(token) == hash(token)
    with pytest.raises(TypeError):
        type(token)()


async def test_tool_output_return_form_sets_meta() -> None:
    ctx = boot()

    class Meta:
        name = "m"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> ToolOutput:
            return ToolOutput(content=[text_block("body")], meta={"rows": 3})

    ctx.tools.register(Meta())
    result = await call(ctx, "m", {})
    assert result.to_json() == {
        "callId": "c1",
        "content": [{"type": "text", "text": "body"}],
        "isError": False,
        "meta": {"rows": 3},
    }


async def test_unknown_tool_result() -> None:
    ctx, _, seen = setup()
    result = await call(ctx, "nope", {})
    assert result.is_error
    assert result.error == ToolErrorInfo(name="ToolNotFoundError", code="UNKNOWN_TOOL")
    assert text_of(result) == f"Error: {ToolNotFoundError('nope')}"
    assert len(seen) == 1


async def test_invisible_tool_is_unknown() -> None:
    ctx, echo, _ = setup()
    agent = Agent(ctx, name="a")
    agent.ctx.tools.restrict(deny=["echo"])
    result = await call(ctx, "echo", {"text": "x"}, agent=agent)
    assert result.error == ToolErrorInfo(name="ToolNotFoundError", code="UNKNOWN_TOOL")
    assert echo.calls == []
    other = Agent(ctx, name="b")
    other.ctx.tools.register(Echo("private"))
    result = await call(ctx, "private", {"text": "x"}, agent=agent)
    assert result.error == ToolErrorInfo(name="ToolNotFoundError", code="UNKNOWN_TOOL")


async def test_harness_error_from_body() -> None:
    ctx = boot()

    class Failing:
        name = "f"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            raise HarnessError("custom failure", "MY_CODE")

    ctx.tools.register(Failing())
    result = await call(ctx, "f", {})
    assert result.is_error
    assert result.error == ToolErrorInfo(name="HarnessError", code="MY_CODE")
    assert text_of(result) == "Error: custom failure"


async def test_plain_exception_uses_str_and_unprintable() -> None:
    """""Error: <message>" uses ``str(exception)``; if ``str()`` itself raises, ``<unprintable TypeName>``."""

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("nope")

    errors: list[Exception] = [ValueError("plain text"), Unprintable()]

    class Failing:
        name = "f"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            raise errors.pop(0)

    ctx = boot()
    ctx.tools.register(Failing())
    first = await call(ctx, "f", {})
    assert text_of(first) == "Error: plain text" and first.is_error
    second = await call(ctx, "f", {})
    assert text_of(second) == "Error: <unprintable Unprintable>" and second.is_error


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (RuntimeError(), "Error: RuntimeError"),
        (KeyError(""), "Error: ''"),  # str(KeyError("")) is "''", not empty: the text stays str(e)
        (ValueError(""), "Error: ValueError"),
        (ConnectionResetError(), "Error: ConnectionResetError"),
        (HarnessError("", "MY_CODE"), "Error: HarnessError"),
        (ValueError("boom"), "Error: boom"),
    ],
)
async def test_a_body_raising_an_empty_message_settles_its_type_name(error: Exception, text: str) -> None:
    """API.md "Two earlier rules, settled": ``Error: <type name>`` when ``str(e)`` is empty."""

    class Failing:
        name = "f"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            raise error

    ctx = boot()
    ctx.tools.register(Failing())
    result = await call(ctx, "f", {})
    assert result.is_error and text_of(result) == text


async def test_execute_never_raises_even_on_garbage_input() -> None:
    ctx, echo, seen = setup()
    result = await ctx.tools.execute(ToolExecutionInput(call_id=5, name=None, arguments=None))  # type: ignore[arg-type]
    assert result.is_error
    assert echo.calls == []
    assert len(seen) == 1


async def test_non_json_arguments_invalid_input() -> None:
    """"For invalid input, ``tools/result`` observers see an execution whose ``arguments``
    is ``None`` ...; ``call_id``, ``name``, ``agent`` and ``signal`` are kept."""
    ctx, echo, seen = setup()
    agent = Agent(ctx, name="a")
    signal = AbortController().signal
    pre_calls: list[str] = []

    async def pre(exec: ToolExecution, next: PreNextT) -> PreToolDecision:
        pre_calls.append(exec.call_id)
        return await next()

    ctx.on("tools/pre-execute", pre)
    result = await call(ctx, "echo", {"text": float("nan")}, call_id="bad", agent=agent, signal=signal)
    assert result.is_error and result.call_id == "bad"
    assert echo.calls == [] and pre_calls == []
    ((exec, final),) = seen
    assert final == result
    assert exec.arguments is None
    assert exec.call_id == "bad" and exec.name == "echo" and exec.agent is agent and exec.signal is signal


async def test_forged_parent_invalid_input() -> None:
    ctx, echo, seen = setup()

    class FakeToken:
        pass

    result = await call(ctx, "echo", {"text": "x"}, call_id="forged", parent=FakeToken())
    assert result.is_error
    assert echo.calls == []
    ((exec, _),) = seen
    assert exec.parent is None and exec.arguments is None and exec.call_id == "forged"


async def test_real_parent_token_is_accepted() -> None:
    ctx, echo, _ = setup()
    await call(ctx, "echo", {"text": "x"}, call_id="outer")
    token = echo.calls[0].token
    result = await call(ctx, "echo", {"text": "y"}, call_id="inner", parent=token)
    assert not result.is_error
    assert echo.calls[1].parent is token


# -- decisions --------------------------------------------------------------------------


async def test_deny_content() -> None:
    ctx, echo, seen = setup()
    ctx.on("tools/pre-execute", lambda e, n: Deny(reason="not today"))
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error and text_of(result) == "Error: not today"
    assert echo.calls == [] and len(seen) == 1


class AllowSub(Allow):
    pass


@pytest.mark.parametrize(
    "bad",
    [None, {"kind": "allow"}, "allow", AllowSub(), Accept()],
    ids=["none", "dict", "str", "subclass", "post-decision"],
)
async def test_non_decision_fails_closed(bad: object) -> None:
    """"A listener that returns anything else ... fails closed: the call becomes an
    ``is_error`` result, the tool body does not run, and ``tools/result`` still sees
    exactly one result."""
    ctx, echo, seen = setup()
    bad_listener: Any = lambda e, n: bad  # noqa: E731
    ctx.on("tools/pre-execute", bad_listener)
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error
    assert echo.calls == []
    assert len(seen) == 1


@pytest.mark.parametrize(
    "bad",
    [None, {"kind": "accept"}, Allow()],
    ids=["none", "dict", "pre-decision"],
)
async def test_post_non_decision_fails_closed(bad: object) -> None:
    ctx, echo, seen = setup()
    bad_listener: Any = lambda e, r, n: bad  # noqa: E731
    ctx.on("tools/post-execute", bad_listener)
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error
    assert len(seen) == 1


async def test_dict_result_from_execute_wrapper_fails_closed() -> None:
    """"a dict, even one with the wire keys, is not a result"."""
    ctx, _, seen = setup()

    async def wrapper(exec: ToolExecution, next: Any) -> Any:
        return {"callId": exec.call_id, "content": [], "isError": False}

    ctx.on("tools/execute", wrapper)
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error and len(seen) == 1


async def test_post_accept_and_block() -> None:
    ctx, _, seen = setup()
    hook = HookContext(content=[text_block("note")], source=PluginSource(plugin="p"))

    async def post(exec: ToolExecution, result: ToolExecutionResult, next: PostNextT) -> PostToolDecision:
        if exec.call_id == "accept":
            return Accept(content=[text_block("replaced")], additional_context=hook)
        return Block(feedback=[text_block("try again")])

    ctx.on("tools/post-execute", post)
    accepted = await call(ctx, "echo", {"text": "x"}, call_id="accept")
    assert not accepted.is_error and text_of(accepted) == "replaced"
    assert accepted.additional_context == hook
    blocked = await call(ctx, "echo", {"text": "x"}, call_id="block")
    assert blocked.is_error and text_of(blocked) == "try again"


# -- approval ----------------------------------------------------------------------------

Outcome = Literal["allowed-once", "rejected", "cancelled", "unavailable"]


class Approver:
    def __init__(self, outcome: Any) -> None:
        self.outcome = outcome
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> Outcome:
        self.requests.append(request)
        return self.outcome  # type: ignore[no-any-return]


def ask_setup(reason: str | None = None) -> tuple[Context, Echo]:
    ctx = boot()
    echo = Echo("echo")
    ctx.tools.register(echo)
    ctx.on("tools/pre-execute", lambda e, n: Ask(reason=reason))
    return ctx, echo


async def test_ask_without_service_uses_reason_or_default_text() -> None:
    ctx, echo = ask_setup("why not")
    agent = Agent(ctx, name="a")
    result = await call(ctx, "echo", {"text": "x"}, agent=agent)
    assert text_of(result) == "Error: why not" and result.is_error
    ctx, echo = ask_setup(None)
    agent = Agent(ctx, name="a")
    result = await call(ctx, "echo", {"text": "x"}, agent=agent)
    assert text_of(result) == 'Error: tool "echo" needs approval, and no approval service is mounted'
    # Settled: no service + no agent → the no-service text
    result = await call(ctx, "echo", {"text": "x"})
    assert text_of(result) == 'Error: tool "echo" needs approval, and no approval service is mounted'
    assert echo.calls == []


async def test_ask_with_service_but_no_agent() -> None:
    ctx, echo = ask_setup("r")
    approver = Approver("allowed-once")
    ctx.provide(APPROVAL, approver)
    result = await call(ctx, "echo", {"text": "x"})
    assert text_of(result) == 'Error: tool "echo" needs approval, but the call has no agent'
    assert approver.requests == [] and echo.calls == []


@pytest.mark.parametrize(
    ("outcome", "text"),
    [
        ("rejected", 'Error: the user rejected tool "echo"'),
        ("cancelled", 'Error: approval for tool "echo" was cancelled'),
        ("unavailable", 'Error: tool "echo" needs approval, but no one is available to answer'),
    ],
)
async def test_ask_outcome_denial_texts(outcome: str, text: str) -> None:
    ctx, echo = ask_setup("r")
    ctx.provide(APPROVAL, Approver(outcome))
    result = await call(ctx, "echo", {"text": "x"}, agent=Agent(ctx, name="a"))
    assert result.is_error and text_of(result) == text
    assert echo.calls == []


async def test_ask_allowed_once_dispatches_and_request_fields() -> None:
    ctx, echo = ask_setup("because")
    approver = Approver("allowed-once")
    ctx.provide(APPROVAL, approver)
    agent = Agent(ctx, name="a")
    signal = AbortController().signal
    result = await call(ctx, "echo", {"text": "x"}, call_id="k", agent=agent, signal=signal)
    assert not result.is_error and len(echo.calls) == 1
    (request,) = approver.requests
    assert request.agent is agent and request.tool_name == "echo" and request.call_id == "k"
    assert request.reason == "because"
    # "``ApprovalRequest.signal`` is the execution's signal object itself."
    assert request.signal is signal


@pytest.mark.parametrize("outcome", ["allowed", None, "ALLOWED-ONCE"])
async def test_other_outcome_fails_closed(outcome: object) -> None:
    ctx, echo = ask_setup("r")
    ctx.provide(APPROVAL, Approver(outcome))
    result = await call(ctx, "echo", {"text": "x"}, agent=Agent(ctx, name="a"))
    assert result.is_error and echo.calls == []


def test_approval_request_constructor() -> None:
    """Second round: "``ApprovalRequest`` gains ``execution: ToolExecution`` ..., keyword, after the existing fields"."""
    from dsh_tools.execution import mint_token
    from dsh_tools.json_values import freeze_json

    agent = Agent(Context(), name="a")
    execution = ToolExecution(mint_token(), "id", "tool", freeze_json({"path": "README.md"}).unwrap(), agent)
    request = ApprovalRequest(agent, "tool", "id", execution=execution)
    assert request.reason is None and request.signal is None
    assert request.execution is execution
    with pytest.raises(TypeError, match="execution"):
        ApprovalRequest(agent, "tool", "id")  # type: ignore[call-arg]


# -- guards -------------------------------------------------------------------------------


async def test_guards_first_denial_wins_global_before_agent() -> None:
    ctx, echo, _ = setup()
    agent = Agent(ctx, name="a")
    order: list[str] = []

    def guard(label: str, verdict: str | None) -> Callable[[ToolExecution], str | None]:
        def fn(exec: ToolExecution) -> str | None:
            order.append(label)
            return verdict

        return fn

    agent.ctx.tools.guard(guard("agent-1", "agent says no"))
    ctx.tools.guard(guard("global-1", None))
    ctx.tools.guard(guard("global-2", "global says no"))
    ctx.tools.guard(guard("global-3", "later"))
    result = await call(ctx, "echo", {"text": "x"}, agent=agent)
    assert text_of(result) == "Error: global says no"
    assert order == ["global-1", "global-2"]
    assert echo.calls == []


async def test_agent_guard_applies_only_to_that_agent() -> None:
    ctx, echo, _ = setup()
    agent = Agent(ctx, name="a")
    agent.ctx.tools.guard(lambda e: "agent says no")
    assert text_of(await call(ctx, "echo", {"text": "x"}, agent=agent)) == "Error: agent says no"
    assert not (await call(ctx, "echo", {"text": "x"}, agent=Agent(ctx, name="b"))).is_error
    assert not (await call(ctx, "echo", {"text": "x"})).is_error


async def test_guard_runs_after_pre_execute_allow() -> None:
    ctx, echo, _ = setup()
    ctx.tools.guard(lambda e: "guarded")
    ctx.on("tools/pre-execute", lambda e, n: Allow(), prepend=True)
    result = await call(ctx, "echo", {"text": "x"})
    assert text_of(result) == "Error: guarded" and echo.calls == []


@pytest.mark.parametrize("verdict", [1, b"no", ["no"], True])
async def test_guard_bad_return_fails_closed(verdict: object) -> None:
    ctx, echo, seen = setup()
    ctx.tools.guard(lambda e: verdict)  # type: ignore[arg-type,return-value]
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error and echo.calls == [] and len(seen) == 1


async def test_async_guard_fails_closed() -> None:
    """"Guards are synchronous"."""
    ctx, echo, _ = setup()

    async def guard(exec: ToolExecution) -> str | None:
        return None

    ctx.tools.guard(guard)  # type: ignore[arg-type]
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error and echo.calls == []


# -- tools/execute wrappers and signals -----------------------------------------------------------


class SignalProbe:
    name = "probe"
    description = "d"
    parameters = {"type": "object"}

    def __init__(self) -> None:
        self.signals: list[AbortSignal | None] = []

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.signals.append(exec.signal)
        return [text_block("ok")]


async def test_next_signal_replace_remove_keep_innermost_wins() -> None:
    ctx = boot()
    probe = SignalProbe()
    ctx.tools.register(probe)
    caller = AbortController().signal
    outer_sig = AbortController().signal
    post_seen: list[AbortSignal | None] = []
    result_seen: list[AbortSignal | None] = []
    wrapper_seen: list[AbortSignal | None] = []

    async def outer(exec: ToolExecution, next: Any) -> ToolExecutionResult:
        wrapper_seen.append(exec.signal)
        result: ToolExecutionResult = await next(signal=outer_sig)
        return result

    async def inner(exec: ToolExecution, next: Any) -> ToolExecutionResult:
        wrapper_seen.append(exec.signal)
        result: ToolExecutionResult = await next(signal=None)
        return result

    async def post(exec: ToolExecution, result: ToolExecutionResult, next: PostNextT) -> PostToolDecision:
        post_seen.append(exec.signal)
        return await next()

    ctx.on("tools/execute", outer)
    ctx.on("tools/execute", inner)
    ctx.on("tools/post-execute", post)
    ctx.on("tools/result", lambda e, r: result_seen.append(e.signal))
    await call(ctx, "probe", {}, signal=caller)
    assert wrapper_seen == [caller, outer_sig]
    # API "Cancellation": the body always has a signal; with the innermost one removed it is the registry's own
    (body_signal,) = probe.signals
    assert body_signal is not None and body_signal not in (caller, outer_sig) and not body_signal.aborted
    assert post_seen == [caller] and result_seen == [caller]


async def test_next_keep_and_default_keep_signal() -> None:
    ctx = boot()
    probe = SignalProbe()
    ctx.tools.register(probe)
    caller = AbortController().signal

    async def keeper(exec: ToolExecution, next: Any) -> ToolExecutionResult:
        first: ToolExecutionResult = await next(signal=KEEP)
        return first

    async def plain(exec: ToolExecution, next: Any) -> ToolExecutionResult:
        result: ToolExecutionResult = await next()
        return result

    ctx.on("tools/execute", keeper)
    ctx.on("tools/execute", plain)
    await call(ctx, "probe", {}, signal=caller)
    assert probe.signals == [caller]


async def test_wrapper_short_circuit_and_foreign_call_id() -> None:
    ctx, echo, seen = setup()

    async def wrapper(exec: ToolExecution, next: Any) -> ToolExecutionResult:
        if exec.call_id == "own":
            return ToolExecutionResult(call_id=exec.call_id, content=[text_block("cached")], is_error=False)
        return ToolExecutionResult(call_id="someone-else", content=[text_block("x")], is_error=False)

    ctx.on("tools/execute", wrapper)
    own = await call(ctx, "echo", {"text": "x"}, call_id="own")
    assert not own.is_error and text_of(own) == "cached" and echo.calls == []
    foreign = await call(ctx, "echo", {"text": "x"}, call_id="mine")
    assert foreign.is_error and foreign.call_id == "mine"
    assert len(seen) == 2


async def test_non_json_content_from_body_fails_closed() -> None:
    ctx = boot()

    class Bad:
        name = "bad"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> Any:
            return [{"type": "text", "text": object()}]

    ctx.tools.register(Bad())
    result = await call(ctx, "bad", {})
    assert result.is_error


@pytest.mark.parametrize("event", ["tools/pre-execute", "tools/post-execute"])
async def test_harness_error_from_listener_carries_error_info(event: str) -> None:
    """"Errors (all subclass ``HarnessError(message, code)``; ``result.error`` carries
    ``ToolErrorInfo(name=type(e).__name__, code=e.code)``)"."""
    ctx, _, _ = setup()

    def raising(*args: object) -> Any:
        raise HarnessError("policy says no", "POLICY")

    ctx.on_event(event, raising)
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error
    assert result.error == ToolErrorInfo(name="HarnessError", code="POLICY")
    assert text_of(result) == "Error: policy says no"
