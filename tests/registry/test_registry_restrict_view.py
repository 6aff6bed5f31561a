"""``restrict`` and the resolution views: ``visible``/``schemas``/``get``/``known_names``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from dsh_tools.boot import boot
from dsh_tools.content import ContentBlock, text_block
from dsh_tools.errors import ToolNotFoundError
from dsh_tools.execution import ToolErrorInfo, ToolExecution, ToolExecutionInput, ToolExecutionResult
from dsh_tools.context.context import Agent, Context
from dsh_tools.testing import ScriptedCodeRuntime


class Tool:
    def __init__(self, name: str, *, text: str | None = None) -> None:
        self.name = name
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object", "properties": {}}
        self.text = text if text is not None else f"{name} ran"

    async def execute(self, args: Any, exec: ToolExecution) -> Sequence[ContentBlock]:
        return [text_block(self.text)]


def names(tools: Iterable[Any]) -> list[str]:
    return [t.name for t in tools]


def texts(result: ToolExecutionResult) -> list[str]:
    return [str(block.get("text")) for block in result.content]


async def run(ctx: Context, name: str, agent: Agent | None = None) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput("c1", name, {}, agent=agent))


@pytest.fixture
def ctx() -> Context:
    ctx = boot(mode="native", timeouts=False)
    for name in ("a", "b", "c"):
        ctx.tools.register(Tool(name))
    return ctx


@pytest.fixture
def agent(ctx: Context) -> Agent:
    return Agent(ctx, name="agent")


# -- restrict: validation -------------------------------------------------------


def test_restrict_on_a_plain_context_raises_runtime_error(ctx: Context) -> None:
    with pytest.raises(RuntimeError):
        ctx.tools.restrict(allow=["a"])
    with pytest.raises(RuntimeError):
        ctx.fork().tools.restrict(deny=["a"])


def test_restrict_with_neither_list_raises_value_error(ctx: Context, agent: Agent) -> None:
    with pytest.raises(ValueError):
        agent.ctx.tools.restrict()
    with pytest.raises(ValueError):
        agent.ctx.tools.restrict(allow=None, deny=None)
    assert names(agent.ctx.tools.visible()) == ["a", "b", "c"]


def test_empty_allow_is_valid_and_hides_every_global_tool(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.register(Tool("own"))
    agent.ctx.tools.restrict(allow=[])
    assert names(agent.ctx.tools.visible()) == ["own"]
    assert names(agent.ctx.tools.schemas()) == ["own"]
    assert agent.ctx.tools.get("a") is None
    assert names(ctx.tools.visible()) == ["a", "b", "c"]


def test_empty_deny_is_valid_and_hides_nothing(agent: Agent) -> None:
    agent.ctx.tools.restrict(deny=[])
    assert names(agent.ctx.tools.visible()) == ["a", "b", "c"]


def test_unknown_names_raise_listing_them(ctx: Context, agent: Agent) -> None:
    with pytest.raises(ValueError) as info:
        agent.ctx.tools.restrict(allow=["a", "zeta", "omega"])
    assert "zeta" in str(info.value) and "omega" in str(info.value)
    with pytest.raises(ValueError, match="nope"):
        agent.ctx.tools.restrict(deny=["nope"])
    # nothing was applied by the failed calls
    assert names(agent.ctx.tools.visible()) == ["a", "b", "c"]


def test_other_agents_tools_are_unknown_names(ctx: Context, agent: Agent) -> None:
    other = Agent(ctx, name="other")
    other.ctx.tools.register(Tool("theirs"))
    with pytest.raises(ValueError, match="theirs"):
        agent.ctx.tools.restrict(deny=["theirs"])


def test_a_failed_restrict_fires_no_change(ctx: Context, agent: Agent) -> None:
    seen: list[int] = []
    ctx.on("tools/change", lambda: seen.append(1))
    for bad in ({"allow": ["zz"]}, {}):
        with pytest.raises(ValueError):
            agent.ctx.tools.restrict(**bad)
    assert seen == []


# -- restrict: semantics --------------------------------------------------------


def test_allow_keeps_only_listed_and_deny_removes(ctx: Context, agent: Agent) -> None:
    lift = agent.ctx.tools.restrict(allow=["c", "a"])
    assert names(agent.ctx.tools.visible()) == ["a", "c"]  # registration order, not list order
    lift()
    agent.ctx.tools.restrict(deny=["b"])
    assert names(agent.ctx.tools.visible()) == ["a", "c"]


def test_multiple_restrictions_intersect(agent: Agent) -> None:
    agent.ctx.tools.restrict(allow=["a", "b"])
    lift = agent.ctx.tools.restrict(allow=["b", "c"])
    assert names(agent.ctx.tools.visible()) == ["b"]
    agent.ctx.tools.restrict(deny=["b"])
    assert names(agent.ctx.tools.visible()) == []
    lift()
    assert names(agent.ctx.tools.visible()) == ["a"]


def test_restrictions_are_per_agent(ctx: Context, agent: Agent) -> None:
    other = Agent(ctx, name="other")
    agent.ctx.tools.restrict(allow=["a"])
    assert names(other.ctx.tools.visible()) == ["a", "b", "c"]
    assert names(ctx.tools.visible()) == ["a", "b", "c"]
    assert names(ctx.tools.visible(agent)) == ["a"]


def test_restriction_is_snapshotted(agent: Agent) -> None:
    allow = ["a"]
    agent.ctx.tools.restrict(allow=allow)
    allow.append("b")
    assert names(agent.ctx.tools.visible()) == ["a"]


def test_restriction_applies_to_tools_registered_later(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.restrict(allow=["a"])
    ctx.tools.register(Tool("late"))
    assert names(agent.ctx.tools.visible()) == ["a"]
    other = Agent(ctx, name="other")
    other.ctx.tools.restrict(deny=["a"])
    assert names(other.ctx.tools.visible()) == ["b", "c", "late"]


async def test_scoped_tools_bypass_restrictions(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.register(Tool("own"))
    agent.ctx.tools.register(Tool("b", text="shadow"))
    agent.ctx.tools.restrict(allow=["a"])
    agent.ctx.tools.restrict(deny=["own", "b"])
    assert names(agent.ctx.tools.visible()) == ["a", "b", "own"]
    assert texts(await run(ctx, "b", agent)) == ["shadow"]
    assert texts(await run(ctx, "own", agent)) == ["own ran"]


async def test_restricted_away_tool_reads_as_absent(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.restrict(deny=["b"])
    assert agent.ctx.tools.get("b") is None
    assert ctx.tools.get("b", agent) is None
    assert ctx.tools.get("b") is not None
    result = await run(ctx, "b", agent)
    assert result.is_error
    assert result.error == ToolErrorInfo("ToolNotFoundError", "UNKNOWN_TOOL")
    assert texts(result) == [f"Error: {ToolNotFoundError('b')}"]
    assert not (await run(ctx, "b")).is_error


def test_known_names_is_the_pre_restriction_universe(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.register(Tool("own"))
    agent.ctx.tools.register(Tool("a", text="shadow"))
    agent.ctx.tools.restrict(allow=[])
    assert agent.ctx.tools.known_names() == ["a", "b", "c", "own"]
    assert ctx.tools.known_names(agent) == ["a", "b", "c", "own"]
    assert ctx.tools.known_names() == ["a", "b", "c"]
    # a restricted-away tool can still be named by a further restriction
    agent.ctx.tools.restrict(deny=["b"])


async def test_lifting_and_disposal_restore_the_view(ctx: Context, agent: Agent) -> None:
    lift = agent.ctx.tools.restrict(allow=["a"])
    agent.ctx.tools.restrict(deny=["a"])
    assert names(agent.ctx.tools.visible()) == []
    lift()
    assert names(agent.ctx.tools.visible()) == ["b", "c"]
    await agent.dispose()
    assert names(ctx.tools.visible(agent)) == ["a", "b", "c"]


def test_restrict_through_a_fork_of_agent_ctx_is_scoped(ctx: Context, agent: Agent) -> None:
    fork = agent.ctx.fork()
    fork.tools.restrict(allow=["c"])
    assert names(agent.ctx.tools.visible()) == ["c"]
    assert names(ctx.tools.visible()) == ["a", "b", "c"]


# -- ordering and identity --------------------------------------------------------


def test_visible_order_globals_then_scope_with_shadow_in_place(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.register(Tool("z_own"))
    agent.ctx.tools.register(Tool("b", text="shadow"))
    agent.ctx.tools.register(Tool("m_own"))
    visible = agent.ctx.tools.visible()
    assert names(visible) == ["a", "b", "c", "z_own", "m_own"]
    assert visible[1] is agent.ctx.tools.get("b")
    assert visible[1] is not ctx.tools.get("b")
    assert names(agent.ctx.tools.schemas()) == ["a", "b", "c", "z_own", "m_own"]
    assert ctx.tools.visible(agent) == visible
    assert names(ctx.tools.schemas(agent)) == names(visible)


def test_schemas_match_visible(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.register(Tool("own"))
    for tool, schema in zip(agent.ctx.tools.visible(), agent.ctx.tools.schemas(), strict=True):
        assert (schema.name, schema.description, schema.parameters) == (tool.name, tool.description, tool.parameters)


def test_get_returns_the_same_snapshot_objects_visible_lists(ctx: Context, agent: Agent) -> None:
    agent.ctx.tools.register(Tool("own"))
    agent.ctx.tools.register(Tool("a", text="shadow"))
    for scope in (None, agent):
        for tool in ctx.tools.visible(scope):
            assert ctx.tools.get(tool.name, scope) is tool
    before = ctx.tools.get("c")
    ctx.tools.register(Tool("d"))  # a change rebuilds views, not snapshots
    agent.ctx.tools.restrict(deny=["d"])
    assert ctx.tools.get("c") is before
    assert agent.ctx.tools.get("c") is before


def test_shadow_whose_global_twin_leaves_moves_to_the_scope_section(ctx: Context, agent: Agent) -> None:
    drop_a = ctx.fork().tools.register(Tool("x"))
    agent.ctx.tools.register(Tool("own"))
    agent.ctx.tools.register(Tool("x", text="shadow"))
    assert names(agent.ctx.tools.visible()) == ["a", "b", "c", "x", "own"]
    drop_a()
    assert names(agent.ctx.tools.visible()) == ["a", "b", "c", "own", "x"]


@pytest.mark.parametrize("mode", ["code", "both"])
async def test_run_code_comes_last_when_the_mode_has_it(mode: Any) -> None:
    ctx = boot(mode=mode, timeouts=False, code_runtime=ScriptedCodeRuntime())
    ctx.tools.register(Tool("g1"))
    ctx.tools.register(Tool("g2"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Tool("own"))
    agent.ctx.tools.register(Tool("g1", text="shadow"))
    agent.ctx.tools.restrict(allow=[])
    assert names(agent.ctx.tools.visible()) == ["g1", "own", "run_code"]
    assert names(agent.ctx.tools.schemas()) == ["g1", "own", "run_code"]
    assert names(ctx.tools.visible()) == ["g1", "g2", "run_code"]
    transport = ctx.tools.visible()[-1]
    assert ctx.tools.get("run_code") is transport
    assert agent.ctx.tools.get("run_code") is transport
    assert "run_code" not in ctx.tools.known_names()
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.restrict(deny=["run_code"])


def test_native_mode_has_no_transport(ctx: Context) -> None:
    assert ctx.tools.mode == "native"
    assert ctx.tools.get("run_code") is None
    assert "run_code" not in names(ctx.tools.visible())
