"""``catalog="search"`` with the scripted runtime: the section, the built-ins, per-agent views, the index, hostile queries."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.catalog_surfaces import large_catalog
from dsh_tools import (
    RUN_CODE_NAME,
    TOOL_ORDER_REST,
    Agent,
    AssembleContext,
    ContentBlock,
    Context,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    text_block,
)
from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
from dsh_tools.code_mode.search.builtins import MAX_BUILTIN_CALLS, MIN_CATALOG_CHARS
from dsh_tools.code_mode.search.index import CatalogIndex
from dsh_tools.code_mode.search.stem import stem, terms
from dsh_tools.testing import Bindings, ScriptedCodeRuntime
from dsh_tools_codegen import describe_tool_ts, render_tools_sdk

CATALOG = large_catalog(1000)


class Tool:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.name, self.description, self.parameters = spec["name"], spec["description"], spec["parameters"]

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return [text_block(f"{self.name} ran")]


def make(count: int = 1000, **keywords: Any) -> tuple[Context, ScriptedCodeRuntime]:
    runtime = ScriptedCodeRuntime()
    ctx = boot(mode="code", code_runtime=runtime, catalog="search", **keywords)
    for spec in CATALOG[:count]:
        ctx.tools.register(Tool(spec))
    return ctx, runtime


async def run(ctx: Context, runtime: ScriptedCodeRuntime, program: Any, agent: Agent | None = None) -> ToolExecutionResult:
    runtime.programs["p"] = program
    return await ctx.tools.execute(ToolExecutionInput("r1", RUN_CODE_NAME, {"code": "p"}, agent=agent))


async def sdk_text(ctx: Context, agent: Agent | None = None) -> str:
    assembly = await ctx.system_prompt.assemble(AssembleContext(scope=agent))
    return next(section.text for section in assembly.sections if section.name == "tools:sdk")


async def test_the_section_stays_within_catalog_chars_and_puts_tool_order_first() -> None:
    ctx, _ = make(tool_order=["git_status", "fs_tail_file", TOOL_ORDER_REST])
    text = await sdk_text(ctx)
    assert len(text) <= 6000
    assert text.index("git_status(") < text.index("fs_tail_file(") < text.index("calendar_")
    assert "tools.$search" in text and "[name: string]: (args: any) => Promise<any>;" in text
    assert await sdk_text(ctx) is text  # memoised: byte-stable for an unchanged catalog
    other, _ = make(tool_order=["git_status", "fs_tail_file", TOOL_ORDER_REST])
    assert await sdk_text(other) == text
    wide, _ = make(catalog_chars=8000)
    assert 6000 < len(await sdk_text(wide)) <= 8000
    assembly = await ctx.system_prompt.assemble(AssembleContext())
    assert [tool.name for tool in assembly.tools] == [RUN_CODE_NAME]


def test_bad_catalog_keywords_are_refused() -> None:
    with pytest.raises(ValueError, match="catalog must be one of full, search"):
        boot(catalog="some")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=f"at least {MIN_CATALOG_CHARS}"):
        boot(catalog="search", catalog_chars=100)
    with pytest.raises(ValueError, match="catalog_chars"):
        boot(catalog="search", catalog_chars=7000.5)  # type: ignore[arg-type]


async def test_search_ranks_describe_declares_and_any_tool_is_callable() -> None:
    ctx, runtime = make()
    seen: list[str] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        hits: Any = await tools["$search"]({"query": "unpack a tar.gz archive into a folder", "limit": 3})
        assert isinstance(hits, (list, tuple)) and len(hits) == 3
        name = hits[0]["name"]
        declaration = await tools["$describe"]({"name": name})
        seen.extend([str(name), str(declaration)])
        result = await tools[str(name)]({"archive": "a.tgz", "destination": "out"})
        return CodeRunResult(logs=(), value=result)

    result = await run(ctx, runtime, program)
    assert result.text == "fs_extract_archive ran"
    spec = next(spec for spec in CATALOG if spec["name"] == "fs_extract_archive")
    assert seen == ["fs_extract_archive", describe_tool_ts(spec)]
    assert seen[1] in render_tools_sdk(CATALOG)
    assert result.meta == {"logs": (), "dispatches": 1}  # the built-ins are not tool calls
    journal = await ctx.tools.store.journal()
    assert [record.tool_name for record in journal] == ["fs_extract_archive", RUN_CODE_NAME]


async def test_a_program_does_not_start_programs() -> None:
    """Any name reaches the pipeline in search mode, but run_code from inside a program is unknown, as it is to the
    full SDK (a nested run would start with a built-in budget of its own)."""
    ctx, runtime = make(10)

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        try:
            await tools[RUN_CODE_NAME]({"code": "inner"})
        except Exception as error:  # noqa: BLE001 - what the program sees
            return CodeRunResult(logs=(), value=str(error))
        return CodeRunResult(logs=(), value="ran a nested program")

    result = await run(ctx, runtime, program)
    assert result.text == 'Error: unknown tool "run_code"'  # the rejection the program caught
    journal = await ctx.tools.store.journal()
    assert [(record.tool_name, record.outcome) for record in journal] == [(RUN_CODE_NAME, "unknown-tool"), (RUN_CODE_NAME, "ok")]


async def test_views_apply_a_restricted_tool_is_unknown_and_a_scoped_one_is_found_by_its_own_text() -> None:
    ctx, runtime = make()
    agent = Agent(ctx, name="narrow")
    agent.ctx.tools.restrict(deny=["fs_extract_archive"])

    class Scoped(Tool):
        def __init__(self) -> None:
            super().__init__({"name": "fs_read_file", "description": "Reads the agent's private notebook pages.", "parameters": {}})

    agent.ctx.tools.register(Scoped())
    answers: dict[str, object] = {}

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        answers["hits"] = await tools["$search"]({"query": "extract archive", "limit": 50})
        answers["describe"] = await tools["$describe"]({"name": "fs_extract_archive"})
        answers["notebook"] = await tools["$search"]({"query": "notebook pages", "limit": 1})
        for name in ("fs_extract_archive", "no_such_tool"):
            try:
                await tools[name]({})
            except Exception as error:  # noqa: BLE001 - the rejection is what is checked
                answers[name] = str(error)
        return CodeRunResult(logs=())

    await run(ctx, runtime, program, agent)
    assert "fs_extract_archive" not in [hit["name"] for hit in answers["hits"]]  # type: ignore[attr-defined]
    assert answers["describe"] is None
    assert answers["notebook"] == [{"name": "fs_read_file", "description": "Reads the agent's private notebook pages."}]
    assert answers["fs_extract_archive"] == 'Error: unknown tool "fs_extract_archive"'
    assert answers["no_such_tool"] == 'Error: unknown tool "no_such_tool"'
    global_hits: list[Any] = []

    async def unrestricted(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        global_hits.extend(await tools["$search"]({"query": "extract archive"}))  # type: ignore[arg-type]
        return CodeRunResult(logs=())

    await run(ctx, runtime, unrestricted)
    assert global_hits[0]["name"] == "fs_extract_archive"


async def test_builtin_calls_are_bounded_and_checked() -> None:
    ctx, runtime = make(count=20)
    errors: list[str] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        for bad in ({"limit": 3}, {"query": 5}, {"query": "x", "limit": 0}, {"query": "x", "limit": 51}, {"query": "x", "limit": True}, ["x"]):
            try:
                await tools["$search"](bad)  # type: ignore[arg-type]
            except Exception as error:  # noqa: BLE001
                errors.append(str(error))
        described_args: list[dict[str, Any]] = [{"name": None}, {"name": "fs_read_file", "verbose": True}]
        for described in described_args:
            try:
                await tools["$describe"](described)
            except Exception as error:  # noqa: BLE001
                errors.append(str(error))
        try:
            await tools["$search"]({"query": "read a file", "limt": 1})  # misspelt: not the default, silently
        except Exception as error:  # noqa: BLE001
            errors.append(str(error))
        for _ in range(MAX_BUILTIN_CALLS):
            try:
                await tools["$describe"]({"name": "fs_read_file"})
            except Exception as error:  # noqa: BLE001
                errors.append(str(error))
        return CodeRunResult(logs=())

    await run(ctx, runtime, program)
    assert "query must be a string" in errors[0] and "query must be a string" in errors[1]
    assert all("limit must be an integer from 1 to 50" in error for error in errors[2:5])
    assert "takes one object" in errors[5] and "name must be a string" in errors[6]
    assert "unknown argument 'verbose' (it takes name)" in errors[7]
    assert "unknown argument 'limt' (it takes query, limit)" in errors[8]
    over = 9  # every call counts, a refused one too
    assert len(errors) == 9 + over and all("at most 100 calls of the built-ins" in error for error in errors[9:])
    assert await ctx.tools.store.journal(tool_name="$search") == []


@pytest.mark.parametrize(
    "query",
    ["", " ", "\ud800 lone surrogate", "x" * 5_000_000, 'a" OR b* NEAR(c) AND NOT -d ^e {f} col:g', "'; DROP TABLE t; --", "\x00\n\t"],
)
async def test_hostile_queries_are_data(query: str) -> None:
    ctx, _ = make(count=50)
    index = ctx.tools.code_mode.catalog_index()
    found = index.search(query, 10, lambda tool: True)
    assert isinstance(found, list) and len(found) <= 10


def test_ties_go_in_code_point_order_and_scores_ignore_history() -> None:
    ctx = boot()
    for name in ("b_tool", "a_tool", "Z_tool", "é_tool"):
        ctx.tools.register(Tool({"name": name, "description": "Frobnicates the widget.", "parameters": {}}))
    index = CatalogIndex()
    tools = ctx.tools.layers.every_tool()
    index.sync(1, lambda: tools)
    assert [tool.name for tool in index.search("frobnicate widgets", 10, lambda tool: True)] == ["Z_tool", "a_tool", "b_tool", "é_tool"]
    backwards = CatalogIndex()
    backwards.sync(1, lambda: list(reversed(tools)))
    query = "frobnicates the widget tool"
    assert index.search(query, 10, lambda t: True) == backwards.search(query, 10, lambda t: True)


def test_a_query_of_common_words_or_whose_rare_words_find_nothing_admitted_is_never_empty() -> None:
    """Common words are skipped for speed, but never to the point of answering nothing: another agent's
    300 private "weather" tools must not hide the one weather tool this caller may call."""
    ctx = boot()
    ctx.tools.register(Tool({"name": "get_weather", "description": "Current weather forecast for a city.", "parameters": {}}))
    for n in range(300):
        ctx.tools.register(Tool({"name": f"weather_station_{n}", "description": "Private weather station.", "parameters": {}}))
    index = CatalogIndex()
    tools = ctx.tools.layers.every_tool()
    index.sync(1, lambda: tools)
    assert index._common("weather")  # the skip is in play: 301 of 301 documents
    mine = lambda tool: tool.name == "get_weather"  # noqa: E731 - the caller's view
    assert [tool.name for tool in index.search("weather", 5, mine)] == ["get_weather"]
    assert [tool.name for tool in index.search("weather station", 3, lambda tool: True)] == [
        "weather_station_0", "weather_station_1", "weather_station_10"
    ]  # a common word alone is still ranked (ties by name)
    assert [tool.name for tool in index.search("city weather", 5, lambda tool: True)] == ["get_weather"]  # the rare word decides


def test_the_index_follows_the_layers_one_document_per_registration() -> None:
    ctx, _ = make(count=200)
    code_mode = ctx.tools.code_mode
    index = code_mode.catalog_index()
    assert len(index) == 200
    added: list[str] = []
    original = CatalogIndex._add

    def spy(self: CatalogIndex, key: int, tool: Any) -> None:
        added.append(tool.name)
        original(self, key, tool)

    CatalogIndex._add = spy  # type: ignore[method-assign]
    try:
        undo = ctx.tools.register(Tool({"name": "zz_quasar", "description": "Polishes quasars.", "parameters": {}}))
        assert code_mode.catalog_index() is index
        assert added == ["zz_quasar"]
        assert [tool.name for tool in index.search("polish quasar", 1, lambda t: True)] == ["zz_quasar"]
        code_mode.catalog_index()
        assert added == ["zz_quasar"]  # nothing changed: nothing read again
        undo()
        assert code_mode.catalog_index().search("polish quasar", 1, lambda t: True) == []
        assert len(index) == 200
    finally:
        CatalogIndex._add = original  # type: ignore[method-assign]


def test_the_stemmer_is_porters() -> None:
    assert [stem(word) for word in ("connections", "generalizations", "ponies", "hopping", "roll", "sky")] == [
        "connect", "gener", "poni", "hop", "roll", "sky",
    ]
    assert terms("fs_read_byte_range Reading 2 FILES, 日本語") == ["fs", "read", "byte", "rang", "read", "2", "file", "日本語"]


async def test_a_user_tool_named_like_a_builtin_is_shadowed_in_typescript_and_listed_once() -> None:
    ctx, runtime = make(count=5)
    ctx.tools.register(Tool({"name": "$search", "description": "Polishes quasars.", "parameters": {}}))
    got: list[object] = []

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        got.append(await tools["$search"]({"query": "polish quasars", "limit": 1}))
        return CodeRunResult(logs=())

    await run(ctx, runtime, program)
    assert got == [[{"name": "$search", "description": "Polishes quasars."}]]  # the built-in answered, naming the tool


async def test_python_aliases_reach_the_builtins_and_items_reach_tools() -> None:
    runtime = ScriptedCodeRuntime(language="python")
    ctx = boot(mode="code", code_runtime=runtime, catalog="search")
    ctx.tools.register(Tool({"name": "search_tools", "description": "A user tool named like the built-in.", "parameters": {}}))
    runtime.programs["p"] = lambda tools, request: _noop()
    await ctx.tools.execute(ToolExecutionInput("r1", RUN_CODE_NAME, {"code": "p"}))
    (namespace,) = runtime.requests[0].bindings
    assert dict(namespace.aliases) == {"search_tools": "$search", "describe_tool": "$describe"}
    assert {"search_tools", "$search", "$describe"} <= set(namespace.functions)
    assert namespace.lookup is not None
    assert 'def __getitem__(self, name: Literal["search_tools"])' in await sdk_text(ctx)


async def _noop() -> CodeRunResult:
    return CodeRunResult(logs=())


async def test_catalog_search_leaves_native_and_full_mode_as_they_were() -> None:
    runtime = ScriptedCodeRuntime()
    full = boot(mode="code", code_runtime=runtime)
    searched = boot(mode="code", code_runtime=runtime, catalog="search")
    for ctx in (full, searched):
        ctx.tools.register(Tool(CATALOG[0]))
    assert "$search" not in await sdk_text(full) and "$search" in await sdk_text(searched)
    runtime.programs["p"] = lambda tools, request: _noop()
    await full.tools.execute(ToolExecutionInput("r1", RUN_CODE_NAME, {"code": "p"}))
    assert runtime.requests[-1].bindings[0].lookup is None
    with pytest.raises(ValueError, match="catalog='search'"):
        await boot(mode="code", code_runtime=runtime, tool_order=["fs_read_file", TOOL_ORDER_REST]).system_prompt.assemble()
