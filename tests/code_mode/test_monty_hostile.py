"""The Python sandbox (``MontyCodeRuntime``) against hostile and broken programs: the twins of the Deno tests.

Each bad program ends as one result with ``error`` set, never an exception out
of ``run()``, and leaves no worker process behind once the runtime is disposed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from dsh_tools import AbortController, MontyCodeRuntime
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest, CodeRunResult
from dsh_tools.json_values import JsonValue


async def echo(args: JsonValue) -> JsonValue:
    return args


async def fails(args: JsonValue) -> JsonValue:
    raise RuntimeError("Error: no such file")


BINDINGS = [CodeBindingNamespace("tools", {"echo": echo, "fails": fails, "my-tool": echo, "__class__": echo})]


@pytest.fixture
async def runtime() -> AsyncIterator[MontyCodeRuntime]:
    made = MontyCodeRuntime(compute_ms=1_000, max_wall_ms=10_000, max_heap_mb=64, max_log_bytes=1_000, max_value_bytes=200)
    yield made
    await made.dispose()
    assert not made.live_pids


async def run(runtime: MontyCodeRuntime, program: str, **extra: Any) -> CodeRunResult:
    return await runtime.run(CodeRunRequest(program, BINDINGS, **extra))


def failed(result: CodeRunResult, kind: str, *fragments: str) -> None:
    assert result.error is not None, result
    assert result.error.kind == kind, result.error
    for fragment in fragments:
        assert fragment in result.error.message, result.error.message


async def test_identity_and_plain_values(runtime: MontyCodeRuntime) -> None:
    assert (runtime.language, runtime.isolation) == ("python", "process")
    assert (await run(runtime, "return 1 + 1")).value == 2
    assert (await run(runtime, "x = 1")).value is None
    assert (await run(runtime, "return (1, [2], {'a': None})")).value == (1, (2,), {"a": None})


async def test_syntax_errors_are_reported_with_the_line(runtime: MontyCodeRuntime) -> None:
    failed(await run(runtime, "x = 1\ny = 2\nif x\n    pass"), "exception", "SyntaxError", "line 3")


@pytest.mark.parametrize("module", ["socket", "subprocess", "ctypes", "urllib.request", "threading", "multiprocessing"])
async def test_importing_what_the_sandbox_lacks(runtime: MontyCodeRuntime, module: str) -> None:
    failed(await run(runtime, f"import {module}"), "exception", "ModuleNotFoundError")


@pytest.mark.parametrize(
    ("program", "fragment"),
    [
        ("return open('/etc/passwd').read()", "PermissionError"),
        ("import os\nreturn os.listdir('/')", "Error"),
        ("import os\nreturn os.environ['HOME']", "not supported"),
        ("import os\nreturn os.getenv('HOME')", "Error"),
        ("import os\nos.system('true')", "AttributeError"),
        ("from pathlib import Path\nreturn Path('/etc/hostname').read_text()", "PermissionError"),
        ("__import__('os').system('true')", "Error"),
    ],
)
async def test_no_files_environment_or_processes(runtime: MontyCodeRuntime, program: str, fragment: str) -> None:
    failed(await run(runtime, program), "exception", fragment)


async def test_an_infinite_loop_times_out(runtime: MontyCodeRuntime) -> None:
    failed(await run(runtime, "print('spinning')\nwhile True:\n    pass"), "timeout", "time limit")


async def test_endless_recursion_fails(runtime: MontyCodeRuntime) -> None:
    failed(await run(runtime, "def f(n):\n    return f(n + 1)\nf(0)"), "exception", "RecursionError")


@pytest.mark.parametrize("program", ["x = 'a' * (10 ** 10)", "x = []\nwhile True:\n    x.append('a' * 1_000_000)"])
async def test_a_memory_bomb_fails(runtime: MontyCodeRuntime, program: str) -> None:
    failed(await run(runtime, program), "exception", "MemoryError")


async def test_a_program_catching_every_exception_still_ends_at_its_budgets(runtime: MontyCodeRuntime) -> None:
    spin = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
    failed(await run(runtime, spin), "timeout")
    hog = "x = []\nwhile True:\n    try:\n        x.append('a' * 1_000_000)\n    except BaseException:\n        pass"
    assert (await run(runtime, hog)).error is not None


async def test_huge_output_is_truncated_once(runtime: MontyCodeRuntime) -> None:
    result = await run(runtime, "for i in range(100_000):\n    print('line', i)\nreturn 'done'")
    assert result.value == "done"
    texts = [entry.text for entry in result.logs]
    assert texts[0] == "line 0" and sum("[logs truncated" in text for text in texts) == 1
    assert sum(len(text) + 1 for text in texts) < 1_200


async def test_a_huge_value_is_truncated(runtime: MontyCodeRuntime) -> None:
    result = await run(runtime, "return 'x' * 10_000")
    assert isinstance(result.value, str) and "[value truncated" in result.value and len(result.value) < 400


async def test_forged_protocol_calls_are_refused(runtime: MontyCodeRuntime) -> None:
    failed(await run(runtime, "await _dsh_call(0, 'nope', (), {})"), "exception", "TypeError: no tool named 'nope'")
    failed(await run(runtime, "await _dsh_call(7, 'echo', (), {})"), "exception", "TypeError: not a tool binding")
    failed(await run(runtime, "await _dsh_call(0, 'echo', [1], {})"), "exception", "malformed call")
    failed(await run(runtime, "print('{\"ok\": true}')\nawait tools.echo(1, 2)"), "exception", "takes keyword arguments")
    # a forged "value" line in the output is only output
    result = await run(runtime, "print('{\"value\": 42}')\nreturn 1")
    assert result.value == 1 and [e.text for e in result.logs] == ['{"value": 42}']


async def test_bindings_keywords_a_dict_exotic_names_and_failures(runtime: MontyCodeRuntime) -> None:
    program = """
a = await tools.echo(path="x", n=[1, 2])
b = await tools["my-tool"]({"a-b": True})
c = await tools["__class__"]({})
try:
    await tools.fails()
except ToolError as error:
    d = str(error)
return [a, b, c, d]
"""
    result = await run(runtime, program)
    assert result.value == ({"path": "x", "n": (1, 2)}, {"a-b": True}, {}, "Error: no such file"), result


async def test_arguments_that_are_not_json_are_a_type_error(runtime: MontyCodeRuntime) -> None:
    failed(await run(runtime, "await tools.echo(x=b'bytes')"), "exception", "TypeError", "not JSON")


async def test_gather_runs_calls_together(runtime: MontyCodeRuntime) -> None:
    result = await run(runtime, "import asyncio\nreturn await asyncio.gather(*[tools.echo(i=i) for i in range(5)])")
    assert result.value == tuple({"i": i} for i in range(5))


async def test_state_is_fresh_for_every_run(runtime: MontyCodeRuntime) -> None:
    await run(runtime, "import random\nrandom.seed(1)\nleftover = 5")
    failed(await run(runtime, "return leftover"), "exception", "NameError")


async def test_seed_and_clock_repeat(runtime: MontyCodeRuntime) -> None:
    program = "import random, time\nfrom datetime import date\nreturn [random.random(), time.time(), time.monotonic(), str(date.today())]"
    first = await run(runtime, program, seed=11)
    again = await run(runtime, program, seed=11, clock=first.clock)
    assert first.value == again.value and len(first.clock) == 3 and again.clock == first.clock


async def test_an_abort_ends_the_run(runtime: MontyCodeRuntime) -> None:
    controller = AbortController()
    started = asyncio.Event()

    async def wait(args: JsonValue) -> JsonValue:
        started.set()
        await asyncio.Event().wait()
        return None

    request = CodeRunRequest("await tools.wait()", [CodeBindingNamespace("tools", {"wait": wait})], controller.signal)
    task = asyncio.ensure_future(runtime.run(request))
    await started.wait()
    controller.abort("stop")
    failed(await task, "abort", "stop")
    aborted = AbortController()
    aborted.abort("early")
    failed(await runtime.run(CodeRunRequest("return 1", BINDINGS, aborted.signal)), "abort", "early")


async def test_the_wall_budget_ends_a_waiting_program() -> None:
    runtime = MontyCodeRuntime(max_wall_ms=300)

    async def never(args: JsonValue) -> JsonValue:
        await asyncio.Event().wait()
        return None

    try:
        result = await runtime.run(CodeRunRequest("await tools.never()", [CodeBindingNamespace("tools", {"never": never})]))
        failed(result, "timeout", "wall-clock")
    finally:
        await runtime.dispose()
    assert not runtime.live_pids


async def test_dispose_ends_in_flight_runs_and_later_runs_raise() -> None:
    runtime = MontyCodeRuntime()
    task = asyncio.ensure_future(runtime.run(CodeRunRequest("while True:\n    pass", BINDINGS)))
    await runtime.warm()
    await runtime.dispose()
    await asyncio.gather(task, return_exceptions=True)
    assert not runtime.live_pids
    with pytest.raises(RuntimeError, match="disposed"):
        await runtime.run(CodeRunRequest("return 1", BINDINGS))


async def test_no_worker_is_left_after_any_outcome() -> None:
    runtime = MontyCodeRuntime(compute_ms=300, max_heap_mb=32)
    for program in ["return 1", "raise ValueError()", "while True:\n    pass", "x = 'a' * 10 ** 9", "x = (\n"]:
        assert (await runtime.run(CodeRunRequest(program, BINDINGS))) is not None
    await runtime.dispose()
    assert not runtime.live_pids


async def test_bad_namespaces_are_refused_before_a_worker_is_taken(runtime: MontyCodeRuntime) -> None:
    for name in ["tools; import os", "class", "_hidden", ""]:
        with pytest.raises(ValueError, match="global names"):
            await runtime.run(CodeRunRequest("return 1", [CodeBindingNamespace(name, {})]))


async def test_a_program_that_never_settles_ends_at_the_wall_budget() -> None:
    runtime = MontyCodeRuntime(max_wall_ms=300)
    try:
        result = await runtime.run(CodeRunRequest("import asyncio\nawait asyncio.Event().wait()", BINDINGS))
        assert result.error is not None and result.error.kind in ("timeout", "exception"), result
    finally:
        await runtime.dispose()
    assert not runtime.live_pids


async def test_a_lone_surrogate_in_the_program_is_a_failure(runtime: MontyCodeRuntime) -> None:
    result = await run(runtime, "return '\ud800'")
    assert result.error is not None or isinstance(result.value, str)
