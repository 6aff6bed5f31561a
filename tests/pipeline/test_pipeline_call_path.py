"""A call's path is linear: its tool is resolved once, and a stage probe is told only what it hears.

The call is planned once, at admission (``CallPlan``): the timeout and retry
policies read the tool from the plan their ``next`` carries, and the body's
error boundary from the plan it is handed, so every attempt of a retried call
runs one definition, and the registry is asked once per call. The stages tell
each probe only the hooks it ``hears`` (the call journal: opened, starting,
progressed, settled), each with the call's state. A listener added while a call
runs joins from the next call: a call's chains are read once, with its plan.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

import pytest

from dsh_tools import (
    Agent,
    Context,
    ExecuteNext,
    Prop,
    Retry,
    RegisteredTool,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolRegistry,
    boot,
    define_tool,
    text_block,
)
from dsh_tools.context.probes import PROBE_HOOKS, ProbeHook
from dsh_tools.json_values import JsonValue
from dsh_tools.context.probes import CallSlots
from dsh_tools.pipeline import CallPlan, CallState, ExecuteStep, admit, plan_of
from dsh_tools.pipeline.plan import wraps


async def _ok(args: Mapping[str, JsonValue], execution: ToolExecution) -> list[Mapping[str, JsonValue]]:
    return [text_block("ok")]


@pytest.fixture
def ctx() -> Context:
    return boot()


def _counting_resolve(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``ToolRegistry.resolve`` from now on, by the name asked for."""
    asked: list[str] = []
    plain = ToolRegistry.resolve

    def resolve(self: ToolRegistry, name: str, agent: Agent | None) -> RegisteredTool | None:
        asked.append(name)
        return plain(self, name, agent)

    monkeypatch.setattr(ToolRegistry, "resolve", resolve)
    return asked


async def test_a_retried_call_with_a_timeout_resolves_its_tool_once(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = boot()  # the timeout and retry policies are both installed
    failures = [ConnectionError("reset"), ConnectionError("refused")]

    async def flaky(args: Mapping[str, JsonValue], execution: ToolExecution) -> list[Mapping[str, JsonValue]]:
        if failures:
            raise failures.pop(0)
        return [text_block("ok")]

    ctx.tools.register(define_tool(name="flaky", description="d", parameters={}, execute=flaky, timeout_ms=60_000, retry=Retry(3)))
    asked = _counting_resolve(monkeypatch)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "flaky", {}))
    assert not result.is_error and result.text == "ok"
    assert failures == []  # three attempts ran
    assert asked == ["flaky"]


async def test_every_attempt_runs_the_definition_resolved_when_dispatch_began() -> None:
    ctx = boot()
    runs: list[str] = []

    def body(label: str, fail: bool) -> Callable[[Mapping[str, JsonValue], ToolExecution], Awaitable[list[Mapping[str, JsonValue]]]]:
        async def run(args: Mapping[str, JsonValue], execution: ToolExecution) -> list[Mapping[str, JsonValue]]:
            runs.append(label)
            if fail:
                first()  # the tool is replaced while its call runs
                ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=body("second", False)))
                raise ConnectionError("reset")
            return [text_block(label)]

        return run

    first = ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=body("first", True), retry=Retry(2)))
    result = await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    # The replacement landed during the first attempt; the retry still ran the definition it was dispatched with.
    assert runs == ["first", "first"] and result.is_error
    later = await ctx.tools.execute(ToolExecutionInput("c2", "t", {}))
    assert runs[-1] == "second" and later.text == "second"  # the next call resolves anew


async def test_the_plan_is_reached_from_the_execution_only_while_the_call_runs(ctx: Context) -> None:
    seen: list[CallPlan | None] = []

    async def body(args: Mapping[str, JsonValue], execution: ToolExecution) -> list[Mapping[str, JsonValue]]:
        seen.append(plan_of(execution))
        return [text_block("ok")]

    ctx.tools.register(define_tool(name="t", description="d", parameters={"x": Prop("string")}, execute=body))
    await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    (plan,) = seen
    assert plan is not None and plan.tool is not None and plan.tool.name == "t" and plan.state.body_started
    assert plan.state.body_starts == 1 and plan.state.dispatched is None  # dispatch returned
    assert plan.token._channel is None  # settled: the token no longer leads to it


async def test_a_listener_added_while_a_call_runs_joins_from_the_next_call(ctx: Context) -> None:
    from dsh_tools import PostNext, PostToolDecision, ToolExecutionResult

    heard: list[tuple[str, str]] = []

    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        heard.append(("post", execution.call_id))
        return await next()

    def observe(execution: ToolExecution, result: ToolExecutionResult) -> None:
        heard.append(("result", execution.call_id))

    async def body(args: Mapping[str, JsonValue], execution: ToolExecution) -> list[Mapping[str, JsonValue]]:
        if execution.call_id == "c1":  # mid-call: this call's chains were read when it was planned
            ctx.on("tools/post-execute", post)
            ctx.on("tools/result", observe)
        return [text_block("ok")]

    ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=body))
    await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    await ctx.tools.execute(ToolExecutionInput("c2", "t", {}))
    assert heard == [("post", "c2"), ("result", "c2")]


async def test_a_plan_is_frozen_and_its_facts_go_on_its_state(ctx: Context) -> None:
    ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=_ok))
    execution = admit(ctx.tools, ToolExecutionInput("c1", "t", {})).unwrap()
    assert plan_of(execution) is None  # admitted, not yet planned
    plan = CallPlan(ctx.tools, execution)
    assert type(plan) is CallPlan  # built writable, then frozen: the class a stage checks for
    with pytest.raises(AttributeError, match="frozen"):
        plan.tool = None
    with pytest.raises(AttributeError, match="frozen"):
        del plan.state
    with pytest.raises(AttributeError):
        plan.extra = 1  # no slot for it, and frozen besides
    assert plan.call_id == "c1" and plan.token is execution.token and plan.host is ctx.tools
    assert isinstance(plan.state, CallState) and plan.resolve("t", None) is plan.tool
    assert plan.approval() is None and list(plan.guards_for(None)) == []


async def test_a_wrapper_outside_a_plan_resolves_through_its_context(ctx: Context) -> None:
    # A hand-made pipeline may run the library's wrappers with a next of its own: they resolve the tool then.
    seen: list[object] = []

    async def next_() -> object:
        seen.append("ran")
        return "result"

    ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=_ok))
    execution = admit(ctx.tools, ToolExecutionInput("c1", "t", {})).unwrap()
    wrappers = ctx.events.listeners("tools/execute")
    assert len(wrappers) == 2  # boot(): the retry and timeout policies
    for wrapper in wrappers:
        assert await wrapper(execution, lambda **_: next_()) == "result"
    assert seen == ["ran", "ran"]
    assert getattr(ExecuteStep, "plan", None) is not None


async def test_a_plan_leaves_out_the_policies_that_do_not_wrap_its_tool(ctx: Context) -> None:
    ctx.tools.register(define_tool(name="plain", description="d", parameters={}, execute=_ok))
    ctx.tools.register(define_tool(name="timed", description="d", parameters={}, execute=_ok, timeout_ms=1000))
    ctx.tools.register(define_tool(name="flaky", description="d", parameters={}, execute=_ok, retry=Retry(2)))
    plans = {name: CallPlan(ctx.tools, admit(ctx.tools, ToolExecutionInput("c", name, {})).unwrap()) for name in ("plain", "timed", "flaky")}
    owners = {name: [type(getattr(w, "__self__", None)).__name__ for w in plan.execute] for name, plan in plans.items()}
    assert owners == {"plain": [], "timed": ["TimeoutPolicy"], "flaky": ["RetryPolicy"]}


async def test_the_remembered_wrappers_agree_with_asking_them_and_are_forgotten_when_the_listeners_change(ctx: Context) -> None:
    unregister = ctx.tools.register(define_tool(name="timed", description="d", parameters={}, execute=_ok, timeout_ms=1000))
    ctx.tools.register(define_tool(name="flaky", description="d", parameters={}, execute=_ok, retry=Retry(2)))

    def planned(name: str) -> CallPlan:
        return CallPlan(ctx.tools, admit(ctx.tools, ToolExecutionInput("c", name, {})).unwrap())

    for name in ("timed", "flaky", "timed"):  # the second "timed" reads the memo
        plan = planned(name)
        assert plan.execute == wraps(ctx.events.call_chains(None)[1], plan.tool)  # type: ignore[arg-type]
    assert ctx.events.memo  # remembered

    async def around(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        return await next()

    ctx.on("tools/execute", around)
    assert not ctx.events.memo  # a listener changed: forgotten
    assert around in planned("timed").execute and around in planned("flaky").execute
    unregister()
    ctx.tools.register(define_tool(name="timed", description="d", parameters={}, execute=_ok))  # a new snapshot
    plan = planned("timed")
    assert plan.execute == (around,)  # its own answer: no timeout now, the listener's wrapper only


class _Hears:
    """A stage probe that hears only what it is asked to, and records what it is told."""

    def __init__(self, hears: frozenset[ProbeHook]) -> None:
        self.hears = hears
        self.told: list[str] = []

    def opened(self, call: CallSlots, execution: ToolExecution) -> None:
        self.told.append("opened")

    def pre_decided(self, call: CallSlots, execution: ToolExecution, decision: object) -> None:
        self.told.append("pre_decided")

    def starting(self, call: CallSlots, execution: ToolExecution) -> None:
        self.told.append("starting")

    def dispatching(self, call: CallSlots, execution: ToolExecution) -> object:
        self.told.append("dispatching")
        return None

    def dispatched(self, call: CallSlots, token: object) -> None:
        self.told.append("dispatched")

    def progressed(self, call: CallSlots, execution: ToolExecution, progress: object) -> None:
        self.told.append("progressed")

    def retrying(self, call: CallSlots, execution: ToolExecution, attempt: int, result: object) -> None:
        self.told.append("retrying")

    def post_decided(self, call: CallSlots, execution: ToolExecution, decision: object) -> None:
        self.told.append("post_decided")

    def settled(self, call: CallSlots, execution: ToolExecution, result: object) -> None:
        self.told.append("settled")


async def test_a_probe_is_told_only_the_hooks_it_hears(ctx: Context) -> None:
    ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=_ok))
    everything, some = _Hears(PROBE_HOOKS), _Hears(frozenset({"opened", "settled"}))
    ctx.events.add_probe(everything)
    remove = ctx.events.add_probe(some)
    await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    assert everything.told == ["opened", "pre_decided", "starting", "dispatching", "dispatched", "post_decided", "settled"]
    assert some.told == ["opened", "settled"]
    remove()
    await ctx.tools.execute(ToolExecutionInput("c2", "t", {}))
    assert some.told == ["opened", "settled"] and everything.told.count("settled") == 2
    assert ctx.events.hearing["pre_decided"] == (everything,)
    journal = ctx.events.probes[0]
    assert type(journal).__name__ == "CallJournal" and journal.hears == {"opened", "starting", "progressed", "settled"}
