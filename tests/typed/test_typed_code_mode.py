"""Code Mode gets data: a typed tool's binding resolves to its post-policy value.

The bridge tests use ``ScriptedCodeRuntime`` (Python programs); one test runs
real TypeScript in Deno to show a program computing over a typed value.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from dsh_tools import (
    Accept,
    Agent,
    AssembleContext,
    Context,
    HookContext,
    PluginSource,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    image_block,
    text_block,
    thaw_json,
)
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
from dsh_tools.content import ContentBlock
from dsh_tools.definitions import define_tool
from dsh_tools.json_values import JsonValue
from dsh_tools.testing import Bindings, ScriptedCodeRuntime
from typed_support import FileStat, PathArgs, stat


async def read(args: PathArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(f"contents of {args['path']}")]


async def screenshot(args: PathArgs, exec: ToolExecution) -> list[ContentBlock]:
    return [text_block(f"screenshot of {args['path']}"), image_block("AAAA", "image/png")]


TOOLS = [
    define_tool(name="stat", description="Stat a file.", args=PathArgs, output=FileStat, execute=stat),
    define_tool(name="read", description="Read a file.", args=PathArgs, execute=read),
    define_tool(name="screenshot", description="Screenshot.", args=PathArgs, execute=screenshot),
]


def setup(runtime: Any) -> tuple[Context, Agent]:
    ctx = boot(mode="code", code_runtime=runtime)
    for tool in TOOLS:
        ctx.tools.register(tool)
    return ctx, Agent(ctx, name="coder")


async def run_code(ctx: Context, agent: Agent, program: str) -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput("outer", "run_code", {"code": program}, agent=agent))


async def test_a_typed_binding_resolves_to_the_value_and_a_content_binding_to_text() -> None:
    got: dict[str, JsonValue] = {}

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        got["stat"] = await tools["stat"]({"path": "/abc"})
        got["read"] = await tools["read"]({"path": "/abc"})
        return CodeRunResult(logs=())

    ctx, agent = setup(ScriptedCodeRuntime({"p": program}))
    result = await run_code(ctx, agent, "p")
    assert not result.is_error
    assert thaw_json(got["stat"]) == {"path": "/abc", "lines": 4}
    assert got["read"] == "contents of /abc"


async def program_gets(post_execute: Any, path: str = "/abc") -> tuple[JsonValue, Agent]:
    """What a program's ``tools.stat({path})`` resolves to under a ``tools/post-execute`` listener."""
    got: list[JsonValue] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        got.append(await tools["stat"]({"path": path}))
        return CodeRunResult(logs=())

    ctx, agent = setup(ScriptedCodeRuntime({"p": program}))
    ctx.on("tools/post-execute", post_execute)
    await run_code(ctx, agent, "p")
    return got[0], agent


def replacing(decision: Accept) -> Any:
    """A ``tools/post-execute`` listener answering ``decision`` for ``stat``."""

    async def listener(execution: ToolExecution, result: ToolExecutionResult, next_: Any) -> Any:
        await next_()
        return decision if execution.name == "stat" else Accept()

    return listener


async def test_the_binding_gets_the_post_policy_value() -> None:
    got, _ = await program_gets(replacing(Accept(value={"path": "/policy", "lines": 0})))
    assert thaw_json(got) == {"path": "/policy", "lines": 0}


async def test_content_replacement_is_not_redaction_for_programs() -> None:
    got, agent = await program_gets(replacing(Accept(content=[text_block("[redacted]")])), path="/secret")
    assert thaw_json(got) == {"path": "/secret", "lines": 7}
    (kind, data), = agent.session.events()  # the dispatch log holds the content, never the value
    assert kind == "tool/code-dispatch" and thaw_json(data)["resultSummary"] == "[redacted]"  # type: ignore[index]


async def test_images_from_sub_calls_reach_the_outer_result_in_dispatch_order() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["screenshot"]({"path": "one"})
        await tools["read"]({"path": "no image here"})
        await tools["screenshot"]({"path": "two"})
        return CodeRunResult(logs=())

    ctx, agent = setup(ScriptedCodeRuntime({"p": program}))
    result = await run_code(ctx, agent, "p")
    assert not result.is_error and result.text == "(run_code completed with no output)"
    context = result.additional_context
    assert type(context) is HookContext and context.source == PluginSource("run_code")
    assert thaw_json(context.content) == [
        {"type": "text", "text": "screenshot of one"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "text", "text": "screenshot of two"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
    ]
    assert "additionalContext" in result.to_json()


async def test_a_run_without_images_has_no_additional_context() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["read"]({"path": "x"})
        return CodeRunResult(logs=())

    ctx, agent = setup(ScriptedCodeRuntime({"p": program}))
    assert (await run_code(ctx, agent, "p")).additional_context is None


async def test_the_sdk_section_declares_typed_returns() -> None:
    ctx, agent = setup(ScriptedCodeRuntime())
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    (sdk,) = [section.text for section in assembly.sections if section.name == "tools:sdk"]
    assert "  read(args: {\n    path: string;\n  }): Promise<string>;" in sdk
    assert "  stat(args: {\n    path: string;\n  }): Promise<{\n" in sdk
    assert "    lines: number;\n" in sdk


# -- real Deno ---------------------------------------------------------------------------


@pytest.fixture
async def deno() -> AsyncIterator[DenoCodeRuntime]:
    runtime = DenoCodeRuntime()
    yield runtime
    await runtime.dispose()


async def test_a_typescript_program_computes_over_typed_values(deno: DenoCodeRuntime) -> None:
    ctx, agent = setup(deno)
    program = """
    const stats = await Promise.all(["/a", "/bb", "/ccc"].map((path) => tools.stat({ path })));
    const text = await tools.read({ path: "/a" });
    return [stats.reduce((sum, s) => sum + s.lines, 0), typeof text, stats[2].path];
    """
    result = await run_code(ctx, agent, program)
    assert not result.is_error, result.text
    assert result.text == '[9,"string","/ccc"]'
