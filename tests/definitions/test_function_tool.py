"""``@tool``: the schema from the signature and docstring, validation, the body's call, its output."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest

from dsh_tools import (
    Agent,
    ContentBlock,
    DefinedTool,
    FunctionTool,
    Prop,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolOutput,
    boot,
    text_block,
    thaw_json,
    tool,
)
from dsh_tools.context.context import Context
from dsh_tools.json_values import JsonValue
from dsh_tools.tool_types import ToolDefinition
from dsh_tools_codegen import render_tools_sdk


class Server(TypedDict):
    host: Annotated[str, Prop(description="Host name")]
    port: NotRequired[int | str]


@tool
async def connect(
    server: Server,
    retries: int = 3,
    mode: Literal["fast", "safe"] = "safe",
    tags: list[str] | None = None,
    *,
    exec: ToolExecution,
) -> str:
    """Connect to a server.

    A longer explanation the model does not need.

    Args:
        server: Where to connect.
        retries: How often to retry.
        mode: How careful to be.
        exec: The call (not a model argument).
    """
    return f"{server['host']}:{server.get('port')} x{retries} {mode} {tags} [{exec.call_id}]"


def schema(definition: DefinedTool[Any]) -> Any:
    return thaw_json(definition.parameters)


async def call(definition: ToolDefinition, arguments: JsonValue, ctx: Context | None = None) -> ToolExecutionResult:
    ctx = ctx or boot()
    ctx.tools.register(definition)
    return await ctx.tools.execute(ToolExecutionInput("call-1", definition.name, arguments))


# -- the schema ----------------------------------------------------------------


def test_the_signature_is_the_schema_in_order_with_defaults_and_descriptions() -> None:
    assert isinstance(connect, FunctionTool) and isinstance(connect, DefinedTool)
    assert connect.name == "connect"
    assert connect.description == "Connect to a server."
    parameters = schema(connect)
    assert list(connect.spec) == ["server", "retries", "mode", "tags"]
    assert list(parameters["properties"]) == list(connect.spec)  # the wire keeps the signature order
    assert parameters["required"] == ["server"]
    assert parameters["properties"]["server"] == {
        "type": "object",
        "description": "Where to connect.",
        "properties": {
            "host": {"type": "string", "description": "Host name"},
            "port": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        },
        "required": ["host"],
    }
    assert parameters["properties"]["retries"] == {"type": "integer", "description": "How often to retry.", "default": 3}
    assert parameters["properties"]["mode"] == {
        "type": "string",
        "description": "How careful to be.",
        "enum": ["fast", "safe"],
        "default": "safe",
    }
    # a None default has no JSON Schema form in the Prop DSL: optional, nullable, no "default"
    assert parameters["properties"]["tags"] == {"type": ["array", "null"], "items": {"type": "string"}}


@pytest.mark.parametrize(
    "doc",
    [
        "Scale a value.\n\nArgs:\n    value: The value.\n    factor: The factor.\n",
        "Scale a value.\n\nParameters\n----------\nvalue : int\n    The value.\nfactor : int\n    The factor.\n",
        "Scale a value.\n\n:param value: The value.\n:param factor: The factor.\n",
    ],
    ids=["google", "numpy", "rest"],
)
def test_google_numpy_and_rest_docstrings_describe_the_parameters(doc: str) -> None:
    async def scale(value: int, factor: int = 2) -> str:
        return str(value * factor)

    scale.__doc__ = doc
    definition = tool(scale)
    assert definition.description == "Scale a value."
    properties = schema(definition)["properties"]
    assert properties["value"]["description"] == "The value."
    assert properties["factor"]["description"] == "The factor."


def test_annotated_prop_description_wins_over_the_docstring() -> None:
    @tool
    async def echo(text: Annotated[str, Prop(description="What to say")]) -> str:
        """Echo.

        Args:
            text: Something else.
        """
        return text

    assert schema(echo)["properties"]["text"]["description"] == "What to say"


def test_name_and_description_can_be_given() -> None:
    @tool(name="say", description="Say something.", timeout_ms=250)
    async def echo(text: str) -> str:
        """Echo the text back."""
        return text

    assert (echo.name, echo.description, echo.timeout_ms) == ("say", "Say something.", 250)


def test_parameters_without_descriptions_have_none() -> None:
    @tool
    async def ping(host: str) -> str:
        """Ping a host."""
        return host

    assert schema(ping) == {"type": "object", "properties": {"host": {"type": "string"}}, "required": ["host"]}


def test_unions_and_literals_of_every_json_scalar() -> None:
    @tool
    async def pick(
        key: int | str,
        level: Literal[1, 2, 3],
        flag: Literal[True],
        mixed: Literal["auto", 0, False, None] = "auto",
        maybe: int | str | None = None,
    ) -> str:
        """Pick."""
        return ""

    properties = schema(pick)["properties"]
    assert properties["key"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert properties["level"] == {"type": "integer", "enum": [1, 2, 3]}
    assert properties["flag"] == {"type": "boolean", "enum": [True]}
    assert properties["mixed"] == {
        "anyOf": [
            {"type": "string", "enum": ["auto"]},
            {"type": "integer", "enum": [0]},
            {"type": "boolean", "enum": [False]},
            {"type": "null"},
        ],
        "default": "auto",
    }
    assert properties["maybe"] == {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}


def test_mappings_and_sequences() -> None:
    @tool
    async def tally(counts: dict[str, int], names: Sequence[str] = ()) -> str:
        """Tally."""
        return ""

    properties = schema(tally)["properties"]
    assert properties["counts"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert properties["names"] == {"type": "array", "items": {"type": "string"}, "default": []}


def test_the_code_mode_sdk_renders_unions() -> None:
    sdk = render_tools_sdk([_schema_of(connect)])
    assert "port?: number | string" in sdk
    assert 'mode?: "fast" | "safe"' in sdk


def _schema_of(definition: DefinedTool[Any]) -> dict[str, Any]:
    return {"name": definition.name, "description": definition.description, "parameters": schema(definition)}


# -- validation and the call ------------------------------------------------------


async def test_the_body_gets_validated_plain_arguments_defaults_and_the_execution() -> None:
    result = await call(connect, {"server": {"host": "db", "port": 5432}, "tags": ["a"]})
    assert not result.is_error, result.text
    assert thaw_json(result.content) == [{"type": "text", "text": "db:5432 x3 safe ['a'] [call-1]"}]


@pytest.mark.parametrize(
    ("arguments", "violation"),
    [
        ({}, "server: missing required property"),
        ({"server": {"host": "h"}, "retries": True}, "retries: expected integer, got boolean"),
        ({"server": {"host": "h"}, "retries": 1.5}, "retries: expected integer, got number"),
        ({"server": {"host": "h", "port": 1.5}}, "server.port: expected integer or string, got number"),
        ({"server": {"host": "h"}, "mode": "wild"}, 'mode: expected one of "fast", "safe"'),
        ({"server": {"host": 7}}, "server.host: expected string, got integer"),
        ({"server": {"host": "h"}, "tags": [1]}, "tags[0]: expected string, got integer"),
        ({"server": {"host": "h"}, "retries": None}, "retries: expected integer, got null"),
    ],
)
async def test_arguments_are_validated_as_strictly_as_define_tool(arguments: JsonValue, violation: str) -> None:
    ran: list[object] = []

    @tool
    async def strict(server: Server, retries: int = 3, mode: Literal["fast", "safe"] = "safe", tags: list[str] | None = None) -> str:
        """Strict."""
        ran.append(server)
        return ""

    result = await call(strict, arguments)
    assert result.is_error and result.error is not None and result.error.code == "INVALID_ARGS"
    assert violation in result.text
    assert ran == []


async def test_the_body_gets_mutable_plain_values_and_extra_keys_are_dropped() -> None:
    seen: list[object] = []

    @tool
    async def collect(items: list[dict[str, int]]) -> str:
        """Collect."""
        items.append({"added": 1})  # plain, mutable: the frozen arguments are untouched
        seen.append(items)
        return "ok"

    result = await call(collect, {"items": [{"a": 1}], "unexpected": "dropped"})
    assert result.text == "ok"
    assert seen == [[{"a": 1}, {"added": 1}]]
    assert type(seen[0]) is list


async def test_positional_only_parameters_are_passed_positionally() -> None:
    @tool
    async def span(start: int, stop: int = 10, /, step: int = 1) -> str:
        """Span."""
        return f"{start}:{stop}:{step}"

    assert (await call(span, {"start": 1})).text == "1:10:1"
    assert (await call(span, {"start": 1, "step": 2})).text == "1:10:2"
    assert (await call(span, {"start": 1, "stop": 4})).text == "1:4:1"


async def test_fn_is_the_original_function() -> None:
    async def original(a: int) -> str:
        """Original."""
        return str(a)

    assert tool(original).fn is original
    assert await tool(original).fn(2) == "2"


# -- outputs -------------------------------------------------------------------------


async def test_a_str_return_is_one_text_block_and_anything_else_is_an_output_error() -> None:
    @tool
    async def liar(flag: bool) -> str:
        """Returns a non-str when asked."""
        return "fine" if flag else 42  # type: ignore[return-value]

    assert thaw_json(liar.output_schema) == {"type": "string"}
    good = await call(liar, {"flag": True})
    assert thaw_json(good.content) == [{"type": "text", "text": "fine"}] and good.value == "fine"
    bad = await call(liar, {"flag": False})
    assert bad.is_error and bad.error is not None and bad.error.code == "OUTPUT_INVALID"
    assert "expected string, got integer" in bad.text


async def test_content_returns_pass_through() -> None:
    @tool
    async def blocks(text: str) -> list[ContentBlock]:
        """Blocks."""
        return [text_block(text), text_block(text.upper())]

    @tool
    async def with_meta(text: str) -> ToolOutput:
        """With meta."""
        return ToolOutput([text_block(text)], meta={"length": len(text)})

    assert blocks.output_schema is None and with_meta.output_schema is None
    assert (await call(blocks, {"text": "a"})).text == "a\nA"
    result = await call(with_meta, {"text": "abc"})
    assert (result.text, thaw_json(result.meta)) == ("abc", {"length": 3})


class Hit(TypedDict):
    path: str
    line: int


async def test_the_return_annotation_is_the_typed_output() -> None:
    @tool
    async def search(pattern: str) -> list[Hit]:
        """Search."""
        return [{"path": "a.py", "line": 3}]

    assert thaw_json(search.output_schema) == {
        "type": "array",
        "items": {"type": "object", "properties": {"path": {"type": "string"}, "line": {"type": "integer"}}, "required": ["path", "line"]},
    }
    result = await call(search, {"pattern": "x"})
    assert thaw_json(result.value) == [{"path": "a.py", "line": 3}]
    assert json.loads(result.text) == [{"path": "a.py", "line": 3}] and " " not in result.text  # compact JSON


async def test_a_typed_value_that_breaks_its_annotation_is_an_output_error() -> None:
    @tool
    async def count(text: str) -> int:
        """Count."""
        return "many"  # type: ignore[return-value]

    result = await call(count, {"text": "x"})
    assert result.error is not None and result.error.code == "OUTPUT_INVALID"
    assert "expected integer, got string" in result.text and result.value is None


async def test_t_or_tool_output_may_supply_its_own_content() -> None:
    @tool
    async def locate(name: str) -> Hit | ToolOutput:
        """Locate."""
        if name == "custom":
            return ToolOutput([text_block("found it")], value={"path": "b.py", "line": 1})
        return {"path": "a.py", "line": 2}

    assert locate.output_schema is not None and locate.output_schema["type"] == "object"
    custom = await call(locate, {"name": "custom"})
    assert (custom.text, thaw_json(custom.value)) == ("found it", {"path": "b.py", "line": 1})
    plain = await call(locate, {"name": "other"})
    assert thaw_json(plain.value) == {"path": "a.py", "line": 2}


async def test_output_replaces_the_annotation_schema() -> None:
    @tool(output=Prop("object", properties={"ok": Prop("boolean", required=True)}))
    async def check(target: str) -> JsonValue:
        """Check."""
        return {"ok": target == "good"}

    assert thaw_json(check.output_schema) == {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    assert thaw_json((await call(check, {"target": "good"})).value) == {"ok": True}


@pytest.mark.parametrize("annotation", [set[int], int | float, object])
def test_an_unsupported_return_annotation_is_a_type_error(annotation: object) -> None:
    async def body(a: int) -> str:
        """Body."""
        return ""

    body.__annotations__ = {"a": int, "return": annotation}
    with pytest.raises(TypeError, match="@tool body: unsupported return annotation"):
        tool(body)


# -- sync functions run in a thread -----------------------------------------------------


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (StopIteration, "Error: function raised StopIteration"),
        (StopIteration("done"), "Error: function raised StopIteration"),
        (StopAsyncIteration, "Error: StopAsyncIteration"),
    ],
)
async def test_a_sync_body_raising_stop_iteration_is_an_error_result_not_a_hang(error: BaseException, text: str) -> None:
    @tool
    def exhausted() -> str:
        """Reads one item too many."""
        raise error

    # an asyncio future refuses StopIteration; without the conversion the call never settles
    task = asyncio.create_task(call(exhausted, {}))
    done, _ = await asyncio.wait({task}, timeout=5)
    assert task in done, "the call never settled"
    result = task.result()
    assert result.is_error and result.error is None
    assert result.text == text


async def test_a_sync_function_runs_in_a_worker_thread() -> None:
    loop_thread = threading.get_ident()
    threads: list[int] = []

    @tool
    def where(label: str, *, exec: ToolExecution) -> str:
        """Where does this run."""
        threads.append(threading.get_ident())
        return f"{label} {exec.call_id}"

    result = await call(where, {"label": "x"})
    assert result.text == "x call-1"
    assert threads and threads[0] != loop_thread


async def test_a_sync_def_returning_a_coroutine_is_an_output_error_and_the_coroutine_is_closed() -> None:
    started: list[bool] = []

    async def later(n: int) -> str:
        started.append(True)
        return str(n)

    created: list[Any] = []

    def hidden(n: int) -> str:
        """A def (a decorator hid an async def) that hands back a coroutine."""
        coroutine = later(n)
        created.append(coroutine)
        return coroutine  # type: ignore[return-value]

    @tool
    def content(n: int) -> list[ContentBlock]:
        """The same, as a content tool."""
        coroutine = later(n)
        created.append(coroutine)
        return coroutine  # type: ignore[return-value]

    for definition in (tool(hidden), content):
        result = await call(definition, {"n": 1})
        assert result.error is not None and result.error.code == "OUTPUT_INVALID"
        assert result.text == (
            f'Error: tool "{definition.name}": invalid output: '
            "the function is a def but returned a coroutine; declare it with async def"
        )
    assert len(created) == 2 and all(c.cr_frame is None for c in created)  # closed, never run, never warned about
    assert started == []


async def test_a_cancelled_sync_call_waits_for_its_thread_before_cancelling() -> None:
    started = threading.Event()
    release = threading.Event()
    finished: list[bool] = []

    @tool
    def blocking(n: int) -> str:
        """Blocks until released."""
        started.set()
        release.wait()
        finished.append(True)
        return str(n)

    ctx = boot()
    ctx.tools.register(blocking)
    task = asyncio.create_task(ctx.tools.execute(ToolExecutionInput("c", "blocking", {"n": 1})))
    await asyncio.to_thread(started.wait)
    task.cancel()
    for _ in range(5):  # let the loop deliver the cancellation (and, without the wait, finish the task)
        await asyncio.sleep(0)
    assert not task.done()
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert finished == [True]


def test_a_function_tool_is_a_tool_definition() -> None:
    definition: ToolDefinition = connect
    ctx = boot()
    ctx.tools.register(definition)
    registered = ctx.tools.get("connect")
    assert registered is not None and registered.parameters == connect.parameters


# -- concurrency safety --------------------------------------------------------------------


def test_is_concurrency_safe_true_a_predicate_or_nothing() -> None:
    @tool(is_concurrency_safe=True)
    async def look(path: str) -> str:
        """Look."""
        return path

    @tool(is_concurrency_safe=lambda args: args.get("dry_run") is True)
    async def change(path: str, dry_run: bool = False) -> str:
        """Change."""
        return path

    @tool
    async def plain(path: str) -> str:
        """Plain."""
        return path

    ctx = boot()
    for definition in (look, change, plain):
        ctx.tools.register(definition)

    def mode(name: str, arguments: JsonValue) -> str:
        return ctx.tools.execution_mode(ToolExecutionInput("c", name, arguments))

    assert mode("look", {"path": "a"}) == "parallel"
    assert mode("look", {"path": 1}) == "exclusive"  # invalid arguments are never parallel
    assert mode("change", {"path": "a", "dry_run": True}) == "parallel"
    assert mode("change", {"path": "a"}) == "exclusive"
    assert mode("plain", {"path": "a"}) == "exclusive"


def test_a_non_callable_concurrency_safety_is_refused() -> None:
    with pytest.raises(TypeError, match="is_concurrency_safe"):
        tool(is_concurrency_safe="yes")(_echo)  # type: ignore[call-overload]


async def _echo(text: str) -> str:
    """Echo."""
    return text


async def test_safe_sync_tools_overlap_in_a_batch_in_their_threads() -> None:
    both_running = threading.Barrier(2)

    @tool(is_concurrency_safe=True)
    def meet(name: str) -> str:
        """Wait until the sibling call runs too (deadlocks unless the two overlap)."""
        both_running.wait(timeout=30)
        return name

    ctx = boot()
    ctx.tools.register(meet)
    results = await ctx.tools.execute_batch([ToolExecutionInput(f"c{i}", "meet", {"name": str(i)}) for i in range(2)])
    assert [r.text for r in results] == ["0", "1"]


async def test_a_mutable_default_is_a_fresh_copy_for_every_call_and_agent() -> None:
    # issue 24 #17: the function's own default list was passed, so one agent's notes reached another's call.
    @tool
    async def note(text: str, notes: list[str] = [], tags: dict[str, str] = {}, /) -> list[str]:  # noqa: B006
        """Note."""
        notes.append(text)
        tags[text] = text
        return notes

    ctx = boot()
    ctx.tools.register(note)
    first, second = Agent(ctx, name="first"), Agent(ctx, name="second")
    one = await first.ctx.tools.execute(ToolExecutionInput("c1", "note", {"text": "secret"}))
    two = await second.ctx.tools.execute(ToolExecutionInput("c2", "note", {"text": "hello"}))
    assert (one.value, two.value) == (("secret",), ("hello",))
    assert note.fn.__defaults__ == ([], {}), "the function's own default objects are never handed out"


async def test_a_mutable_keyword_default_is_a_fresh_copy_for_every_call() -> None:
    @tool
    async def gather(text: str, *, seen: list[str] = []) -> list[str]:  # noqa: B006
        """Gather."""
        seen.append(text)
        return seen

    ctx = boot()
    ctx.tools.register(gather)
    first = await ctx.tools.execute(ToolExecutionInput("c1", "gather", {"text": "a"}))
    second = await ctx.tools.execute(ToolExecutionInput("c2", "gather", {"text": "b"}))
    assert (first.value, second.value) == (("a",), ("b",))
    assert gather.fn.__kwdefaults__ == {"seen": []}, "the function's own default object is never handed out"
