"""A call's path is linear: its tool is resolved once, and a stage probe is told only what it hears.

``dispatch`` resolves the tool when it starts and keeps the plan
(``DispatchProgress``) open under the call's token; the timeout and retry
policies and the body's error boundary read it instead of asking the registry
again, so every attempt of a retried call runs one definition, and the
registry is asked once per call. The stages tell each probe only the hooks it
``hears`` (the call journal: opened, progressed, settled).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

import pytest

from dsh_tools import (
    Agent,
    Context,
    Prop,
    Retry,
    RegisteredTool,
    ToolExecution,
    ToolExecutionInput,
    ToolRegistry,
    boot,
    define_tool,
    text_block,
)
from dsh_tools.context.events import PROBE_HOOKS, ProbeHook
from dsh_tools.json_values import JsonValue
from dsh_tools.pipeline import DispatchProgress, admit, dispatching
from dsh_tools.pipeline.dispatch import dispatched_tool


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


async def test_the_plan_is_open_only_while_the_call_dispatches(ctx: Context) -> None:
    seen: list[DispatchProgress | None] = []

    async def body(args: Mapping[str, JsonValue], execution: ToolExecution) -> list[Mapping[str, JsonValue]]:
        seen.append(dispatching(execution))
        return [text_block("ok")]

    ctx.tools.register(define_tool(name="t", description="d", parameters={"x": Prop("string")}, execute=body))
    await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    (plan,) = seen
    assert plan is not None and plan.tool is not None and plan.tool.name == "t" and plan.body_started
    assert plan.execution is not None and dispatching(plan.execution) is None  # closed once dispatch returned


async def test_outside_a_dispatch_a_wrapper_resolves_through_its_context(ctx: Context) -> None:
    ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=_ok))
    execution = admit(ctx.tools, ToolExecutionInput("c1", "t", {})).unwrap()
    assert dispatching(execution) is None
    found = dispatched_tool(execution, ctx)
    assert found is not None and found.name == "t"
    missing = admit(ctx.tools, ToolExecutionInput("c2", "nope", {})).unwrap()
    assert dispatched_tool(missing, ctx) is None


class _Hears:
    """A stage probe that hears only what it is asked to, and records what it is told."""

    def __init__(self, hears: frozenset[ProbeHook]) -> None:
        self.hears = hears
        self.told: list[str] = []

    def opened(self, execution: ToolExecution) -> None:
        self.told.append("opened")

    def pre_decided(self, execution: ToolExecution, decision: object) -> None:
        self.told.append("pre_decided")

    def dispatching(self, execution: ToolExecution) -> object:
        self.told.append("dispatching")
        return None

    def dispatched(self, token: object) -> None:
        self.told.append("dispatched")

    def progressed(self, execution: ToolExecution, progress: object) -> None:
        self.told.append("progressed")

    def retrying(self, execution: ToolExecution, attempt: int, result: object) -> None:
        self.told.append("retrying")

    def post_decided(self, execution: ToolExecution, decision: object) -> None:
        self.told.append("post_decided")

    def settled(self, execution: ToolExecution, result: object) -> None:
        self.told.append("settled")


async def test_a_probe_is_told_only_the_hooks_it_hears(ctx: Context) -> None:
    ctx.tools.register(define_tool(name="t", description="d", parameters={}, execute=_ok))
    everything, some = _Hears(PROBE_HOOKS), _Hears(frozenset({"opened", "settled"}))
    ctx.events.add_probe(everything)
    remove = ctx.events.add_probe(some)
    await ctx.tools.execute(ToolExecutionInput("c1", "t", {}))
    assert everything.told == ["opened", "pre_decided", "dispatching", "dispatched", "post_decided", "settled"]
    assert some.told == ["opened", "settled"]
    remove()
    await ctx.tools.execute(ToolExecutionInput("c2", "t", {}))
    assert some.told == ["opened", "settled"] and everything.told.count("settled") == 2
    assert ctx.events.hearing["pre_decided"] == (everything,)
    journal = ctx.events.probes[0]
    assert type(journal).__name__ == "CallJournal" and journal.hears == {"opened", "progressed", "settled"}
