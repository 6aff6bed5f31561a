"""DenoCodeRuntime against the real Deno binary: values, TypeScript, logs, bindings."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence

import pytest

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import Binding, CodeBindingNamespace, CodeLogEntry, CodeRunRequest, CodeRunResult
from dsh_tools.json_values import JsonValue, thaw_json


@pytest.fixture
async def runtime() -> AsyncIterator[DenoCodeRuntime]:
    rt = DenoCodeRuntime(compute_ms=2000, max_wall_ms=10_000)
    yield rt
    await rt.dispose()


async def run(rt: DenoCodeRuntime, program: str, functions: Mapping[str, Binding] | None = None) -> CodeRunResult:
    bindings: Sequence[CodeBindingNamespace] = [CodeBindingNamespace("tools", functions or {})]
    return await rt.run(CodeRunRequest(program, bindings))


def console(result: CodeRunResult) -> list[tuple[str | None, str]]:
    return [(e.level, e.text) for e in result.logs if e.source == "console"]


async def test_identity(runtime: DenoCodeRuntime) -> None:
    assert runtime.language == "typescript"
    assert runtime.isolation == "process"


async def test_plain_return_value(runtime: DenoCodeRuntime) -> None:
    result = await run(runtime, "return {a: [1, 'two', null, true], b: 2.5}")
    assert result.error is None
    assert thaw_json(result.value) == {"a": [1, "two", None, True], "b": 2.5}


async def test_no_return_is_none(runtime: DenoCodeRuntime) -> None:
    result = await run(runtime, "const x = 1;")
    assert result.error is None and result.value is None


async def test_top_level_await(runtime: DenoCodeRuntime) -> None:
    result = await run(runtime, "const v = await new Promise<number>((r) => setTimeout(() => r(41), 5)); return v + 1")
    assert result.error is None and result.value == 42


async def test_typescript_annotations_and_interfaces(runtime: DenoCodeRuntime) -> None:
    program = """
    interface Point { x: number; y: number }
    type Pair = [Point, Point];
    enum Color { Red = "red" }
    const dist = (p: Pair): number => Math.hypot(p[0].x - p[1].x, p[0].y - p[1].y);
    const pair: Pair = [{x: 0, y: 0}, {x: 3, y: 4}];
    return `${dist(pair)} ${Color.Red}` as string;
    """
    result = await run(runtime, program)
    assert result.error is None, result.error
    assert result.value == "5 red"


async def test_thrown_error_is_exception_with_message(runtime: DenoCodeRuntime) -> None:
    result = await run(runtime, "throw new RangeError('out of range')")
    assert result.error is not None and result.error.kind == "exception"
    assert "RangeError: out of range" in result.error.message
    assert "blob:" not in result.error.message


async def test_syntax_error_is_exception(runtime: DenoCodeRuntime) -> None:
    result = await run(runtime, "return (1 +")
    assert result.error is not None and result.error.kind == "exception"


async def test_non_json_completion_value_is_inspected(runtime: DenoCodeRuntime) -> None:
    result = await run(runtime, "return 10n")
    assert result.error is None and result.value == "10n"
    result = await run(runtime, "const a: any = {}; a.self = a; return a")
    assert result.error is None and isinstance(result.value, str) and "Circular" in result.value


async def test_value_cap_marks_truncated(runtime: DenoCodeRuntime) -> None:
    rt = DenoCodeRuntime(max_value_bytes=100)
    try:
        result = await run(rt, "return 'x'.repeat(5000)")
    finally:
        await rt.dispose()
    assert result.error is None and isinstance(result.value, str)
    assert result.value.count("truncated") == 1
    assert len(result.value.encode()) < 300


async def test_console_levels_and_formatting(runtime: DenoCodeRuntime) -> None:
    program = """
    console.log('plain', {a: 1}, [1, 2], 3);
    console.info('%s is %d', 'answer', 42);
    console.warn('w');
    console.error(new Map([[1, 2]]));
    console.debug('d');
    """
    result = await run(runtime, program)
    assert result.error is None
    assert console(result) == [
        ("log", "plain { a: 1 } [ 1, 2 ] 3"),
        ("info", "answer is 42"),
        ("warn", "w"),
        ("error", "Map(1) { 1 => 2 }"),
        ("debug", "d"),
    ]


async def test_raw_stdout_and_stderr_become_entries(runtime: DenoCodeRuntime) -> None:
    program = """
    const enc = new TextEncoder();
    Deno.stdout.writeSync(enc.encode('out line\\npartial'));
    Deno.stderr.writeSync(enc.encode('err line\\n'));
    console.log('via console');
    return 1;
    """
    result = await run(runtime, program)
    assert result.error is None
    assert CodeLogEntry("stdout", "out line") in result.logs
    assert CodeLogEntry("stdout", "partial") in result.logs
    assert CodeLogEntry("stderr", "err line") in result.logs
    assert ("log", "via console") in console(result)


async def test_bindings_round_trip(runtime: DenoCodeRuntime) -> None:
    seen: list[JsonValue] = []

    async def echo(args: JsonValue) -> JsonValue:
        seen.append(thaw_json(args))  # type: ignore[arg-type]
        return {"got": args, "n": len(seen)}

    program = "const a = await tools.echo({x: [1, 'y']}); const b = await tools.echo('s'); return [a, b]"
    result = await run(runtime, program, {"echo": echo})
    assert result.error is None
    assert thaw_json(result.value) == [{"got": {"x": [1, "y"]}, "n": 1}, {"got": "s", "n": 2}]
    assert seen == [{"x": [1, "y"]}, "s"]


async def test_concurrent_binding_calls(runtime: DenoCodeRuntime) -> None:
    async def slow(args: JsonValue) -> JsonValue:
        await asyncio.sleep(0.05 if args == 1 else 0)
        return args

    result = await run(runtime, "return await Promise.all([tools.slow(1), tools.slow(2), tools.slow(3)])", {"slow": slow})
    assert result.error is None and thaw_json(result.value) == [1, 2, 3]


async def test_binding_raising_rejects_with_message(runtime: DenoCodeRuntime) -> None:
    async def bad(args: JsonValue) -> JsonValue:
        raise ValueError("no such file: x.txt")

    program = "try { await tools.bad({}); return 'no' } catch (e) { return [e instanceof Error, e.message] }"
    result = await run(runtime, program, {"bad": bad})
    assert result.error is None
    assert thaw_json(result.value) == [True, "no such file: x.txt"]


async def test_exotic_binding_names_are_ordinary(runtime: DenoCodeRuntime) -> None:
    async def named(args: JsonValue) -> JsonValue:
        return args

    functions: dict[str, Binding] = {"__proto__": named, "constructor": named, "toString": named}
    program = "return [await tools.__proto__(1), await tools.constructor(2), await tools.toString(3), Object.keys(tools).sort()]"
    result = await run(runtime, program, functions)
    assert result.error is None, result.error
    assert thaw_json(result.value) == [1, 2, 3, ["__proto__", "constructor", "toString"]]


async def test_inherited_names_are_not_bindings(runtime: DenoCodeRuntime) -> None:
    calls: list[JsonValue] = []

    async def f(args: JsonValue) -> JsonValue:
        calls.append(args)
        return None

    program = "try { await tools.hasOwnProperty({}); return 'called' } catch (e) { return e.message }"
    result = await run(runtime, program, {"f": f})
    assert result.error is None
    assert result.value == "tools.hasOwnProperty is not a binding (known: tools.f)"
    assert calls == []


async def test_unknown_binding_rejects_clearly(runtime: DenoCodeRuntime) -> None:
    result = await run(runtime, "await tools.missing({})")
    assert result.error is not None and result.error.kind == "exception"
    assert "tools.missing is not a binding (no tools are bound to this program)" in result.error.message


async def test_a_missing_binding_is_spelled_as_the_program_must_write_it(runtime: DenoCodeRuntime) -> None:
    async def f(args: JsonValue) -> JsonValue:
        return None

    program = "try { await tools['get-weather']({}); return 'called' } catch (e) { return e.message }"
    result = await run(runtime, program, {"f": f, "read-file": f})
    assert result.error is None, result.error
    assert result.value == 'tools["get-weather"] is not a binding (known: tools.f, tools["read-file"])'


@pytest.mark.parametrize(
    ("expr", "what"),
    [
        ("10n", "BigInt"),
        ("(() => { const a: any = {}; a.a = a; return a })()", "circular"),
        ("undefined", "undefined"),
        ("{f: () => 1}", "function"),
        ("{n: NaN}", "non-finite"),
        ("{d: new Date()}", "not a plain object"),
    ],
)
async def test_non_json_arguments_reject_with_type_error(runtime: DenoCodeRuntime, expr: str, what: str) -> None:
    calls: list[JsonValue] = []

    async def f(args: JsonValue) -> JsonValue:
        calls.append(args)
        return None

    program = f"try {{ await tools.f({expr}); return 'sent' }} catch (e) {{ return [e.constructor.name, e.message] }}"
    result = await run(runtime, program, {"f": f})
    assert result.error is None, result.error
    assert isinstance(result.value, Sequence)
    name, message = result.value
    assert name == "TypeError"
    assert isinstance(message, str) and "JSON" in message and what in message
    assert calls == []


async def test_binding_returning_non_json_rejects(runtime: DenoCodeRuntime) -> None:
    async def bad(args: JsonValue) -> JsonValue:
        return {"x": float("nan")}

    result = await run(runtime, "try { await tools.bad(1) } catch (e) { return e.message }", {"bad": bad})
    assert isinstance(result.value, str) and "not JSON" in result.value


async def test_several_namespaces(runtime: DenoCodeRuntime) -> None:
    async def one(args: JsonValue) -> JsonValue:
        return 1

    async def two(args: JsonValue) -> JsonValue:
        return 2

    request = CodeRunRequest(
        "return [await a.f(0), await b.f(0)]",
        [CodeBindingNamespace("a", {"f": one}), CodeBindingNamespace("b", {"f": two})],
    )
    result = await runtime.run(request)
    assert thaw_json(result.value) == [1, 2]


async def test_no_state_shared_between_runs(runtime: DenoCodeRuntime) -> None:
    first = await run(runtime, "(globalThis as any).leak = 1; return Deno.pid")
    second = await run(runtime, "return [(globalThis as any).leak ?? null, Deno.pid]")
    assert isinstance(second.value, Sequence)
    assert second.value[0] is None
    assert second.value[1] != first.value


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ("setTimeout(() => { throw new Error('late') }, 0); await new Promise((r) => setTimeout(r, 50)); return 5", "Error: late"),
        ("Promise.reject(new Error('unh')); await new Promise((r) => setTimeout(r, 50)); return 5", "Error: unh"),
    ],
)
async def test_stray_async_errors_fail_the_run(runtime: DenoCodeRuntime, program: str, message: str) -> None:
    result = await run(runtime, program)
    assert result.value is None
    assert result.error is not None and result.error.kind == "exception"
    assert result.error.message.startswith(message)
