"""API.md "The registry" and "Details that outside code relies on": registration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from dsh_tools import (
    RUN_CODE_NAME,
    Agent,
    ContentBlock,
    Context,
    SystemPrompt,
    ToolExecution,
    ToolRegistry,
    ToolSchema,
    boot,
    text_block,
)
from dsh_tools.testing import ScriptedCodeRuntime
from dsh_tools.json_values import thaw_json

from contract_support import Echo, call, text_of


def counting(ctx: Context) -> list[int]:
    counter = [0]

    def on_change() -> None:
        counter[0] += 1

    ctx.on("tools/change", on_change)
    return counter


# -- registration errors ------------------------------------------------------------


def test_non_json_parameters_is_type_error() -> None:
    ctx = boot()
    tool = Echo("bad")
    tool.parameters = {"type": "object", "default": float("nan")}
    with pytest.raises(TypeError):
        ctx.tools.register(tool)
    tool.parameters = {"type": "object", "x": object()}
    with pytest.raises(TypeError):
        ctx.tools.register(tool)


@pytest.mark.parametrize("name", ["", 3, None, b"x"], ids=["empty", "int", "none", "bytes"])
def test_bad_tool_name_is_value_error(name: Any) -> None:
    """Settled: "A tool name is a non-empty ``str``; anything else raises ``ValueError``."""
    ctx = boot()
    tool = Echo("x")
    tool.name = name
    with pytest.raises(ValueError):
        ctx.tools.register(tool)


def test_duplicate_in_one_layer_is_value_error_naming_tool() -> None:
    ctx = boot()
    ctx.tools.register(Echo("grep"))
    with pytest.raises(ValueError, match="grep"):
        ctx.tools.register(Echo("grep"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Echo("mine"))
    with pytest.raises(ValueError, match="mine"):
        agent.ctx.tools.register(Echo("mine"))


def test_global_duplicate_message_points_at_agent_ctx() -> None:
    ctx = boot()
    ctx.tools.register(Echo("grep"))
    with pytest.raises(ValueError, match=r"agent\.ctx"):
        ctx.tools.register(Echo("grep"))


@pytest.mark.parametrize("mode", ["code", "both"])
def test_reserved_name_is_value_error_naming_run_code(mode: Any) -> None:
    ctx = boot(mode=mode)
    with pytest.raises(ValueError, match="run_code"):
        ctx.tools.register(Echo(RUN_CODE_NAME))
    agent = Agent(ctx, name="a")
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.register(Echo(RUN_CODE_NAME))


@pytest.mark.parametrize("budget", [0, -1, float("inf"), float("nan"), "100", True], ids=str)
def test_raw_register_checks_timeout_ms(budget: Any) -> None:
    """Settled: "``register`` of a raw definition checks ``timeout_ms`` like ``define_tool`` does."""
    ctx = boot()
    with pytest.raises(ValueError, match="timeout_ms"):
        ctx.tools.register(Echo("slow", timeout_ms=budget))


def test_restrict_errors() -> None:
    ctx = boot()
    ctx.tools.register(Echo("read"))
    with pytest.raises(RuntimeError):
        ctx.tools.restrict(allow=["read"])
    agent = Agent(ctx, name="a")
    with pytest.raises(ValueError):
        agent.ctx.tools.restrict()
    with pytest.raises(ValueError, match="nosuch"):
        agent.ctx.tools.restrict(allow=["read", "nosuch"])
    with pytest.raises(ValueError, match="typo"):
        agent.ctx.tools.restrict(deny=["typo"])


@pytest.mark.parametrize("mode", ["code", "both"])
def test_restrict_naming_run_code_fails_loudly(mode: Any) -> None:
    ctx = boot(mode=mode)
    agent = Agent(ctx, name="a")
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.restrict(deny=[RUN_CODE_NAME])


def test_restrict_allow_empty_hides_every_global_tool() -> None:
    ctx = boot()
    ctx.tools.register(Echo("read"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Echo("mine"))
    agent.ctx.tools.restrict(allow=[])
    assert [t.name for t in ctx.tools.visible(agent)] == ["mine"]
    # known_names is the pre-restriction universe
    assert ctx.tools.known_names(agent) == ["read", "mine"]
    assert ctx.tools.get("read", agent) is None


def test_restrictions_intersect_and_scoped_registrations_bypass() -> None:
    ctx = boot()
    for name in ("a", "b", "c"):
        ctx.tools.register(Echo(name))
    agent = Agent(ctx, name="x")
    agent.ctx.tools.restrict(allow=["a", "b"])
    agent.ctx.tools.restrict(allow=["b", "c"])
    assert [t.name for t in ctx.tools.visible(agent)] == ["b"]
    agent.ctx.tools.register(Echo("a"))  # shadowing global "a": an explicit grant
    assert [t.name for t in ctx.tools.visible(agent)] == ["b", "a"] or [t.name for t in ctx.tools.visible(agent)] == ["a", "b"]
    assert ctx.tools.get("a", agent) is not None


# -- views and ordering -----------------------------------------------------------------


def test_visible_order_global_then_scope_shadow_takes_place_then_run_code() -> None:
    ctx = boot(mode="both", code_runtime=ScriptedCodeRuntime())
    ctx.tools.register(Echo("g1"))
    ctx.tools.register(Echo("g2"))
    ctx.tools.register(Echo("g3"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Echo("s1"))
    shadow = Echo("g2")
    agent.ctx.tools.register(shadow)
    agent.ctx.tools.register(Echo("s2"))
    names = [t.name for t in ctx.tools.visible(agent)]
    assert names == ["g1", "g2", "g3", "s1", "s2", RUN_CODE_NAME]
    assert [s.name for s in ctx.tools.schemas(agent)] == names
    assert [t.name for t in ctx.tools.visible()] == ["g1", "g2", "g3", RUN_CODE_NAME]


async def test_shadowing_tool_is_what_the_agent_gets() -> None:
    ctx = boot()
    ctx.tools.register(Echo("g"))
    agent = Agent(ctx, name="a")
    shadow = Echo("g")
    shadow.description = "scoped"
    agent.ctx.tools.register(shadow)
    tool = ctx.tools.get("g", agent)
    assert tool is not None and tool.description == "scoped"
    result = await call(ctx, "g", {"text": "x"}, agent=agent)
    assert len(shadow.calls) == 1 and not result.is_error


def test_get_returns_same_snapshot_objects_visible_lists() -> None:
    ctx = boot()
    ctx.tools.register(Echo("a"))
    ctx.tools.register(Echo("b"))
    visible = ctx.tools.visible()
    assert ctx.tools.get("a") is visible[0]
    assert ctx.tools.get("b") is visible[1]
    assert ctx.tools.get("missing") is None


def test_get_keeps_timeout_ms() -> None:
    ctx = boot()
    ctx.tools.register(Echo("slow", timeout_ms=250))
    ctx.tools.register(Echo("none", timeout_ms=None))

    class NoBudget:
        name = "bare"
        description = "d"
        parameters: Mapping[str, Any] = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            return []

    ctx.tools.register(NoBudget())
    slow = ctx.tools.get("slow")
    assert slow is not None and getattr(slow, "timeout_ms") == 250
    assert getattr(ctx.tools.get("none"), "timeout_ms", None) is None
    assert getattr(ctx.tools.get("bare"), "timeout_ms", None) is None


def test_schemas_expose_only_name_description_parameters_detached() -> None:
    ctx = boot()
    tool = Echo("slow", timeout_ms=100)
    ctx.tools.register(tool)
    (schema,) = ctx.tools.schemas()
    assert type(schema) is ToolSchema
    assert schema.to_json() == {"name": "slow", "description": tool.description, "parameters": thaw_json(schema.parameters)}
    assert thaw_json(schema.parameters) == tool.parameters
    assert not hasattr(schema, "timeout_ms")
    assert not hasattr(schema, "execute")
    # detached: mutating the definition's dict later changes nothing
    params: Any = tool.parameters
    params["properties"]["text"]["type"] = "number"
    fresh: Any = thaw_json(ctx.tools.schemas()[0].parameters)
    assert fresh["properties"]["text"]["type"] == "string"


async def test_registration_snapshots_the_definition() -> None:
    """"replacing ``definition.execute`` later changes nothing"."""
    ctx = boot()
    tool = Echo("e")
    ctx.tools.register(tool)

    async def other(args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("replaced")]

    tool.execute = other  # type: ignore[method-assign]
    tool.description = "changed"
    result = await call(ctx, "e", {"text": "x"})
    assert text_of(result) == "e:x"
    schema = ctx.tools.schemas()[0]
    assert schema.description == "Echo the text back."


def test_registry_mode_property() -> None:
    for mode in ("native", "code", "both"):
        ctx = Context()
        SystemPrompt(ctx)
        assert ToolRegistry(ctx, mode=mode).mode == mode


# -- tools/change ---------------------------------------------------------------------------


async def test_tools_change_once_per_register_unregister_restrict_lift() -> None:
    ctx = boot()
    counter = counting(ctx)
    dispose = ctx.tools.register(Echo("a"))
    assert counter == [1]
    ctx.tools.register(Echo("b"))
    assert counter == [2]
    dispose()
    assert counter == [3]
    dispose()
    assert counter == [3]
    agent = Agent(ctx, name="x")
    lift = agent.ctx.tools.restrict(deny=["b"])
    assert counter == [4]
    lift()
    assert counter == [5]
    child = agent.ctx.fork()
    child.tools.register(Echo("c"))
    child.tools.register(Echo("d"))
    child.tools.restrict(allow=["b"])
    assert counter == [8]
    await child.dispose()
    assert counter == [11]


def test_raising_change_listener_rolls_back_register_and_propagates() -> None:
    ctx = boot()
    counter = counting(ctx)
    calls = [0]

    def boom() -> None:
        calls[0] += 1
        raise KeyError("listener failed")

    dispose = ctx.on("tools/change", boom)
    with pytest.raises(KeyError):
        ctx.tools.register(Echo("a"))
    assert ctx.tools.known_names() == []
    # Settled: "the rollback emits no second tools/change"
    assert calls == [1]
    assert counter == [1]
    dispose()
    ctx.tools.register(Echo("a"))
    assert ctx.tools.known_names() == ["a"]
