"""Registration: frozen snapshots, validation, layers, disposal and ``tools/change``."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, ToolOutput, text_block
from dsh_tools.execution import ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.context.context import Agent, Context

Body = Callable[[Any, ToolExecution], Awaitable[Sequence[ContentBlock] | ToolOutput]]


class Tool:
    """A raw (non-``define_tool``) definition: plain attributes, replaceable later."""

    def __init__(
        self,
        name: Any,
        *,
        parameters: Any = None,
        timeout_ms: Any = None,
        text: str | None = None,
        description: str | None = None,
    ) -> None:
        self.name = name
        self.description = description if description is not None else f"the {name} tool"
        self.parameters: Any = parameters if parameters is not None else {"type": "object"}
        self.timeout_ms = timeout_ms
        self.text = text if text is not None else f"{name} ran"

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        return [text_block(self.text)]


def texts(result: ToolExecutionResult) -> list[str]:
    return [str(block.get("text")) for block in result.content]


async def run(ctx: Context, name: str, agent: Agent | None = None, call_id: str = "c1") -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput(call_id, name, {}, agent=agent))


@pytest.fixture
def ctx() -> Context:
    return boot(mode="native", timeouts=False)


class ChangeCounter:
    def __init__(self, ctx: Context) -> None:
        self.count = 0
        ctx.on("tools/change", self)

    def __call__(self) -> None:
        self.count += 1


# -- frozen snapshot ------------------------------------------------------------


async def test_mutating_parameters_after_register_changes_nothing(ctx: Context) -> None:
    params: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "string"}}}
    tool = Tool("read", parameters=params)
    ctx.tools.register(tool)
    params["properties"]["path"]["type"] = "number"
    params["required"] = ["path"]
    tool.parameters = {"type": "array"}
    tool.description = "changed"
    snap = ctx.tools.get("read")
    assert snap is not None
    expected: object = {"type": "object", "properties": {"path": {"type": "string"}}}
    assert snap.parameters == expected
    assert snap.description == "the read tool"
    assert ctx.tools.schemas()[0].parameters == snap.parameters


async def test_replacing_execute_after_register_changes_nothing(ctx: Context) -> None:
    tool = Tool("t", text="original")
    ctx.tools.register(tool)

    async def other(args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        return [text_block("replaced")]

    tool.execute = other  # type: ignore[method-assign]
    tool.text = "original"  # the bound receiver is the original definition
    result = await run(ctx, "t")
    assert texts(result) == ["original"]
    assert result.is_error is False


async def test_snapshot_is_frozen(ctx: Context) -> None:
    ctx.tools.register(Tool("t", parameters={"type": "object", "properties": {}}))
    snap = ctx.tools.get("t")
    assert snap is not None
    with pytest.raises(AttributeError):
        snap.name = "u"  # type: ignore[misc]
    parameters: Any = snap.parameters
    with pytest.raises((TypeError, AttributeError)):
        parameters["type"] = "array"
    with pytest.raises((TypeError, AttributeError)):
        parameters["properties"]["x"] = 1
    schema_parameters: Any = ctx.tools.schemas()[0].parameters
    with pytest.raises((TypeError, AttributeError)):
        schema_parameters["type"] = "array"


async def test_schemas_expose_only_name_description_parameters(ctx: Context) -> None:
    ctx.tools.register(Tool("t", timeout_ms=50, parameters={"type": "object"}))
    (schema,) = ctx.tools.schemas()
    assert schema.to_json() == {"name": "t", "description": "the t tool", "parameters": {"type": "object"}}
    assert not hasattr(schema, "timeout_ms")
    assert not hasattr(schema, "execute")
    assert not hasattr(schema, "present_call")
    snap = ctx.tools.get("t")
    assert snap is not None and snap.timeout_ms == 50


def _cycle() -> dict[str, Any]:
    value: dict[str, Any] = {"type": "object"}
    value["self"] = value
    return value


class _Dict(dict[str, Any]):
    pass


@pytest.mark.parametrize(
    "parameters",
    [
        {"type": "object", "default": math.nan},
        {"type": "object", "default": math.inf},
        {"type": "object", "enum": {1, 2}},
        {"type": "object", 1: "int key"},
        {"type": "object", "x": object()},
        {"type": "object", "x": b"bytes"},
        _Dict(type="object"),
        _cycle(),
    ],
    ids=["nan", "inf", "set", "int-key", "object", "bytes", "dict-subclass", "cycle"],
)
def test_non_json_parameters_raise_type_error_naming_the_tool(ctx: Context, parameters: Any) -> None:
    changes = ChangeCounter(ctx)
    with pytest.raises(TypeError, match="bad_params"):
        ctx.tools.register(Tool("bad_params", parameters=parameters))
    assert ctx.tools.get("bad_params") is None
    assert changes.count == 0


@pytest.mark.parametrize("name", ["", 0, None, b"t", ["t"]], ids=["empty", "int", "none", "bytes", "list"])
def test_bad_names_raise_value_error(ctx: Context, name: Any) -> None:
    with pytest.raises(ValueError):
        ctx.tools.register(Tool(name))
    assert ctx.tools.visible() == []


def test_duplicate_global_names_point_at_agent_ctx(ctx: Context) -> None:
    ctx.tools.register(Tool("t"))
    with pytest.raises(ValueError, match=r"agent\.ctx") as info:
        ctx.tools.register(Tool("t"))
    assert "t" in str(info.value)
    # a fork of a plain context is the same (global) layer
    with pytest.raises(ValueError, match=r"agent\.ctx"):
        ctx.fork().tools.register(Tool("t"))


def test_duplicate_in_one_agent_layer_raises(ctx: Context) -> None:
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Tool("mine"))
    with pytest.raises(ValueError, match="mine"):
        agent.ctx.tools.register(Tool("mine"))
    with pytest.raises(ValueError, match="mine"):
        agent.ctx.fork().tools.register(Tool("mine"))
    # another agent's layer is separate
    other = Agent(ctx, name="b")
    other.ctx.tools.register(Tool("mine"))


async def test_scoped_registration_shadows_global_for_that_agent_only(ctx: Context) -> None:
    ctx.tools.register(Tool("t", text="global"))
    a = Agent(ctx, name="a")
    b = Agent(ctx, name="b")
    a.ctx.tools.register(Tool("t", text="scoped"))
    assert texts(await run(ctx, "t", agent=a)) == ["scoped"]
    assert texts(await run(ctx, "t", agent=b)) == ["global"]
    assert texts(await run(ctx, "t")) == ["global"]
    a_view, global_view = a.ctx.tools.get("t"), ctx.tools.get("t")
    assert a_view is not None and global_view is not None
    assert a_view is not global_view
    assert ctx.tools.get("t", a) is a_view
    assert b.ctx.tools.get("t") is global_view
    assert [t.name for t in a.ctx.tools.visible()] == ["t"]


async def test_scoped_only_tool_is_invisible_to_others(ctx: Context) -> None:
    a = Agent(ctx, name="a")
    b = Agent(ctx, name="b")
    a.ctx.tools.register(Tool("private"))
    assert ctx.tools.get("private") is None
    assert b.ctx.tools.get("private") is None
    assert (await run(ctx, "private", agent=b)).error is not None
    assert (await run(ctx, "private")).is_error
    assert not (await run(ctx, "private", agent=a)).is_error


async def test_run_code_is_an_ordinary_name_in_native_mode(ctx: Context) -> None:
    ctx.tools.register(Tool("run_code", text="mine"))
    assert [t.name for t in ctx.tools.visible()] == ["run_code"]
    assert texts(await run(ctx, "run_code")) == ["mine"]


@pytest.mark.parametrize("mode", ["code", "both"])
def test_run_code_is_reserved_in_code_modes(mode: Any) -> None:
    ctx = boot(mode=mode, timeouts=False)
    with pytest.raises(ValueError, match="run_code"):
        ctx.tools.register(Tool("run_code"))
    agent = Agent(ctx, name="a")
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.register(Tool("run_code"))


@pytest.mark.parametrize(
    "timeout_ms", [0, -1, -0.5, math.nan, math.inf, -math.inf, True, "50", [50]],
    ids=["zero", "neg", "neg-float", "nan", "inf", "-inf", "bool", "str", "list"],
)
def test_bad_timeout_ms_raises_value_error(ctx: Context, timeout_ms: Any) -> None:
    with pytest.raises(ValueError, match="timeout_ms"):
        ctx.tools.register(Tool("slow", timeout_ms=timeout_ms))
    assert ctx.tools.get("slow") is None


@pytest.mark.parametrize("timeout_ms", [50, 2.5, 1e-3])
def test_good_timeout_ms_is_kept(ctx: Context, timeout_ms: float) -> None:
    ctx.tools.register(Tool("slow", timeout_ms=timeout_ms))
    snap = ctx.tools.get("slow")
    assert snap is not None and snap.timeout_ms == timeout_ms


def test_absent_timeout_ms_means_no_budget(ctx: Context) -> None:
    class Bare:
        name = "bare"
        description = "no budget attribute at all"
        parameters: Mapping[str, Any] = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
            return []

    ctx.tools.register(Bare())
    ctx.tools.register(Tool("none", timeout_ms=None))
    bare, none = ctx.tools.get("bare"), ctx.tools.get("none")
    assert bare is not None and bare.timeout_ms is None
    assert none is not None and none.timeout_ms is None


# -- disposal -------------------------------------------------------------------


def test_disposer_is_idempotent(ctx: Context) -> None:
    changes = ChangeCounter(ctx)
    dispose = ctx.tools.register(Tool("t", text="first"))
    dispose()
    assert ctx.tools.get("t") is None
    ctx.tools.register(Tool("t", text="second"))
    dispose()  # must not remove the new registration
    snap = ctx.tools.get("t")
    assert snap is not None
    assert changes.count == 3  # register, unregister, register


async def test_disposing_agent_ctx_removes_its_tools(ctx: Context) -> None:
    ctx.tools.register(Tool("g"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Tool("g", text="shadow"))
    agent.ctx.tools.register(Tool("own"))
    agent.ctx.fork().tools.register(Tool("forked"))
    assert [t.name for t in ctx.tools.visible(agent)] == ["g", "own", "forked"]
    await agent.dispose()
    assert [t.name for t in ctx.tools.visible(agent)] == ["g"]
    assert texts(await run(ctx, "g", agent=agent)) == ["g ran"]
    assert ctx.tools.get("own", agent) is None
    assert ctx.tools.known_names(agent) == ["g"]


async def test_registering_through_a_disposed_context_raises(ctx: Context) -> None:
    agent = Agent(ctx, name="a")
    tools = agent.ctx.tools
    await agent.dispose()
    with pytest.raises(RuntimeError):
        tools.register(Tool("late"))
    with pytest.raises(RuntimeError):
        agent.ctx.tools.register(Tool("late"))
    assert ctx.tools.get("late", agent) is None
    fork = ctx.fork()
    await fork.dispose()
    with pytest.raises(RuntimeError):
        fork.tools.register(Tool("late"))
    assert ctx.tools.get("late") is None


async def test_disposing_a_fork_removes_its_global_tools(ctx: Context) -> None:
    fork = ctx.fork()
    fork.tools.register(Tool("plugin_tool"))
    assert ctx.tools.get("plugin_tool") is not None
    await fork.dispose()
    assert ctx.tools.get("plugin_tool") is None


# -- tools/change -----------------------------------------------------------------


async def test_change_fires_once_per_mutation(ctx: Context) -> None:
    changes = ChangeCounter(ctx)
    ctx.tools.register(Tool("a"))
    assert changes.count == 1
    drop_b = ctx.tools.register(Tool("b"))
    assert changes.count == 2
    drop_b()
    assert changes.count == 3
    drop_b()
    assert changes.count == 3
    agent = Agent(ctx, name="x")
    lift = agent.ctx.tools.restrict(deny=["a"])
    assert changes.count == 4
    lift()
    assert changes.count == 5
    lift()
    assert changes.count == 5
    ctx.tools.guard(lambda e: None)  # a guard is not a tool-set change
    assert changes.count == 5


async def test_change_fires_once_per_thing_a_disposed_context_takes(ctx: Context) -> None:
    ctx.tools.register(Tool("g1"))
    ctx.tools.register(Tool("g2"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Tool("s1"))
    agent.ctx.tools.register(Tool("g1"))
    agent.ctx.tools.restrict(deny=["g2"])
    agent.ctx.tools.restrict(allow=["g1", "g2"])
    dropped = agent.ctx.tools.register(Tool("s2"))
    dropped()
    changes = ChangeCounter(ctx)
    await agent.dispose()
    assert changes.count == 4  # s1, the g1 shadow, two restrictions
    await agent.dispose()
    assert changes.count == 4


def test_change_listeners_are_unfiltered(ctx: Context) -> None:
    a = Agent(ctx, name="a")
    b = Agent(ctx, name="b")
    heard_by_a = ChangeCounter(a.ctx)
    heard_by_b = ChangeCounter(b.ctx)
    b.ctx.tools.register(Tool("bs"))
    ctx.tools.register(Tool("g"))
    assert heard_by_a.count == 2
    assert heard_by_b.count == 2


class Veto(Exception):
    pass


def test_raising_change_listener_rolls_back_register(ctx: Context) -> None:
    calls: list[str] = []

    def listener() -> None:
        calls.append("change")
        raise Veto("no")

    drop = ctx.on("tools/change", listener)
    with pytest.raises(Veto):
        ctx.tools.register(Tool("t"))
    assert calls == ["change"]  # the rollback emits no second change
    assert ctx.tools.get("t") is None
    assert ctx.tools.visible() == []
    assert ctx.tools.known_names() == []
    drop()
    ctx.tools.register(Tool("t"))  # not a duplicate: the first never stuck
    assert ctx.tools.get("t") is not None


async def test_raising_change_listener_rolls_back_scoped_register(ctx: Context) -> None:
    ctx.tools.register(Tool("t", text="global"))
    agent = Agent(ctx, name="a")
    seen: list[int] = []

    def listener() -> None:
        seen.append(1)
        raise Veto("no")

    ctx.on("tools/change", listener)
    with pytest.raises(Veto):
        agent.ctx.tools.register(Tool("t", text="shadow"))
    assert seen == [1]
    assert texts(await run(ctx, "t", agent=agent)) == ["global"]


def test_a_later_listener_veto_still_rolls_back(ctx: Context) -> None:
    order: list[str] = []
    ctx.on("tools/change", lambda: order.append("first"))

    def veto() -> None:
        order.append("veto")
        raise Veto("late")

    ctx.on("tools/change", veto)
    with pytest.raises(Veto, match="late"):
        ctx.tools.register(Tool("t"))
    assert order == ["first", "veto"]
    assert ctx.tools.get("t") is None


def _names(tools: Iterator[Any] | Sequence[Any]) -> list[str]:
    return [t.name for t in tools]


def test_registration_order_is_kept_across_unregister(ctx: Context) -> None:
    drop_a = ctx.tools.register(Tool("a"))
    ctx.tools.register(Tool("b"))
    drop_a()
    ctx.tools.register(Tool("a"))
    assert _names(ctx.tools.visible()) == ["b", "a"]
    assert _names(ctx.tools.schemas()) == ["b", "a"]


async def test_guard_and_restrict_through_a_disposed_context_leave_nothing_behind(ctx: Context) -> None:
    ctx.tools.register(Tool("t"))
    agent = Agent(ctx, name="a")
    tools = agent.ctx.tools
    await agent.dispose()
    with pytest.raises(RuntimeError):
        tools.guard(lambda e: "late agent guard")
    with pytest.raises(RuntimeError):
        tools.restrict(deny=["t"])
    assert ctx.tools.get("t", agent) is not None
    assert not (await run(ctx, "t", agent=agent)).is_error
    fork = ctx.fork()
    fork_tools = fork.tools
    await fork.dispose()
    with pytest.raises(RuntimeError):
        fork_tools.guard(lambda e: "late global guard")
    assert not (await run(ctx, "t")).is_error


def test_raising_change_listener_rolls_back_restrict(ctx: Context) -> None:
    ctx.tools.register(Tool("t"))
    agent = Agent(ctx, name="a")
    seen: list[int] = []

    def listener() -> None:
        seen.append(1)
        raise Veto("no")

    drop = ctx.on("tools/change", listener)
    with pytest.raises(Veto):
        agent.ctx.tools.restrict(deny=["t"])
    assert seen == [1]  # no second change for the rollback
    assert agent.ctx.tools.get("t") is not None
    drop()
