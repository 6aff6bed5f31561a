"""Remaining checkable sentences of API.md (disposers of every registration call,
unfiltered tools/change, guard disposal, content kinds, Code Mode protections)."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import (
    RUN_CODE_NAME,
    Agent,
    AssembleContext,
    CodeRunRequest,
    CodeRunResult,
    ContentBlock,
    Disposer,
    HarnessError,
    PromptSection,
    ToolErrorInfo,
    ToolExecution,
    ToolProviderResult,
    boot,
)
from dsh_tools.testing import Bindings, ScriptedCodeRuntime

from contract_support import Echo, call, text_of


async def test_every_registration_call_returns_an_idempotent_disposer() -> None:
    """"Every ``register``/``restrict``/``guard``/``on``/``section``/``tools``/``protect`` call
    returns a ``Disposer``: a sync, idempotent callable."""
    ctx = boot()
    agent = Agent(ctx, name="a")
    ctx.tools.register(Echo("x"))
    disposers: list[Disposer] = [
        ctx.tools.register(Echo("echo")),
        agent.ctx.tools.restrict(deny=["x"]),
        ctx.tools.guard(lambda e: None),
        ctx.on("tools/change", lambda: None),
        ctx.system_prompt.section(PromptSection("s", 1, "t")),
        ctx.system_prompt.tools(lambda c: ToolProviderResult(schemas=[])),
        ctx.system_prompt.protect(sections=["s"]),
    ]
    for dispose in disposers:
        assert isinstance(dispose, Disposer)
        dispose()
        dispose()
    assert ctx.tools.known_names() == ["x"]
    assert [t.name for t in ctx.tools.visible(agent)] == ["x"]
    assert (await ctx.system_prompt.assemble(AssembleContext())).sections == ()


async def test_disposed_guard_no_longer_denies() -> None:
    ctx = boot()
    ctx.tools.register(Echo("echo"))
    dispose = ctx.tools.guard(lambda e: "no")
    assert (await call(ctx, "echo", {"text": "x"})).is_error
    dispose()
    assert not (await call(ctx, "echo", {"text": "x"})).is_error


async def test_tools_change_is_unfiltered() -> None:
    """``"tools/change": () -> None  # unfiltered``: a scoped listener hears global changes too."""
    ctx = boot()
    agent = Agent(ctx, name="a")
    other = Agent(ctx, name="b")
    heard: list[int] = []
    agent.ctx.on("tools/change", lambda: heard.append(1))
    ctx.tools.register(Echo("g"))
    other.ctx.tools.register(Echo("o"))
    assert heard == [1, 1]


async def test_harness_error_subclass_name_in_error_info() -> None:
    """``result.error`` carries ``ToolErrorInfo(name=type(e).__name__, code=e.code)``."""

    class QuotaError(HarnessError):
        def __init__(self) -> None:
            super().__init__("quota spent", "QUOTA")

    class Failing:
        name = "f"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            raise QuotaError()

    ctx = boot()
    ctx.tools.register(Failing())
    result = await call(ctx, "f", {})
    assert result.error == ToolErrorInfo(name="QuotaError", code="QUOTA")
    assert text_of(result) == "Error: quota spent"


async def test_image_and_other_content_kinds_pass_through() -> None:
    """"``ContentBlock`` is a JSON mapping with a ``type`` key (... the image/other kinds)"."""
    image: ContentBlock = {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}

    class Picture:
        name = "pic"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            return [image, {"type": "resource", "uri": "file:///x"}]

    ctx = boot()
    ctx.tools.register(Picture())
    result = await call(ctx, "pic", {})
    assert not result.is_error
    assert result.to_json()["content"] == [dict(image), {"type": "resource", "uri": "file:///x"}]


@pytest.mark.parametrize("mode", ["code", "both"])
async def test_restriction_cannot_remove_transport(mode: Any) -> None:
    ctx = boot(mode=mode, code_runtime=ScriptedCodeRuntime())
    ctx.tools.register(Echo("echo"))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.restrict(allow=[])
    assert [t.name for t in ctx.tools.visible(agent)] == [RUN_CODE_NAME]
    assert ctx.tools.get(RUN_CODE_NAME, agent) is not None
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    assert [t.name for t in assembly.tools] == [RUN_CODE_NAME]
    with pytest.raises(ValueError, match="run_code"):
        agent.ctx.tools.restrict(allow=[RUN_CODE_NAME])


@pytest.mark.parametrize("mode", ["code", "both"])
def test_scoped_section_cannot_shadow_protected_sdk(mode: Any) -> None:
    ctx = boot(mode=mode, code_runtime=ScriptedCodeRuntime())
    agent = Agent(ctx, name="a")
    with pytest.raises(ValueError):
        agent.ctx.system_prompt.section(PromptSection("tools:sdk", 150, "mine"))


def test_native_mode_has_no_transport() -> None:
    ctx = boot()
    ctx.tools.register(Echo("echo"))
    assert ctx.tools.get(RUN_CODE_NAME) is None
    assert [t.name for t in ctx.tools.visible()] == ["echo"]
    # in native mode the name is not reserved
    ctx.tools.register(Echo(RUN_CODE_NAME))
    assert ctx.tools.get(RUN_CODE_NAME) is not None


async def test_approval_and_runtime_read_at_use_time() -> None:
    """"they are read at use time, never required at construction"."""
    ctx = boot(mode="code")  # no runtime at construction: fine
    ctx.tools.register(Echo("echo"))
    result = await call(ctx, RUN_CODE_NAME, {"code": "return 1"}, agent=Agent(ctx, name="a"))
    assert result.is_error  # no runtime mounted at use time
    from dsh_tools import CODE_RUNTIME

    ctx.provide(CODE_RUNTIME, ScriptedCodeRuntime())
    ok = await call(ctx, RUN_CODE_NAME, {"code": "return 1"}, agent=Agent(ctx, name="a"))
    assert not ok.is_error


async def test_protected_entry_comes_back_once() -> None:
    """"Protected entries a listener removed or replaced come back in canonical form, once"."""
    from collections.abc import Awaitable, Callable

    from dsh_tools import AssembledSection, PromptAssembly

    ctx = boot()
    ctx.system_prompt.section(PromptSection("keep", 1, "canonical"))
    ctx.system_prompt.protect(sections=["keep"])

    async def doubler(
        context: AssembleContext, assembly: PromptAssembly, next: Callable[[], Awaitable[PromptAssembly]]
    ) -> PromptAssembly:
        inner = await next()
        return PromptAssembly(sections=inner.sections + (AssembledSection("keep", 9, "forged"),), tools=inner.tools)

    ctx.on("system-prompt/assemble", doubler)
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [(s.name, s.order, s.text) for s in assembly.sections] == [("keep", 1, "canonical")]


async def test_result_subclass_from_wrapper_refused() -> None:
    """"Decisions and results are checked by exact type ...; subclasses are refused."""
    from dsh_tools import ExecuteNext, ToolExecutionResult, text_block

    class Fancy(ToolExecutionResult):
        pass

    ctx = boot()
    ctx.tools.register(Echo("echo"))

    async def wrapper(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        return Fancy(call_id=exec.call_id, content=[text_block("fancy")], is_error=False)

    ctx.on("tools/execute", wrapper)
    result = await call(ctx, "echo", {"text": "x"})
    assert result.is_error and type(result) is ToolExecutionResult


async def test_bridge_queue_is_sequential_and_arguments_json_normalized() -> None:
    """"a per-run queue (sequential even under ``Promise.all``)", "JSON-normalized arguments"."""
    import asyncio

    from dsh_tools import CODE_RUNTIME, text_block
    from dsh_tools.json_values import thaw_json

    active = [0, 0]
    seen: list[Any] = []

    class Slow:
        name = "slow"
        description = "d"
        parameters = {"type": "object"}

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            active[0] += 1
            active[1] = max(active)
            seen.append((exec.call_id, thaw_json(args)))
            await asyncio.sleep(0.005)
            active[0] -= 1
            return [text_block("ok")]

    async def gather(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        await asyncio.gather(*(tools["slow"]({"i": i, "t": (1, 2)}) for i in range(4)))
        return CodeRunResult(logs=[])

    ctx = boot(mode="code")
    ctx.provide(CODE_RUNTIME, ScriptedCodeRuntime({"x": gather}))
    ctx.tools.register(Slow())
    result = await call(ctx, RUN_CODE_NAME, {"code": "x"}, call_id="r", agent=Agent(ctx, name="a"))
    assert not result.is_error
    assert active[1] == 1
    assert seen == [(f"r:code:{i + 1}", {"i": i, "t": [1, 2]}) for i in range(4)]


async def test_provider_known_names_validate_tool_order() -> None:
    """``ToolProviderResult(schemas, known_names=None)``: a known but absent name is not a typo."""
    from dsh_tools import TOOL_ORDER_REST, Context, SystemPrompt, ToolSchema

    prompt = SystemPrompt(Context(), tool_order=["hidden", TOOL_ORDER_REST])
    prompt.tools(
        lambda c: ToolProviderResult(schemas=[ToolSchema("shown", "d", {"type": "object"})], known_names=["shown", "hidden"])
    )
    assembly = await prompt.assemble(AssembleContext())
    assert [t.name for t in assembly.tools] == ["shown"]


async def test_invalid_input_keeps_genuine_parent() -> None:
    """"observers see an execution whose ``arguments`` is ``None`` and whose ``parent`` is
    ``None`` if it was forged" (so a genuine parent is kept)."""
    from dsh_tools import ToolExecutionResult

    ctx = boot()
    echo = Echo("echo")
    ctx.tools.register(echo)
    await call(ctx, "echo", {"text": "x"}, call_id="outer")
    token = echo.calls[0].token
    seen: list[ToolExecution] = []

    def observe(exec: ToolExecution, result: ToolExecutionResult) -> None:
        seen.append(exec)

    ctx.on("tools/result", observe)
    result = await call(ctx, "echo", {"bad": {1, 2}}, call_id="inner", parent=token)
    assert result.is_error
    assert seen[0].arguments is None and seen[0].parent is token


async def test_sdk_section_regenerates_at_each_assembly() -> None:
    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime())
    ctx.tools.register(Echo("first"))
    before = await ctx.system_prompt.assemble(AssembleContext())
    ctx.tools.register(Echo("second"))
    after = await ctx.system_prompt.assemble(AssembleContext())
    sdk_before = next(s.text for s in before.sections if s.name == "tools:sdk")
    sdk_after = next(s.text for s in after.sections if s.name == "tools:sdk")
    assert "second(args:" not in sdk_before and "second(args:" in sdk_after
    again = await ctx.system_prompt.assemble(AssembleContext())
    assert next(s.text for s in again.sections if s.name == "tools:sdk") == sdk_after


def test_json_schema_to_ts_total_on_hostile_input() -> None:
    from collections.abc import Iterator, Mapping

    from dsh_tools_codegen import json_schema_to_ts

    cyclic: dict[str, Any] = {"type": "object", "properties": {}}
    cyclic["properties"]["self"] = cyclic

    class Raising(Mapping[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise RuntimeError("boom")

        def __iter__(self) -> Iterator[str]:
            raise RuntimeError("boom")

        def __len__(self) -> int:
            raise RuntimeError("boom")

    assert isinstance(json_schema_to_ts(cyclic), str)
    assert isinstance(json_schema_to_ts(Raising()), str)
    assert isinstance(json_schema_to_ts({"type": "object", "properties": {"x": Raising()}}), str)
