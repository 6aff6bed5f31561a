"""The gate of ``catalog="search"`` in the real runtimes: a program in real Deno and in real Monty searches,
describes and calls a tool the SDK does not declare; a pre-execute listener sees the call and the journal
keeps it. Then the runtimes' own edges: names a program makes up, Python's aliases, a replay."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from benchmarks.catalog_surfaces import large_catalog
from dsh_tools import (
    APPROVAL,
    RUN_CODE_NAME,
    Agent,
    ApprovalOutcome,
    ApprovalRequest,
    Ask,
    AssembleContext,
    ContentBlock,
    Context,
    DenoCodeRuntime,
    MontyCodeRuntime,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    boot,
    text_block,
)

CATALOG = large_catalog(1000)
UNDECLARED = "fs_extract_archive"


class Tool:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.name, self.description, self.parameters = spec["name"], spec["description"], spec["parameters"]

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block(f"{self.name} ran with {sorted(args)}")]


@pytest.fixture(params=["deno", "monty"])
async def runtime(request: pytest.FixtureRequest) -> AsyncIterator[DenoCodeRuntime | MontyCodeRuntime]:
    made = DenoCodeRuntime(compute_ms=5_000, max_wall_ms=30_000) if request.param == "deno" else MontyCodeRuntime(compute_ms=5_000, max_wall_ms=30_000)
    yield made
    await made.dispose()
    assert not made.live_pids


def make(runtime: DenoCodeRuntime | MontyCodeRuntime, heard: list[str]) -> tuple[Context, Agent]:
    ctx = boot(mode="code", code_runtime=runtime, catalog="search")
    for spec in CATALOG:
        ctx.tools.register(Tool(spec))

    async def listen(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        heard.append(exec.name)
        return await next()

    ctx.on("tools/pre-execute", listen)
    return ctx, Agent(ctx, name="finder", id="finder-1")


TYPESCRIPT = """
const hits = await tools.$search({ query: "unpack a tar.gz archive into a directory", limit: 3 });
const name = hits[0].name;
const declaration = await tools.$describe({ name });
console.log(name);
console.log(declaration.includes(name + "(args: {"));
console.log(await tools.$describe({ name: "no_such_tool" }));
return await tools[name]({ archive: "a.tgz", destination: "out" });
"""

PYTHON = """
hits = await tools.search_tools(query="unpack a tar.gz archive into a directory", limit=3)
name = hits[0]["name"]
declaration = await tools.describe_tool(name=name)
print(name)
print(("async def " + name + "(") in declaration)
print(await tools.describe_tool(name="no_such_tool"))
return await tools[name](archive="a.tgz", destination="out")
"""


async def test_a_program_searches_describes_and_calls_a_tool_the_sdk_does_not_declare(
    runtime: DenoCodeRuntime | MontyCodeRuntime,
) -> None:
    heard: list[str] = []
    ctx, agent = make(runtime, heard)
    assembly = await agent.ctx.system_prompt.assemble()
    sdk = next(section.text for section in assembly.sections if section.name == "tools:sdk")
    assert len(sdk) <= 6000 and UNDECLARED not in sdk
    program = TYPESCRIPT if runtime.language == "typescript" else PYTHON
    result = await ctx.tools.execute(ToolExecutionInput("c1", RUN_CODE_NAME, {"code": program}, agent))
    assert not result.is_error, result.text
    null = "null" if runtime.language == "typescript" else "None"
    truth = "true" if runtime.language == "typescript" else "True"
    assert result.text.splitlines() == [UNDECLARED, truth, null, f"{UNDECLARED} ran with ['archive', 'destination']"]
    assert heard == [RUN_CODE_NAME, UNDECLARED]
    journal = await ctx.tools.store.journal(agent_id="finder-1")
    assert [(record.tool_name, record.parent_call_id, record.outcome) for record in journal] == [
        (UNDECLARED, "c1", "ok"), (RUN_CODE_NAME, None, "ok"),
    ]
    assert result.meta is not None and result.meta["dispatches"] == 1  # type: ignore[index, call-overload]


async def test_names_a_program_makes_up_reject_as_unknown_tools(runtime: DenoCodeRuntime | MontyCodeRuntime) -> None:
    ctx, agent = make(runtime, [])
    agent.ctx.tools.restrict(deny=[UNDECLARED])
    if runtime.language == "typescript":
        program = """
        const out = [];
        for (const name of ["fs_extract_archive", "made_up", "\\u{1F600}", "$nothing", "a".repeat(5000)]) {
          try { await tools[name]({}); } catch (e) { out.push(String(e).slice(0, 60)); }
        }
        try { await tools["\\ud800"]({}); } catch (e) { out.push(e.name); }
        return out.join("|");
        """
    else:
        program = """
out = []
for name in ["fs_extract_archive", "made_up", "\\U0001F600", "$nothing", "a" * 5000]:
    try:
        await tools[name]()
    except Exception as e:
        out.append(str(e)[:60])
try:
    tools.made_up
except AttributeError:
    out.append("AttributeError")
return "|".join(out)
"""
    result = await ctx.tools.execute(ToolExecutionInput("c1", RUN_CODE_NAME, {"code": program}, agent))
    parts = result.text.split("|")
    assert parts[:4] == [
        'Error: unknown tool "fs_extract_archive"', 'Error: unknown tool "made_up"', 'Error: unknown tool "\U0001f600"',
        'Error: unknown tool "$nothing"',
    ]
    assert "a" * 20 in parts[4]  # refused, whichever side refused it
    assert parts[5] in ("TypeError", "AttributeError")


async def test_python_reaches_a_tool_named_like_a_builtin_by_item(runtime: DenoCodeRuntime | MontyCodeRuntime) -> None:
    if runtime.language != "python":
        pytest.skip("Python's spelling of the built-ins")
    ctx = boot(mode="code", code_runtime=runtime, catalog="search")
    ctx.tools.register(Tool({"name": "search_tools", "description": "Polishes quasars.", "parameters": {}}))
    program = """
mine = await tools["search_tools"]()
found = await tools.search_tools(query="polish quasars")
return [mine, found]
"""
    result = await ctx.tools.execute(ToolExecutionInput("c1", RUN_CODE_NAME, {"code": program}))
    assert result.text == '["search_tools ran with []",[{"name":"search_tools","description":"Polishes quasars."}]]'


class Later:
    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        return "deferred"


async def test_builtins_run_live_on_a_replay(runtime: DenoCodeRuntime | MontyCodeRuntime) -> None:
    heard: list[str] = []
    ctx, agent = make(runtime, heard)

    async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("moves files") if exec.name == UNDECLARED else await next()

    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, Later())
    program = TYPESCRIPT if runtime.language == "typescript" else PYTHON
    parked = await ctx.tools.execute(ToolExecutionInput("c1", RUN_CODE_NAME, {"code": program}, agent))
    assert parked.outcome == "approval-pending"
    (pending,) = await ctx.tools.pending_approvals(agent)
    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    assert result.text.splitlines()[1] == UNDECLARED  # the rerun searched again, live, and found the same tool
    assert result.text.splitlines()[-1] == f"{UNDECLARED} ran with ['archive', 'destination']"
    sdk = next(s.text for s in (await ctx.system_prompt.assemble(AssembleContext(scope=agent))).sections if s.name == "tools:sdk")
    assert "tools.$search" in sdk or "tools.search_tools" in sdk
