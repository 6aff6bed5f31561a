"""Spilling through the registry: what the model, observers and the journal get; read_result; Code Mode."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from dsh_tools import (
    RUN_CODE_NAME,
    Accept,
    Agent,
    AssembleContext,
    ContentBlock,
    Context,
    PostNext,
    PostToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    define_tool,
    image_block,
    text_block,
    tool,
)
from dsh_tools.code_mode import READ_RESULT_NAME
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
from dsh_tools.store import MemoryStore
from dsh_tools.testing import Bindings, ScriptedCodeRuntime

BIG = ("añb€c😀 " * 1_500_000)[:10_000_000]  # 10 M characters of one- to four-byte UTF-8
LIMIT = 8192


@tool
async def dump() -> str:
    """Return a very long text."""
    return BIG


@tool
async def small() -> str:
    """Return a short text."""
    return "short"


class NoArgs(TypedDict):
    pass


def make(**keywords: Any) -> tuple[Context, Agent]:
    ctx = boot(max_inline_bytes=LIMIT, **keywords)
    ctx.tools.register(dump)
    ctx.tools.register(small)
    return ctx, Agent(ctx, name="reader", id="reader-1")


def locator_of(result: ToolExecutionResult) -> Any:
    meta: Any = result.meta
    return meta["spilled"]["locator"]


def value_of(result: ToolExecutionResult) -> Any:
    return result.value


async def call(ctx: Context, name: str, arguments: Any, agent: Agent | None, call_id: str = "c1") -> ToolExecutionResult:
    return await ctx.tools.execute(ToolExecutionInput(call_id, name, arguments, agent))


async def test_a_10mb_result_reaches_the_model_observers_and_journal_as_a_bounded_preview() -> None:
    ctx, agent = make()
    observed: list[ToolExecutionResult] = []
    ctx.on("tools/result", lambda exec, result: observed.append(result))
    result = await call(ctx, "dump", {}, agent)
    assert not result.is_error and result.outcome == "ok"
    assert len(result.text.encode("utf-8")) <= LIMIT
    meta: Any = result.meta
    locator = meta["spilled"]["locator"]
    assert meta["spilled"]["bytes"] == len(BIG.encode("utf-8")) and meta["spilled"]["characters"] == len(BIG)
    head = result.text.split("\n… [result cut:")[0]
    assert BIG.startswith(head) and len(head) > 1000
    assert f'read_result(locator="{locator}", offset={len(head)})' in result.text
    assert BIG.endswith(result.text.rsplit("] …\n", 1)[1])
    assert observed == [result]
    (record,) = await ctx.tools.store.journal(tool_name="dump")
    assert record.content == result.content


async def test_read_result_returns_exact_slices_at_multibyte_characters_to_the_same_agent_only() -> None:
    ctx, agent = make()
    locator = locator_of(await call(ctx, "dump", {}, agent))
    for offset, limit in ((0, 3), (5, 1), (6, 2), (1_000_003, 17), (len(BIG) - 4, 100)):
        page = await call(ctx, READ_RESULT_NAME, {"locator": locator, "offset": offset, "limit": limit}, agent, "r")
        expected = BIG[offset : offset + limit]
        end = offset + len(expected)
        assert page.value == {"text": expected, "offset": offset, "nextOffset": end if end < len(BIG) else None, "total": len(BIG)}
    default = await call(ctx, READ_RESULT_NAME, {"locator": locator}, agent, "r")
    assert value_of(default)["text"] == BIG[:16_384] and value_of(default)["nextOffset"] == 16_384
    assert not default.is_error and "result cut" not in default.text  # read_result's pages are never cut
    for reader in (Agent(ctx, name="other", id="other-1"), None):
        foreign = await call(ctx, READ_RESULT_NAME, {"locator": locator}, reader, "r")
        assert foreign.is_error and "no spilled result under this locator" in foreign.text


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"locator": "res_forgedforgedforgedforged"}, "no spilled result"),
        ({"locator": "x" * 100_000}, "no spilled result"),
        ({"locator": "res_\x00"}, "no spilled result"),
        ({"locator": 5}, "invalid arguments"),
        ({}, "invalid arguments"),
        ({"locator": "LOC", "offset": -1}, "offset must be an integer from 0 to 9007199254740991"),
        ({"locator": "LOC", "offset": 2**63}, "offset must be an integer from 0 to 9007199254740991"),
        ({"locator": "LOC", "limit": 0}, "limit must be an integer of at least 1"),
    ],
)
async def test_hostile_read_result_calls_are_clear_errors(arguments: dict[str, Any], error: str) -> None:
    ctx, agent = make()
    locator = locator_of(await call(ctx, "dump", {}, agent))
    if arguments.get("locator") == "LOC":
        arguments = {**arguments, "locator": locator}
    result = await call(ctx, READ_RESULT_NAME, arguments, agent, "r")
    assert result.is_error and error in result.text


async def test_an_offset_past_the_end_is_an_empty_page() -> None:
    ctx, agent = make()
    locator = locator_of(await call(ctx, "dump", {}, agent))
    page = await call(ctx, READ_RESULT_NAME, {"locator": locator, "offset": 10**15}, agent, "r")
    assert page.value == {"text": "", "offset": 10**15, "nextOffset": None, "total": len(BIG)}


async def test_expired_locators_read_as_nothing_after_prune() -> None:
    ctx, agent = make()
    locator = locator_of(await call(ctx, "dump", {}, agent))
    await ctx.tools.store.prune(before=10**12)
    expired = await call(ctx, READ_RESULT_NAME, {"locator": locator}, agent, "r")
    assert expired.is_error and "expired" in expired.text


async def test_images_are_not_cut_and_a_post_execute_listener_sees_the_whole_text() -> None:
    async def pictured(args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block("x" * 50_000), image_block("aGk=", "image/png"), text_block("y" * 50_000)]

    ctx = boot(max_inline_bytes=4096)
    ctx.tools.register(define_tool(name="pictured", description="Text and an image.", args=NoArgs, execute=pictured))
    lengths: list[int] = []

    async def listen(exec: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        lengths.append(len(result.text))
        return await next()

    ctx.on("tools/post-execute", listen)
    result = await call(ctx, "pictured", {}, None)
    assert lengths == [100_001]
    assert [block["type"] for block in result.content] == ["text", "image"]
    assert result.content[1] == image_block("aGk=", "image/png")
    assert len(result.text.encode()) <= 4096


async def test_a_block_of_another_kind_counts_as_the_json_a_model_is_sent_and_is_cut_with_the_text() -> None:
    import orjson

    document = {"type": "document", "body": "d" * 200_000}

    async def documented(args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [document, text_block("short"), image_block("aGk=", "image/png")]

    ctx = boot(max_inline_bytes=4096)
    ctx.tools.register(define_tool(name="documented", description="A document.", args=NoArgs, execute=documented))
    agent = Agent(ctx, name="reader", id="reader-1")
    result = await call(ctx, "documented", {}, agent)
    assert [block["type"] for block in result.content] == ["text", "image"] and len(result.text.encode()) <= 4096
    whole = orjson.dumps(document).decode() + "\nshort"  # what an adapter would have sent, all of it readable
    page = await call(ctx, READ_RESULT_NAME, {"locator": locator_of(result), "limit": 65_536}, agent, "r")
    assert value_of(page)["total"] == len(whole) and value_of(page)["text"] == whole[:65_536]


async def test_a_tools_own_limit_wins_and_read_result_is_served_only_where_something_spills() -> None:
    @tool(max_inline_bytes=2048)
    async def chatty() -> str:
        """Say a lot."""
        return "z" * 5000

    plain = boot()
    plain.tools.register(small)
    assert READ_RESULT_NAME not in [schema.name for schema in plain.tools.schemas()]
    plain.tools.register(chatty)
    assert READ_RESULT_NAME in [schema.name for schema in plain.tools.schemas()]
    result = await call(plain, "chatty", {}, None)
    assert len(result.text) <= 2048 and "result cut" in result.text
    assert not (await call(plain, "small", {}, None)).meta
    wide = boot(max_inline_bytes=1_000_000)
    wide.tools.register(chatty)
    assert "result cut" in (await call(wide, "chatty", {}, None)).text


def test_bad_limits_reserved_name_and_stores_that_cannot_spill_are_refused() -> None:
    for bad in (0, 1023, 4096.0, "4096", True):
        with pytest.raises(ValueError, match="max_inline_bytes"):
            boot(max_inline_bytes=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_inline_bytes"):
        tool(max_inline_bytes=10)(small.fn)

    @tool(name=READ_RESULT_NAME)
    async def impostor() -> str:
        """Pretend."""
        return ""

    with pytest.raises(ValueError, match="reserved reader of spilled results"):
        boot().tools.register(impostor)

    class Plain(MemoryStore):
        keep_spilled = None  # type: ignore[assignment]
        read_spilled = None  # type: ignore[assignment]

    with pytest.raises(ValueError, match="needs a store that keeps spilled results"):
        boot(store=Plain(), max_inline_bytes=4096)

    @tool(max_inline_bytes=4096)
    async def limited() -> str:
        """Limited."""
        return ""

    with pytest.raises(ValueError, match="needs a store that keeps spilled results"):
        boot(store=Plain()).tools.register(limited)

    class Half(MemoryStore):
        read_spilled = None  # type: ignore[assignment]

    with pytest.raises(TypeError, match="has part of SpillStore, without read_spilled"):
        boot(store=Half())


async def test_a_store_that_fails_to_keep_still_gives_a_bounded_preview() -> None:
    class Failing(MemoryStore):
        async def keep_spilled(self, locator: str, agent_id: str, text: str) -> None:
            raise OSError("disk full")

    store = Failing()
    ctx = boot(store=store, max_inline_bytes=4096)
    ctx.tools.register(dump)
    result = await call(ctx, "dump", {}, None)
    assert len(result.text.encode()) <= 4096 and "could not be kept" in result.text
    assert result.meta == {"spilled": {"locator": None, "bytes": len(BIG.encode()), "characters": len(BIG)}}
    assert store.health().write_failures == 1


async def test_a_program_receives_the_whole_value_and_only_run_code_is_cut() -> None:
    runtime = ScriptedCodeRuntime()
    ctx = boot(mode="code", code_runtime=runtime, max_inline_bytes=LIMIT)
    ctx.tools.register(dump)
    got: list[int] = []

    async def measure(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        text = await tools["dump"]({})
        assert isinstance(text, str)
        got.append(len(text))
        return CodeRunResult(logs=(), value=text)

    runtime.programs["p"] = measure
    result = await call(ctx, RUN_CODE_NAME, {"code": "p"}, None)
    assert got == [len(BIG)]
    assert "result cut" in result.text and len(result.text.encode()) <= LIMIT
    (sub,) = await ctx.tools.store.journal(tool_name="dump")
    assert sub.meta is None or "spilled" not in sub.meta  # type: ignore[operator]
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [schema.name for schema in assembly.tools] == [READ_RESULT_NAME, RUN_CODE_NAME]
    locator = locator_of(result)
    page = await call(ctx, READ_RESULT_NAME, {"locator": locator, "limit": 10}, None, "r")  # direct, in code-only mode
    assert not page.is_error and value_of(page)["text"] == BIG[:10]
    denied = await call(ctx, "dump", {}, None, "d")
    assert denied.is_error and "only `run_code` is callable directly" in denied.text


async def test_an_accept_that_shortens_the_text_is_not_cut() -> None:
    ctx, agent = make()

    async def shorten(exec: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        return Accept(content=[text_block(result.text[:10])]) if exec.name == "dump" else await next()

    ctx.on("tools/post-execute", shorten)
    result = await call(ctx, "dump", {}, agent)
    assert result.text == BIG[:10] and not result.meta
