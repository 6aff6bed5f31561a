"""``dsh_tools.testing.ScriptedCodeRuntime``: the documented test double for Code Mode."""

from __future__ import annotations

from typing import Any

from dsh_tools import RUN_CODE_NAME, ContentBlock, ToolExecution, ToolExecutionInput, boot, text_block
from dsh_tools.code_mode.runtime import CodeLogEntry, CodeRunRequest, CodeRunResult, CodeRuntime
from dsh_tools.testing import Bindings, ScriptedCodeRuntime


class Shout:
    name = "shout"
    description = "Upper-case the text."
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block(str(args["text"]).upper())]


async def test_a_scripted_program_calls_tools_through_the_registry() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        loud = await tools["shout"]({"text": "hi"})
        return CodeRunResult(logs=[CodeLogEntry("console", f"got {loud}", "log")], value=request.program)

    runtime = ScriptedCodeRuntime({"shout it": program})
    ctx = boot(mode="code", code_runtime=runtime)
    ctx.tools.register(Shout())
    result = await ctx.tools.execute(ToolExecutionInput("r", RUN_CODE_NAME, {"code": "shout it"}))
    assert not result.is_error
    assert "got HI" in result.text and "shout it" in result.text
    assert [request.program for request in runtime.requests] == ["shout it"]
    assert sorted(runtime.requests[0].bindings[0].functions) == ["shout"]


async def test_a_source_without_a_program_runs_nothing() -> None:
    runtime = ScriptedCodeRuntime()
    request = CodeRunRequest("anything", ())
    assert await runtime.run(request) == CodeRunResult(logs=())
    assert runtime.requests == [request]
    await runtime.dispose()


def test_it_is_a_typescript_code_runtime_unless_told_otherwise() -> None:
    runtime: CodeRuntime = ScriptedCodeRuntime()  # type-checks as the protocol
    assert (runtime.language, runtime.isolation) == ("typescript", "none")
    assert ScriptedCodeRuntime(language="python").language == "python"


async def test_programs_can_be_added_after_construction() -> None:
    async def later(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=(), value=len(tools))

    runtime = ScriptedCodeRuntime()
    runtime.programs["later"] = later
    assert (await runtime.run(CodeRunRequest("later", ()))).value == 0
