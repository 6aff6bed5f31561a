"""Strictly typed user code, written against API.md only (checked by ``mypy --strict``).

It is also executable: ``tests/contract/test_contract_typing.py`` imports it and
runs :func:`main` to show the typed code does what it says.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Literal, NotRequired, Required, TypedDict

from returns.result import Failure, Result, Success

from dsh_tools import (
    APPROVAL,
    CODE_RUNTIME,
    KEEP,
    TOOL_ORDER_REST,
    AbortSignal,
    Accept,
    Agent,
    Allow,
    ApprovalRequest,
    ApprovalService,
    Ask,
    AssembleContext,
    AssembledSection,
    Block,
    CodeLogEntry,
    CodeRunFailure,
    CodeRunRequest,
    CodeRunResult,
    CodeRuntime,
    ContentBlock,
    Context,
    Deny,
    ExecuteNext,
    GenericCallView,
    HookContext,
    JsonValue,
    PluginSource,
    PostToolDecision,
    PreToolDecision,
    PromptAssembly,
    PromptSection,
    Prop,
    SchemaSpec,
    TerminalResultView,
    ToolDefinition,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolOutput,
    ToolProviderResult,
    ToolResult,
    ToolSchema,
    boot,
    define_tool,
    render_prompt,
    text_block,
)
from dsh_tools.pipeline import Gate, PipelineHost, Settled, check_guards, error_result, execute_call, pre_execute
from dsh_tools_codegen import render_tools_sdk

# -- tools ------------------------------------------------------------------------------------


class ReadArgs(TypedDict):
    path: Required[Annotated[str, Prop(description="Absolute file path")]]
    offset: NotRequired[int]
    mode: NotRequired[Literal["text", "bytes"]]


async def read(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
    offset: int = args.get("offset", 0)
    return [text_block(f"read {args['path']} from {offset}")]


def present_read(args: ReadArgs) -> GenericCallView:
    return GenericCallView(title=args["path"], kind="read")


def present_read_result(args: ReadArgs, result: ToolResult) -> TerminalResultView | None:
    return None if result.is_error else TerminalResultView(output=args["path"])


read_file = define_tool(
    name="read_file",
    description="Read a file.",
    args=ReadArgs,
    execute=read,
    timeout_ms=5_000,
    present_call=present_read,
    present_result=present_read_result,
)

SPEC: SchemaSpec = {
    "query": Prop("string", required=True, description="What to look for"),
    "limit": Prop("integer"),
}


async def search(args: Mapping[str, JsonValue], exec: ToolExecution) -> ToolOutput:
    return ToolOutput(content=[text_block(f"searched {args['query']}")], meta={"hits": 0})


search_tool = define_tool(name="search", description="Search.", parameters=SPEC, execute=search)


class RawTool:
    """A raw definition (the MCP shape): anything with these attributes registers."""

    name = "raw"
    description = "A raw tool."
    parameters: Mapping[str, JsonValue] = {"type": "object", "properties": {}}
    timeout_ms: float | None = None

    async def execute(self, args: JsonValue, exec: ToolExecution) -> Sequence[ContentBlock]:
        return [text_block("raw")]


raw_definition: ToolDefinition = RawTool()

# -- listeners of every event --------------------------------------------------------------------


async def gate(exec: ToolExecution, next: Callable[[], Awaitable[PreToolDecision]]) -> PreToolDecision:
    if exec.name == "danger":
        return Deny(reason="never")
    if exec.name == "ask-first":
        return Ask(reason="please confirm")
    decision: PreToolDecision = await next()
    return decision if decision != Allow() else Allow()


async def around(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
    if exec.name == "raw":
        return await next(signal=None)
    if exec.signal is None:
        return await next(signal=KEEP)
    deadline: AbortSignal = AbortSignal.any([exec.signal, AbortSignal.timeout(60_000)])
    return await next(signal=deadline)


async def after(
    exec: ToolExecution, result: ToolExecutionResult, next: Callable[[], Awaitable[PostToolDecision]]
) -> PostToolDecision:
    if result.is_error and exec.name == "search":
        return Block(feedback=[text_block("search failed; try another query")])
    if exec.name == "read_file":
        note = HookContext(content=[text_block("read happened")], source=PluginSource(plugin="audit"))
        return Accept(additional_context=note)
    return await next()


RESULTS: list[ToolExecutionResult] = []


def observe(exec: ToolExecution, result: ToolExecutionResult) -> None:
    RESULTS.append(result)


async def observe_async(exec: ToolExecution, result: ToolExecutionResult) -> None:
    return None


CHANGES: list[int] = []


def on_change() -> None:
    CHANGES.append(1)


async def assemble(
    context: AssembleContext, assembly: PromptAssembly, next: Callable[[], Awaitable[PromptAssembly]]
) -> PromptAssembly:
    inner = await next()
    return PromptAssembly(
        sections=inner.sections + (AssembledSection("footer", 1_000, "Be brief."),),
        tools=inner.tools,
    )


def read_only(exec: ToolExecution) -> str | None:
    return "read-only mode" if exec.name == "write_file" else None


# -- services ---------------------------------------------------------------------------------------


class ScriptedApprover:
    """An ApprovalService: allows once for the agent named "trusted"."""

    async def request(self, request: ApprovalRequest) -> Literal["allowed-once", "rejected", "cancelled", "unavailable"]:
        if request.signal is not None and request.signal.aborted:
            return "cancelled"
        return "allowed-once" if request.agent.name == "trusted" else "rejected"


class EchoRuntime:
    """A CodeRuntime: the 'program' is a tool name to call once with {}."""

    language = "typescript"
    isolation = "none"

    async def run(self, request: CodeRunRequest) -> CodeRunResult:
        (namespace,) = request.bindings
        fn = namespace.functions.get(request.program)
        if fn is None:
            return CodeRunResult(logs=[], error=CodeRunFailure(kind="exception", message="no such tool"))
        value = await fn({})
        return CodeRunResult(logs=[CodeLogEntry(source="console", text="called", level="log")], value=value)

    async def dispose(self) -> None:
        return None


approver: ApprovalService = ScriptedApprover()
runtime: CodeRuntime = EchoRuntime()

# -- a custom pipeline: without approval, with an extra gate -------------------------------------


async def no_approval(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
    return await pre_execute(host, execution)


def call_budget(limit: int) -> Gate:
    counts: dict[str, int] = {}

    async def budget(host: PipelineHost, execution: ToolExecution) -> Result[ToolExecution, Settled]:
        key = execution.agent.name if execution.agent is not None else ""
        counts[key] = counts.get(key, 0) + 1
        if counts[key] > limit:
            return Failure(Settled(execution, error_result(execution.call_id, f"budget of {limit} calls spent")))
        return Success(execution)

    return budget


CUSTOM_GATES: tuple[Gate, ...] = (no_approval, check_guards, call_budget(1))

# -- wiring ------------------------------------------------------------------------------------------


def build() -> tuple[Context, Agent]:
    ctx = boot(mode="both", tool_order=[TOOL_ORDER_REST], timeouts=True)
    ctx.provide(APPROVAL, approver)
    ctx.provide(CODE_RUNTIME, runtime)
    ctx.tools.register(read_file)
    ctx.tools.register(search_tool)
    ctx.tools.register(raw_definition)
    ctx.tools.guard(read_only)
    ctx.on("tools/pre-execute", gate)
    ctx.on("tools/execute", around)
    ctx.on("tools/post-execute", after)
    ctx.on("tools/result", observe)
    ctx.on("tools/result", observe_async)
    ctx.on("tools/change", on_change)
    ctx.on("system-prompt/assemble", assemble)
    ctx.system_prompt.section(PromptSection("persona", 10, "You are careful."))
    ctx.system_prompt.section(PromptSection("scope", 20, lambda c: "agent" if c.scope is not None else "global"))
    agent = Agent(ctx, name="trusted")
    agent.ctx.tools.restrict(deny=["search"])

    def extra(context: AssembleContext) -> ToolProviderResult:
        return ToolProviderResult(schemas=[ToolSchema("extra", "Extra.", {"type": "object"})])

    agent.ctx.system_prompt.tools(extra)
    return ctx, agent


async def main() -> dict[str, str]:
    ctx, agent = build()
    out: dict[str, str] = {}
    read_result = await ctx.tools.execute(ToolExecutionInput("c1", "read_file", {"path": "/a"}, agent=agent))
    out["read"] = "error" if read_result.is_error else str(read_result.content[0]["text"])
    code_result = await ctx.tools.execute(ToolExecutionInput("c2", "run_code", {"code": "raw"}, agent=agent))
    out["code"] = str(code_result.to_json()["content"][0]["text"])
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    out["prompt"] = render_prompt(assembly)
    out["tools"] = ",".join(t.name for t in assembly.tools)
    out["sdk"] = render_tools_sdk(ctx.tools.schemas(agent))
    custom = await execute_call(ctx.tools, ToolExecutionInput("c3", "raw", {}, agent=agent), gates=CUSTOM_GATES)
    again = await execute_call(ctx.tools, ToolExecutionInput("c4", "raw", {}, agent=agent), gates=CUSTOM_GATES)
    out["custom"] = f"{custom.is_error}/{again.is_error}"
    await agent.dispose()
    return out
