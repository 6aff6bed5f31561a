"""API.md "Host: contexts, scopes, services, events, signals" and "Contexts"."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from dsh_tools import (
    APPROVAL,
    CODE_RUNTIME,
    SYSTEM_PROMPT,
    TOOLS,
    AbortController,
    AbortSignal,
    Agent,
    Allow,
    Context,
    Disposer,
    PreToolDecision,
    SessionLog,
    SystemPrompt,
    TimeoutPolicy,
    ToolExecution,
    ToolExecutionResult,
    ToolRegistry,
    boot,
    scope_of,
)

from contract_support import Echo, call


def test_scope_of() -> None:
    ctx = Context()
    agent = Agent(ctx, name="reviewer")
    assert scope_of(ctx) is None
    assert scope_of(agent.ctx) is agent
    assert isinstance(agent.ctx, Context)
    assert isinstance(agent.session, SessionLog)
    # "Contexts derived from agent.ctx (agent.ctx.fork()) keep its scope."
    assert scope_of(agent.ctx.fork()) is agent
    assert scope_of(ctx.fork()) is None


async def test_disposers_are_sync_idempotent_and_reverse_ordered() -> None:
    ctx = boot()
    child = ctx.fork()
    assert isinstance(child.on("tools/change", lambda: None), Disposer)
    child.tools.register(Echo("first"))
    child.tools.register(Echo("second"))
    changes: list[list[str]] = []
    ctx.on("tools/change", lambda: changes.append(ctx.tools.known_names()))
    await child.dispose()
    # reverse order: "second" goes first, then "first"
    assert changes == [["first"], []]


async def test_disposer_call_is_sync_and_idempotent() -> None:
    ctx = boot()
    dispose = ctx.tools.register(Echo("echo"))
    dispose()
    dispose()  # idempotent
    assert ctx.tools.known_names() == []


async def test_disposing_context_disposes_registrations_of_descendants() -> None:
    ctx = boot()
    child = ctx.fork()
    grandchild = child.fork()
    grandchild.tools.register(Echo("echo"))
    assert ctx.tools.known_names() == ["echo"]
    await child.dispose()
    assert ctx.tools.known_names() == []


async def test_registering_through_disposed_context_raises_runtime_error() -> None:
    ctx = boot()
    child = ctx.fork()
    await child.dispose()
    with pytest.raises(RuntimeError):
        child.tools.register(Echo("echo"))
    with pytest.raises(RuntimeError):
        child.on("tools/change", lambda: None)
    agent = Agent(ctx, name="a")
    await agent.dispose()
    with pytest.raises(RuntimeError):
        agent.ctx.tools.register(Echo("echo"))


async def test_agent_dispose_removes_its_registrations() -> None:
    ctx = boot()
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Echo("mine"))
    assert ctx.tools.known_names(agent) == ["mine"]
    assert ctx.tools.known_names() == []
    await agent.dispose()
    assert ctx.tools.known_names(agent) == []


def test_services_and_sugar() -> None:
    ctx = Context()
    prompt = SystemPrompt(ctx)
    registry = ToolRegistry(ctx)
    assert ctx.get(TOOLS) is not None
    assert ctx.get(SYSTEM_PROMPT) is not None
    assert isinstance(ctx.tools, ToolRegistry)
    assert isinstance(ctx.system_prompt, SystemPrompt)
    assert ctx.get(APPROVAL) is None
    assert ctx.get(CODE_RUNTIME) is None
    del prompt, registry


def test_registry_requires_system_prompt() -> None:
    """"Requires a ``SystemPrompt`` on ``ctx`` (construct ``SystemPrompt(ctx)`` first)"."""
    with pytest.raises(Exception):
        ToolRegistry(Context())


async def test_service_through_agent_ctx_acts_as_that_context() -> None:
    ctx = boot()
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Echo("mine"))
    assert [t.name for t in ctx.tools.visible(agent)] == ["mine"]
    assert ctx.tools.visible() == []


async def test_services_are_app_wide_and_withdrawn_with_provider() -> None:
    """Settled: "a service provided through any context of a root (a fork included) is
    visible from every context of that root, and is withdrawn when the providing
    context is disposed"."""
    ctx = boot()
    fork = ctx.fork()
    sibling = ctx.fork()

    class Approver:
        async def request(self, request: Any) -> Any:
            return "allowed-once"

    approver = Approver()
    fork.provide(APPROVAL, approver)
    assert ctx.get(APPROVAL) is approver
    assert sibling.get(APPROVAL) is approver
    assert Agent(ctx, name="x").ctx.get(APPROVAL) is approver
    await fork.dispose()
    assert ctx.get(APPROVAL) is None
    assert sibling.get(APPROVAL) is None


async def test_fork_children_see_parent_services() -> None:
    ctx = boot()
    assert ctx.fork().fork().tools is not None
    assert ctx.fork().get(TOOLS) is not None


async def test_registry_built_on_fork_takes_its_contributions_with_it() -> None:
    """"a ``ToolRegistry`` or ``TimeoutPolicy`` built on a fork takes its prompt
    contributions and listeners with it"."""
    ctx = Context()
    SystemPrompt(ctx)
    fork = ctx.fork()
    ToolRegistry(fork)
    TimeoutPolicy(fork)
    fork.tools.register(Echo("echo"))
    assembly = await ctx.system_prompt.assemble()
    assert [t.name for t in assembly.tools] == ["echo"]
    await fork.dispose()
    assert ctx.get(TOOLS) is None
    assembly = await ctx.system_prompt.assemble()
    assert assembly.tools == ()


async def test_waterfall_registration_order_first_outermost_and_prepend() -> None:
    ctx = boot()
    ctx.tools.register(Echo("echo"))
    trace: list[str] = []

    def make(label: str) -> Any:
        async def listener(exec: ToolExecution, next: Callable[[], Awaitable[PreToolDecision]]) -> PreToolDecision:
            trace.append(f"{label}>")
            decision = await next()
            trace.append(f"<{label}")
            return decision

        return listener

    ctx.on("tools/pre-execute", make("a"))
    ctx.on("tools/pre-execute", make("b"))
    ctx.on("tools/pre-execute", make("p"), prepend=True)
    await call(ctx, "echo", {"text": "x"})
    assert trace == ["p>", "a>", "b>", "<b", "<a", "<p"]


async def test_scoped_listener_fires_only_for_its_agent_plain_for_all() -> None:
    ctx = boot()
    ctx.tools.register(Echo("echo"))
    a = Agent(ctx, name="a")
    b = Agent(ctx, name="b")
    seen_scoped: list[str] = []
    seen_plain: list[str] = []
    a.ctx.on("tools/result", lambda e, r: seen_scoped.append(e.call_id))
    ctx.on("tools/result", lambda e, r: seen_plain.append(e.call_id))
    await call(ctx, "echo", {"text": "x"}, call_id="none")
    await call(ctx, "echo", {"text": "x"}, call_id="by-a", agent=a)
    await call(ctx, "echo", {"text": "x"}, call_id="by-b", agent=b)
    assert seen_scoped == ["by-a"]
    assert seen_plain == ["none", "by-a", "by-b"]


async def test_listeners_may_be_sync_or_async() -> None:
    ctx = boot()
    ctx.tools.register(Echo("echo"))

    def sync_pre(exec: ToolExecution, next: Callable[[], Awaitable[PreToolDecision]]) -> PreToolDecision:
        return Allow()

    seen: list[str] = []

    async def async_result(exec: ToolExecution, result: ToolExecutionResult) -> None:
        seen.append("async")

    ctx.on("tools/pre-execute", sync_pre)
    ctx.on("tools/result", async_result)
    result = await call(ctx, "echo", {"text": "x"})
    assert not result.is_error
    assert seen == ["async"]


async def test_failing_result_observer_logged_once_at_warning(caplog: pytest.LogCaptureFixture) -> None:
    """"A failing ``tools/result`` observer is logged once at WARNING on ``ctx.logger``
    ..., and formatting that record never raises, even when the exception's ``str()`` does."""
    ctx = boot()
    ctx.tools.register(Echo("echo"))

    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str")

    def observer(exec: ToolExecution, result: ToolExecutionResult) -> None:
        raise Unprintable()

    ctx.on("tools/result", observer)
    with caplog.at_level(logging.WARNING, logger="dsh_tools"):
        result = await call(ctx, "echo", {"text": "x"})
    assert not result.is_error
    records = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(records) == 1
    assert records[0].name == ctx.logger.name
    records[0].getMessage()  # never raises
    logging.Formatter().format(records[0])


# -- signals ----------------------------------------------------------------------


async def test_abort_controller_and_signal() -> None:
    controller = AbortController()
    signal = controller.signal
    assert not controller.signal.aborted
    seen: list[object] = []
    dispose = signal.add_listener(seen.append)
    assert isinstance(dispose, Disposer)
    signal.throw_if_aborted()
    controller.abort("why")
    assert signal.aborted is True
    assert signal.reason == "why"
    assert seen == ["why"]
    assert await asyncio.wait_for(signal.wait(), 1) == "why"
    with pytest.raises(BaseException):
        signal.throw_if_aborted()


async def test_abort_default_reason_and_static_constructors() -> None:
    controller = AbortController()
    controller.abort()
    assert controller.signal.aborted
    assert controller.signal.reason is not None
    timed = AbortSignal.timeout(10, reason="late")
    assert not timed.aborted
    await asyncio.wait_for(timed.wait(), 1)
    assert timed.reason == "late"
    a, b = AbortController(), AbortController()
    either = AbortSignal.any([a.signal, b.signal])
    b.abort("b")
    assert either.aborted and either.reason == "b"
