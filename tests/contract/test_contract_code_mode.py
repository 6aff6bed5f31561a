"""API.md "Code Mode": run_code, the SDK section, the bridge, codegen, DenoCodeRuntime."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from dsh_tools import (
    CODE_RUNTIME,
    RUN_CODE_NAME,
    AbortSignal,
    Agent,
    AssembleContext,
    CodeBindingNamespace,
    CodeLogEntry,
    CodeRunFailure,
    CodeRunRequest,
    CodeRunResult,
    Context,
    Deny,
    GenericCallView,
    GenericResultView,
    PreToolDecision,
    PromptAssembly,
    ToolErrorInfo,
    ToolExecution,
    ToolResult,
    ToolSchema,
    boot,
    text_block,
)
from dsh_tools.testing import Bindings, ScriptedCodeRuntime, ScriptedProgram
from dsh_tools_codegen import json_schema_to_ts, render_tools_sdk
from dsh_tools.json_values import thaw_json

from contract_support import Echo, call, text_of

def code_ctx(programs: dict[str, ScriptedProgram], mode: Any = "code") -> tuple[Context, Echo, ScriptedCodeRuntime]:
    runtime = ScriptedCodeRuntime(programs)
    ctx = boot(mode=mode, code_runtime=runtime)
    echo = Echo("echo")
    ctx.tools.register(echo)
    return ctx, echo, runtime


# -- the transport and the SDK section ---------------------------------------------------------


async def test_code_mode_assembles_exactly_run_code_and_sdk_section_at_150() -> None:
    ctx, _, _ = code_ctx({})
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == [RUN_CODE_NAME]
    (section,) = [s for s in assembly.sections if s.name == "tools:sdk"]
    assert section.order == 150
    assert "declare const tools" in section.text and "echo(args:" in section.text
    run_code = assembly.tools[0]
    params: Any = thaw_json(run_code.parameters)
    # "``run_code`` takes one required string property ``code``."
    assert params["type"] == "object"
    assert list(params["properties"]) == ["code"]
    assert params["properties"]["code"]["type"] == "string"
    assert params["required"] == ["code"]


async def test_both_mode_contributes_native_and_run_code() -> None:
    ctx, _, _ = code_ctx({}, mode="both")
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == ["echo", RUN_CODE_NAME]
    assert any(s.name == "tools:sdk" for s in assembly.sections)


@pytest.mark.parametrize("mode", ["code", "both"])
async def test_missing_or_wrong_runtime_makes_every_assemble_raise(mode: Any) -> None:
    ctx = boot(mode=mode)
    with pytest.raises(Exception, match="(?i)runtime|CODE_RUNTIME"):
        await ctx.system_prompt.assemble(AssembleContext())
    ctx.provide(CODE_RUNTIME, ScriptedCodeRuntime(language="python"))
    with pytest.raises(Exception, match="(?i)typescript"):
        await ctx.system_prompt.assemble(AssembleContext())


async def test_transport_and_sdk_protected_against_listeners() -> None:
    ctx, _, _ = code_ctx({})

    async def strip(context: AssembleContext, assembly: PromptAssembly, next: Any) -> PromptAssembly:
        await next()
        return PromptAssembly(sections=(), tools=())

    ctx.on("system-prompt/assemble", strip)
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == [RUN_CODE_NAME]
    assert [s.name for s in assembly.sections] == ["tools:sdk"]


async def test_tool_order_naming_tool_mode_no_longer_contributes_raises() -> None:
    ctx = boot(mode="code", tool_order=["echo", "<unlisted-tools>"], code_runtime=ScriptedCodeRuntime())
    ctx.tools.register(Echo("echo"))
    with pytest.raises(Exception):
        await ctx.system_prompt.assemble(AssembleContext())


# -- run_code presentation ----------------------------------------------------------------------


def test_run_code_present_call_and_result() -> None:
    ctx, _, _ = code_ctx({})
    tool: Any = ctx.tools.get(RUN_CODE_NAME)
    assert tool is not None
    assert tool.present_call({"code": "return 1"}) == GenericCallView(
        title="return 1", kind="execute", raw_input="return 1"
    )
    # Settled: "``run_code``'s ``present_call`` returns ``None`` when ``code`` is not a string."
    assert tool.present_call({"code": 3}) is None
    assert tool.present_call({}) is None
    logs_meta: Any = {"logs": [{"source": "console", "text": "a", "level": "log"}, {"source": "stdout", "text": "b"}], "dispatches": 0}
    view = tool.present_result({"code": "x"}, ToolResult(content=[text_block("a\nb")], is_error=False, meta=logs_meta))
    assert view == GenericResultView(content=[text_block("a\nb")])
    assert view.title is None
    empty = tool.present_result({"code": "x"}, ToolResult(content=[], is_error=False, meta={"logs": [], "dispatches": 0}))
    assert empty == GenericResultView() and empty.content is None
    assert tool.present_result({"code": "x"}, ToolResult(content=[], is_error=False, meta={"weird": 1})) is None
    assert tool.present_result({"code": "x"}, ToolResult(content=[], is_error=False)) is None


# -- the bridge -------------------------------------------------------------------------------------


async def test_result_text_and_meta() -> None:
    async def logs_and_value(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        out = await tools["echo"]({"text": "hi"})
        return CodeRunResult(
            logs=[CodeLogEntry("console", f"got {out}", "log"), CodeLogEntry("stderr", "warned")],
            value={"n": 1},
        )

    async def string_value(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=[], value="plain string")

    async def nothing(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=[])

    ctx, _, _ = code_ctx({"a": logs_and_value, "b": string_value, "c": nothing})
    agent = Agent(ctx, name="coder")
    result = await call(ctx, RUN_CODE_NAME, {"code": "a"}, agent=agent)
    assert not result.is_error
    # "the logs (one entry a line) followed by the completion value (... any other JSON value as JSON)"
    lines = text_of(result).split("\n")
    assert lines[:2] == ["got echo:hi", "warned"] and len(lines) == 3
    assert json.loads(lines[2]) == {"n": 1}
    assert thaw_json(result.meta) == {
        "logs": [{"source": "console", "text": "got echo:hi", "level": "log"}, {"source": "stderr", "text": "warned"}],
        "dispatches": 1,
    }
    assert text_of(await call(ctx, RUN_CODE_NAME, {"code": "b"}, agent=agent)) == "plain string"
    none = await call(ctx, RUN_CODE_NAME, {"code": "c"}, agent=agent)
    assert text_of(none) == "(run_code completed with no output)"
    assert thaw_json(none.meta) == {"logs": [], "dispatches": 0}


async def test_sub_calls_ids_parent_session_events_and_signal() -> None:
    seen_signals: list[AbortSignal | None] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["echo"]({"text": "one"})
        await tools["echo"]({"text": "x" * 300})
        return CodeRunResult(logs=[])

    ctx, echo, runtime = code_ctx({"p": program})
    agent = Agent(ctx, name="coder")
    ctx.on("tools/result", lambda e, r: seen_signals.append(e.signal) if e.name == "echo" else None)
    result = await call(ctx, RUN_CODE_NAME, {"code": "p"}, call_id="outer", agent=agent)
    assert not result.is_error
    assert [e.call_id for e in echo.calls] == ["outer:code:1", "outer:code:2"]
    assert all(e.parent is not None for e in echo.calls)
    assert echo.calls[0].parent is echo.calls[1].parent
    # one run-scoped signal for the sub-calls, aborted once the run settles (the sandbox's own
    # signal is aborted then too; it is separate so that a parked program stops before its calls do)
    (request,) = runtime.requests
    assert request.signal is not None and request.signal.aborted
    first = seen_signals[0]
    assert first is not None and first.aborted and all(s is first for s in seen_signals)
    events: list[tuple[str, Any]] = [(k, thaw_json(d)) for k, d in agent.session.events() if k == "tool/code-dispatch"]
    assert events[0] == (
        "tool/code-dispatch",
        {
            "parentCallId": "outer",
            "subCallId": "outer:code:1",
            "name": "echo",
            "arguments": {"text": "one"},
            "isError": False,
            "resultSummary": "echo:one",
        },
    )
    summary = events[1][1]["resultSummary"]
    assert summary == ("echo:" + "x" * 300)[:200] + "…"


async def test_parent_is_outer_token() -> None:
    outer_tokens: list[object] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await tools["echo"]({"text": "one"})
        return CodeRunResult(logs=[])

    ctx, echo, _ = code_ctx({"p": program})
    ctx.on("tools/result", lambda e, r: outer_tokens.append(e.token) if e.name == RUN_CODE_NAME else None)
    await call(ctx, RUN_CODE_NAME, {"code": "p"}, agent=Agent(ctx, name="a"))
    assert echo.calls[0].parent is outer_tokens[0]


async def test_bindings_are_visible_end_capabilities() -> None:
    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(logs=[], value=sorted(tools))

    ctx, _, _ = code_ctx({"p": program})
    ctx.tools.register(Echo("hidden"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.restrict(deny=["hidden"])
    agent.ctx.tools.register(Echo("mine"))
    result = await call(ctx, RUN_CODE_NAME, {"code": "p"}, agent=agent)
    assert json.loads(text_of(result)) == ["echo", "mine"]


async def test_denial_rejects_inside_program_and_counts_as_dispatch() -> None:
    caught: list[str] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        try:
            await tools["echo"]({"text": "x"})
        except Exception as error:  # noqa: BLE001 - the program sees a rejection
            caught.append(str(error))
        return CodeRunResult(logs=[])

    ctx, echo, _ = code_ctx({"p": program})

    async def deny(exec: ToolExecution, next: Callable[[], Awaitable[PreToolDecision]]) -> PreToolDecision:
        return Deny(reason="no echo in code") if exec.parent is not None else await next()

    ctx.on("tools/pre-execute", deny)
    agent = Agent(ctx, name="a")
    result = await call(ctx, RUN_CODE_NAME, {"code": "p"}, agent=agent)
    assert not result.is_error
    assert caught and "no echo in code" in caught[0]
    assert echo.calls == []
    # Settled: "``meta["dispatches"]`` counts the sub-calls that entered the pipeline, denied ... included"
    meta: Any = thaw_json(result.meta)
    assert meta["dispatches"] == 1
    (event,) = [d for k, d in agent.session.events() if k == "tool/code-dispatch"]
    event_data: Any = thaw_json(event)
    assert event_data["isError"] is True


async def test_failed_run_is_code_run_failed_error_with_kind_message_logs() -> None:
    async def failing(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        return CodeRunResult(
            logs=[CodeLogEntry("console", "before the crash", "log")],
            error=CodeRunFailure(kind="exception", message="ReferenceError: x is not defined"),
        )

    ctx, _, _ = code_ctx({"f": failing})
    result = await call(ctx, RUN_CODE_NAME, {"code": "f"}, agent=Agent(ctx, name="a"))
    assert result.is_error
    assert result.error == ToolErrorInfo(name="CodeRunFailedError", code="CODE_RUN_FAILED")
    text = text_of(result)
    assert text.startswith("Error: ")
    for part in ("exception", "ReferenceError: x is not defined", "before the crash"):
        assert part in text


def test_code_records() -> None:
    entry = CodeLogEntry(source="console", text="t", level="info")
    assert entry.to_json() == {"source": "console", "text": "t", "level": "info"}
    assert CodeLogEntry("stdout", "raw").to_json() == {"source": "stdout", "text": "raw"}
    assert CodeRunFailure("timeout", "m").to_json() == {"kind": "timeout", "message": "m"}
    assert CodeRunResult(logs=[]).value is None and CodeRunResult(logs=[]).error is None
    request = CodeRunRequest("p", [CodeBindingNamespace("tools", {})])
    assert request.signal is None and request.program == "p"
    assert request.bindings[0].global_name == "tools"


# -- codegen --------------------------------------------------------------------------------------


def sdk_block(text: str) -> str:
    blocks = re.findall(r"```ts\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1
    return str(blocks[0])


def test_render_tools_sdk_format() -> None:
    schemas: list[Any] = [
        ToolSchema("zeta", "Zeta */ tool\nnext line", {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
        {"name": "my-tool", "description": "", "parameters": {"type": "object", "properties": {}}},
        ToolSchema("Alpha", "A", {"type": "object", "properties": {"s": {"type": "string"}}}),
    ]
    text = render_tools_sdk(schemas)
    assert text.rstrip("\n").endswith("```")
    assert text.count("```ts") == 1
    block = sdk_block(text)
    assert block.startswith("declare const tools: {")
    members = re.findall(r"^  (\S.*?)\(args: ", block, flags=re.M)
    # lexicographic = code-point order: "Alpha" < "my-tool" < "zeta"
    assert members == ["Alpha", '"my-tool"', "zeta"]
    assert re.search(r"^  zeta\(args: \{\n    a: number;\n  \}\): Promise<string>;$", block, flags=re.M)
    assert "/** Zeta *\\/ tool next line */" in block
    assert "*/ tool" not in block
    # byte-identical for an unchanged set, whatever the input order
    assert render_tools_sdk(list(reversed(schemas))) == text
    assert render_tools_sdk(schemas) == text


def test_json_schema_to_ts_settled_points() -> None:
    assert json_schema_to_ts({"type": "integer"}) == "number"
    assert json_schema_to_ts({"type": ["string", "null"]}) == "string | null"
    assert json_schema_to_ts({"const": "x"}) == '"x"'
    assert json_schema_to_ts({"enum": [1, True, None]}) == "1 | true | null"
    assert json_schema_to_ts({"type": "object", "additionalProperties": {"type": "number"}}) == "Record<string, number>"
    assert json_schema_to_ts({"type": "array", "items": {"type": "string"}}) == "string[]"


def test_json_schema_to_ts_indent_semantics() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert json_schema_to_ts(schema) == "{\n  a: string;\n}"
    assert json_schema_to_ts(schema, 1) == "{\n    a: string;\n  }"
    nested = {"type": "object", "properties": {"o": schema}}
    assert json_schema_to_ts(nested) == "{\n  o?: {\n    a: string;\n  };\n}"


@pytest.mark.parametrize(
    "schema",
    [None, 3, "x", [], {"type": 5}, {"properties": []}, {"oneOf": [1]}, {"enum": [object()]}, {"items": "no"}],
    ids=repr,
)
def test_json_schema_to_ts_total(schema: Any) -> None:
    assert isinstance(json_schema_to_ts(schema), str)


def test_codegen_is_pure() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", "import sys, dsh_tools_codegen; print(any(m == 'dsh_tools' or m.startswith('dsh_tools.') for m in sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"


# -- DenoCodeRuntime (real) ---------------------------------------------------------------------


async def test_deno_end_to_end_through_registry() -> None:
    from dsh_tools import DenoCodeRuntime

    runtime = DenoCodeRuntime(compute_ms=10_000, max_wall_ms=20_000)
    assert runtime.language == "typescript" and runtime.isolation == "process"
    try:
        ctx = boot(mode="code", code_runtime=runtime)
        ctx.tools.register(Echo("echo"))
        agent = Agent(ctx, name="coder")
        program = """
const got: string = await tools.echo({ text: "hi" });
console.log(got);
let rejected = "";
try { await tools.echo({ text: 10n as unknown as string }); } catch (e) { rejected = `${(e as Error).name}: ${(e as Error).message}`; }
console.warn(rejected);
return { ok: true };
"""
        result = await call(ctx, RUN_CODE_NAME, {"code": program}, call_id="run", agent=agent)
        assert not result.is_error, text_of(result)
        lines = text_of(result).split("\n")
        assert lines[0] == "echo:hi"
        assert lines[1].startswith("TypeError") and "JSON" in lines[1]
        assert json.loads(lines[2]) == {"ok": True}
        meta: Any = thaw_json(result.meta)
        # non-JSON arguments rejected before dispatch do not count
        assert meta["dispatches"] == 1
        assert meta["logs"][0] == {"source": "console", "text": "echo:hi", "level": "log"}
        assert meta["logs"][1]["level"] == "warn"
        failed = await call(ctx, RUN_CODE_NAME, {"code": 'console.log("x"); throw new Error("kaboom")'}, agent=agent)
        assert failed.is_error and failed.error == ToolErrorInfo(name="CodeRunFailedError", code="CODE_RUN_FAILED")
        assert "kaboom" in text_of(failed) and "exception" in text_of(failed)
    finally:
        await runtime.dispose()
    with pytest.raises(RuntimeError):
        await runtime.run(CodeRunRequest("return 1", []))


SANDBOX_PROBE = """
const out: string[] = [];
const attempts: Array<() => unknown> = [
  () => Deno.readTextFileSync("/etc/hostname"),
  () => Deno.env.get("HOME"),
  () => new Deno.Command("/bin/ls").outputSync(),
  () => Deno.dlopen("libc.so.6", {}),
];
for (const attempt of attempts) {
  try { attempt(); out.push("open"); } catch (e) { out.push((e as Error).name); }
}
try { await fetch("http://127.0.0.1:8080/"); out.push("open"); } catch (e) { out.push((e as Error).name); }
return out;
"""


async def test_deno_runtime_outcomes_are_results(tmp_path: Any) -> None:
    """"``run`` resolves with an error field for every program outcome and never raises for one";
    "Console calls become ``console`` entries with their level; bytes ... by other means become
    ``stdout``/``stderr`` entries. Capped logs and values carry the word ``truncated`` once";
    the file-import hole: "The runtime must not be open to it"."""
    import asyncio

    from dsh_tools import AbortController, DenoCodeRuntime

    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    runtime = DenoCodeRuntime(compute_ms=300, max_wall_ms=5_000, max_log_bytes=2_000, max_value_bytes=1_000)
    try:
        hole = f'const m = await import("file://{secret}", {{ with: {{ type: "text" }} }}); return m.default;'
        result = await runtime.run(CodeRunRequest(hole, []))
        assert result.error is not None
        assert "TOP-SECRET-VALUE" not in json.dumps(result.to_json())

        # "no file, network, env, subprocess or FFI permission"
        probe = await runtime.run(CodeRunRequest(SANDBOX_PROBE, []))
        assert probe.error is None and probe.value == ("NotCapable",) * 5, probe.to_json()

        spin = await runtime.run(CodeRunRequest("while (true) {}", []))
        assert spin.error is not None and spin.error.kind == "timeout"

        raw = await runtime.run(
            CodeRunRequest(
                'console.error("c"); await Deno.stdout.write(new TextEncoder().encode("raw out\\n"));'
                ' await Deno.stderr.write(new TextEncoder().encode("raw err\\n")); return 1',
                [],
            )
        )
        # (the order across channels is not promised, only the entries)
        entries = sorted((json.dumps(e.to_json(), sort_keys=True) for e in raw.logs))
        assert entries == sorted(
            json.dumps(e, sort_keys=True)
            for e in (
                {"source": "console", "text": "c", "level": "error"},
                {"source": "stdout", "text": "raw out"},
                {"source": "stderr", "text": "raw err"},
            )
        )

        chatty = await runtime.run(CodeRunRequest('for (let i = 0; i < 1000; i++) console.log("line " + i)', []))
        assert chatty.error is None
        assert sum(entry.text.count("truncated") for entry in chatty.logs) == 1
        big = await runtime.run(CodeRunRequest('return "x".repeat(5000)', []))
        assert json.dumps(big.to_json()).count("truncated") == 1

        controller = AbortController()
        task = asyncio.ensure_future(
            runtime.run(CodeRunRequest("await new Promise((r) => setTimeout(r, 10_000))", [], controller.signal))
        )
        await asyncio.sleep(0.2)
        controller.abort()
        aborted = await asyncio.wait_for(task, 5)
        assert aborted.error is not None and aborted.error.kind == "abort"
    finally:
        await runtime.dispose()
