"""Issue 16 item 10: scope identity is identity, and hostile ``Agent`` subclasses give error results."""

from __future__ import annotations

from typing import Any

from dsh_tools import (
    Agent,
    ContentBlock,
    Deny,
    PreNext,
    PreToolDecision,
    PromptSection,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    boot,
    text_block,
)
from dsh_tools.system_prompt.records import AssembleContext

UNKNOWN = ToolErrorInfo("ToolNotFoundError", "UNKNOWN_TOOL")


class Tool:
    description = "a tool"
    parameters: dict[str, Any] = {"type": "object"}

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block(self.text)]


class Unhashable(Agent):
    __slots__ = ()

    def __hash__(self) -> int:
        raise RuntimeError("no hashing me")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no comparing me")


class Impostor(Agent):
    """Hashes like its victim and equals everything."""

    __slots__ = ("victim",)

    def __init__(self, ctx: Any, victim: Agent) -> None:
        super().__init__(ctx, name="impostor")
        self.victim = victim

    def __hash__(self) -> int:
        return hash(self.victim)

    def __eq__(self, other: object) -> bool:
        return True


async def test_an_agent_whose_hash_and_eq_raise_still_gets_results_scoped_by_identity() -> None:
    ctx = boot()
    ctx.tools.register(Tool("shared", "global"))
    hostile = Unhashable(ctx, name="hostile")
    hostile.ctx.tools.register(Tool("own", "its own"))
    hostile.ctx.on("tools/result", lambda e, r: None)
    hostile.ctx.tools.guard(lambda e: None)
    hostile.ctx.system_prompt.section(PromptSection("mine", 10, "hostile's section"))
    hostile.ctx.tools.present_as("native")  # per-agent presentation is keyed by identity too
    own = await ctx.tools.execute(ToolExecutionInput("c1", "own", {}, agent=hostile))
    shared = await ctx.tools.execute(ToolExecutionInput("c2", "shared", {}, agent=hostile))
    assert own.text == "its own" and shared.text == "global"
    batch = await ctx.tools.execute_batch([ToolExecutionInput("c3", "own", {}, agent=hostile)])
    assert batch[0].text == "its own"
    assert ctx.tools.execution_mode(ToolExecutionInput("c4", "own", {}, agent=hostile)) == "exclusive"
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=hostile))
    assert [s.name for s in assembly.sections] == ["mine"]
    await hostile.dispose()
    gone = await ctx.tools.execute(ToolExecutionInput("c5", "own", {}, agent=hostile))
    assert gone.error == UNKNOWN


async def test_an_agent_that_equals_another_does_not_get_its_tools_or_escape_its_deny() -> None:
    ctx = boot()
    ctx.tools.register(Tool("shared", "global"))
    victim = Agent(ctx, name="victim")
    victim.ctx.tools.register(Tool("secret", "victim's scoped tool"))

    def deny_shared(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return Deny("victim may not use shared")

    victim.ctx.on("tools/pre-execute", deny_shared)
    victim.ctx.tools.guard(lambda e: "victim's guard")
    impostor = Impostor(ctx, victim)
    stolen = await ctx.tools.execute(ToolExecutionInput("c1", "secret", {}, agent=impostor))
    assert stolen.error == UNKNOWN, "another agent's scoped tool is not reachable by equality"
    assert ctx.tools.get("secret", impostor) is None
    assert "secret" not in ctx.tools.known_names(impostor)
    # The victim's own calls are unaffected, and the impostor is not treated as the victim anywhere.
    assert (await ctx.tools.execute(ToolExecutionInput("c2", "shared", {}, agent=victim))).text == (
        "Error: victim may not use shared"
    )
    assert (await ctx.tools.execute(ToolExecutionInput("c3", "shared", {}, agent=impostor))).text == "global"


async def test_an_agent_subclass_with_a_lying_class_is_invalid_input() -> None:
    ctx = boot()
    ctx.tools.register(Tool("t", "ran"))

    class Liar:
        @property  # type: ignore[misc]
        def __class__(self) -> type:
            raise RuntimeError("what am I")

    result = await ctx.tools.execute(ToolExecutionInput("c", "t", {}, agent=Liar()))  # type: ignore[arg-type]
    assert result.is_error and "agent must be an Agent" in result.text
