"""The queues' edges, in this process: bad names and options, hostile requests, executor ids, routing, prune, tracing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

import orjson
import pytest

import queue_tools
from cluster import until
from dsh_tools import (
    AbortController,
    Agent,
    Context,
    ExecuteListener,
    Retry,
    ToolDefinition,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    tool,
)
from dsh_tools.hooks import ExecuteNext
from dsh_tools.dbos import QueueOptions, configure
from dsh_tools.dbos.codec import Request, decode_request, decode_result, encode_request, encode_result, workflow_id
from dsh_tools.dbos.names import STARTED_STEP, sqlite_file, system_database_url
from dsh_tools.dbos.recovery import ExecutorBusy, check_executor_id, lock_executor
from dsh_tools.dbos.standins import DEFAULT_LIMIT, StandIns
from dsh_tools.dbos.seam import check_queue_name, check_routes

if TYPE_CHECKING:
    from dbos import DBOSClient

    from dsh_tools.dbos.worker import WorkerRuntime


@pytest.mark.parametrize("name", ["", "Sandbox", "a b", "_dbos_x", "-x", "x" * 49, "é", None, 3])
def test_bogus_queue_names_are_value_errors(name: object) -> None:
    with pytest.raises(ValueError, match="a queue name is"):
        check_queue_name(name)
    if name is not None:  # None routes to "here"
        with pytest.raises(ValueError, match="a queue name is"):
            boot(queues={"*": name})  # type: ignore[dict-item]


def test_routes_are_checked_and_all_none_routes_nothing() -> None:
    assert check_routes({"*": None, "x": None}) is None
    assert check_routes({"run_code": "sandbox", "*": None}) == {"run_code": "sandbox", "*": None}
    with pytest.raises(TypeError):
        check_routes(["sandbox"])
    with pytest.raises(ValueError):
        check_routes({"": "sandbox"})


@pytest.mark.parametrize(
    "options",
    [
        QueueOptions(concurrency=0),
        QueueOptions(worker_concurrency=3, concurrency=2),
        QueueOptions(rate_limit=(0, 1.0)),
        QueueOptions(rate_limit=(1, 0.0)),
        QueueOptions(rate_limit=(1, float("inf"))),
        QueueOptions(polling_interval_s=0),
        QueueOptions(polling_interval_s=61),
        QueueOptions(max_payload_bytes=10),
        "fast",
    ],
)
def test_bogus_options_are_value_errors(tmp_path: Path, options: object) -> None:
    with pytest.raises(ValueError, match='queue "q"'):
        configure(f"sqlite:///{tmp_path / 'c.db'}", queues={"q": options})  # type: ignore[dict-item]


def test_a_store_dbos_cannot_share_is_refused() -> None:
    for url in ("memory:", "mysql://x", "sqlite:///"):
        with pytest.raises(ValueError, match="durable store"):
            system_database_url(url)
    assert system_database_url("sqlite:////a/b.db") == "sqlite:////a/b.db.dbos"
    assert system_database_url("postgres://u@h/d") == "postgresql://u@h/d"
    assert sqlite_file("sqlite:////a/b.db.dbos") == "/a/b.db.dbos" and sqlite_file("postgresql://u@h/d") is None


async def test_a_route_to_an_unconfigured_queue_settles_queue_unavailable() -> None:
    ctx = boot(queues={"*": "nowhere"})
    queue_tools.register(ctx)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "echo", {"text": "hi"}))
    assert result.error is not None and result.error.code == "QUEUE_UNAVAILABLE"
    assert result.text.startswith('Error: queue "nowhere" is not reachable: no dispatcher is configured')
    (record,) = await ctx.tools.store.journal(call_id="c1")
    assert record.outcome == "error"


async def test_an_unreachable_queue_database_settles_queue_unavailable(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    queues = configure(url, queues={"q": QueueOptions()})
    try:
        Path(str(sqlite_file(system_database_url(url)))).unlink()  # DBOS's file is gone
        Path(tmp_path / "c.db.dbos").mkdir()  # and a directory stands in its place
        ctx = boot(queues={"*": "q"})
        queue_tools.register(ctx)
        result = await asyncio.wait_for(ctx.tools.execute(ToolExecutionInput("c1", "echo", {"text": "hi"})), 30)
        assert result.error is not None and result.error.code == "QUEUE_UNAVAILABLE", result.text
    finally:
        queues.close()


@pytest.mark.parametrize(
    "text",
    [
        3,
        "not json",
        "[]",
        '{"format": 2}',
        '{"format": 1}',
        '{"format": 1, "call_id": 1}',
        orjson.dumps({"format": 1, "call_id": "c", "name": "n", "idempotency_key": "k", "fingerprint": "f",
                      "dispatch": True, "max_payload_bytes": 1, "enqueued_at": 0, "arguments": {}}).decode(),
        orjson.dumps({"format": 1, "call_id": "c", "name": "n", "idempotency_key": "k", "fingerprint": "f",
                      "dispatch": 1, "max_payload_bytes": 1, "enqueued_at": 0, "arguments": {},
                      "restrictions": [["x", []]]}).decode(),
        orjson.dumps({"format": 1, "call_id": "c", "name": "n", "idempotency_key": "k", "fingerprint": "f",
                      "dispatch": 1, "max_payload_bytes": 1, "enqueued_at": 0, "arguments": {}, "trace": [[1, 2]]}).decode(),
    ],
)
def test_a_hostile_request_is_a_value_error(text: object) -> None:
    with pytest.raises(ValueError):
        decode_request(text)


def test_a_request_and_a_result_round_trip() -> None:
    request = Request("c1", "echo", {"text": "hé", "n": [1, 2.5, None]}, "k" * 32, 2, "f" * 64, 1.5, 4096,
                      agent_id="a:b", agent_name="A", mode="code", restrictions=((("x",), ()), (None, ("y",))),
                      catalog="c", approved=True, trace=(("traceparent", "00-x"),))
    assert decode_request(encode_request(request)) == request
    assert workflow_id("a:b", "k", 2) == "dsh:a:b:k:2" and workflow_id(None, "k", 1) == "dsh:-:k:1"
    with pytest.raises(ValueError):
        decode_result('{"result": {}, "outcome": "ok"}')
    with pytest.raises(ValueError):
        decode_result('{"result": {"callId": "c", "content": [], "isError": false}, "outcome": "maybe"}')


_OK_WIRE = {"callId": "c", "content": [], "isError": False}
HOSTILE_RESULTS = [
    3,
    "not json",
    "[]",
    '{"result": [], "outcome": "ok"}',
    '{"outcome": "ok"}',
    orjson.dumps({"result": _OK_WIRE, "outcome": "maybe"}).decode(),
    orjson.dumps({"result": _OK_WIRE, "outcome": ["ok"]}).decode(),
    orjson.dumps({"result": {**_OK_WIRE, "error": "x"}, "outcome": "error"}).decode(),
    orjson.dumps({"result": {**_OK_WIRE, "additionalContext": []}, "outcome": "ok"}).decode(),
    orjson.dumps({"result": {**_OK_WIRE, "additionalContext": {"content": "x", "source": 3}}, "outcome": "ok"}).decode(),
]


@pytest.mark.parametrize("text", HOSTILE_RESULTS)
def test_a_hostile_result_is_a_value_error(text: object) -> None:
    with pytest.raises(ValueError, match="a queued call's result does not read as one"):
        decode_result(text)


def test_a_hostile_result_is_a_value_error_under_python_o() -> None:
    """The checks are not ``assert``s: ``python -O`` keeps them."""
    script = (
        "import sys, orjson\n"
        "from dsh_tools.dbos.codec import decode_result\n"
        "for text in orjson.loads(sys.stdin.read()):\n"
        "    try:\n"
        "        decode_result(text)\n"
        "    except ValueError:\n"
        "        continue\n"
        "    print('read as a result:', text)\n"
    )
    finished = subprocess.run(
        [sys.executable, "-O", "-c", script], input=orjson.dumps(HOSTILE_RESULTS).decode(), capture_output=True, text=True,
        timeout=120,
    )
    assert finished.returncode == 0 and finished.stdout == "", finished.stdout + finished.stderr


async def test_results_of_every_shape_round_trip() -> None:
    from dsh_tools.demo.tools import register as demo_tools  # typed values, images, errors

    ctx = boot()
    demo_tools(ctx)
    results = [await ctx.tools.execute(ToolExecutionInput(f"c{i}", name, {})) for i, name in enumerate(ctx.tools.known_names())]
    results.append(await ctx.tools.execute(ToolExecutionInput("bad", "nope", {})))
    for result in results:
        back = decode_result(encode_result(result))
        assert (back.to_json(), back.value, back.outcome) == (result.to_json(), result.value, result.outcome)


@pytest.mark.parametrize("executor_id", ["", " x", "a b", "x\x00", "é", "-x", "x" * 201, None])
def test_bogus_executor_ids_are_value_errors(executor_id: object) -> None:
    with pytest.raises(ValueError, match="an executor id is"):
        check_executor_id(executor_id)


def test_one_live_holder_per_executor_id(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db.dbos'}"
    held = lock_executor(url, "w1")
    try:
        with pytest.raises(ExecutorBusy):
            lock_executor(url, "w1")
        lock_executor(url, "w2").release()
    finally:
        held.release()
    lock_executor(url, "w1").release()  # free again once its holder let go (or died)


def _cli(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "dsh_tools.cli", *arguments], capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def test_the_worker_command_refuses_bad_usage_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    cases = [
        (["worker", "--store", url], "needs MODULE... and --queue"),
        (["worker", "queue_tools", "--store", url, "--queue", "Bad Name"], "a queue name is"),
        (["worker", "queue_tools", "--store", "memory:", "--queue", "q"], "durable store"),
        (["worker", "queue_tools", "--store", url, "--queue", "q", "--executor-id", "no spaces"], "an executor id is"),
        (["worker", "--recover", "w1", "--store", url, "--queue", "q"], "--recover ID takes no MODULE"),
        (["worker", "--recover", "bad id", "--store", url], "an executor id is"),
    ]
    for arguments, message in cases:
        finished = _cli(*arguments)
        assert finished.returncode == 2, finished.stderr
        assert message in finished.stderr and "Traceback" not in finished.stderr, finished.stderr


def test_recover_of_an_unknown_or_live_executor_id(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    configure(url, queues={"q": QueueOptions()}).close()
    unknown = _cli("worker", "--recover", "nobody", "--store", url)
    assert unknown.returncode == 0 and "holds no unfinished calls" in unknown.stdout, unknown.stderr
    held = lock_executor(system_database_url(url), "alive")
    try:
        alive = _cli("worker", "--recover", "alive", "--store", url)
    finally:
        held.release()
    assert alive.returncode == 2 and 'executor "alive" is alive' in alive.stderr


def test_a_second_live_worker_with_the_same_id_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'c.db'}"
    configure(url, queues={"q": QueueOptions()}).close()
    held = lock_executor(system_database_url(url), "twin")
    try:
        twin = _cli("worker", "queue_tools", "--store", url, "--queue", "q", "--executor-id", "twin", cwd=Path(__file__).parent)
    finally:
        held.release()
    assert twin.returncode == 2 and 'executor id "twin" is held by a live worker' in twin.stderr, twin.stderr


async def test_prune_retires_the_workflow_rows_of_pruned_calls(tmp_path: Path) -> None:
    from dbos import DBOSClient

    url = f"sqlite:///{tmp_path / 'c.db'}"
    queues = configure(url, queues={"q": QueueOptions()})
    ctx = boot(store=url)
    store = ctx.tools.store
    client = DBOSClient(system_database_url=system_database_url(url))
    try:
        for wid, finished in (("dsh:a:k1:1", True), ("dsh:a:k2:1", False), ("theirs:1", True)):
            await client.enqueue_async({"workflow_name": "w", "queue_name": "q", "workflow_id": wid, "application_name": "dsh-tools-q"}, "x")
            if finished:
                await client.cancel_workflow_async(wid)  # finished (CANCELLED): nothing will run it any more
        await store.prune(before=time.time() + 60)
        left = sorted(status.workflow_id for status in await client.list_workflows_async(load_input=False, load_output=False))
        assert left == ["dsh:a:k2:1", "theirs:1"]  # ours and finished: retired; unfinished and others': kept
    finally:
        client.destroy()
        queues.close()
        await store.aclose()


async def test_the_tracing_context_crosses_with_the_call(monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from dsh_tools.dbos.tracing import trace_carrier, worker_span

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    from opentelemetry import trace

    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("caller"):
        carrier = trace_carrier()
    assert dict(carrier).get("traceparent", "").startswith("00-")
    # The worker's global provider, for this test only: OpenTelemetry lets a process set it once (another test
    # may have), so it is put in place directly and monkeypatch puts back what was there.
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", provider)
    assert trace.get_tracer_provider() is provider
    with worker_span("echo", "c1", "q", carrier, time.time() - 0.25):
        pass
    caller_span, worker = (span for span in exporter.get_finished_spans())
    assert worker.context.trace_id == caller_span.context.trace_id and worker.parent is not None
    assert worker.parent.span_id == caller_span.context.span_id
    assert worker.attributes is not None and float(str(worker.attributes["dsh_tools.queue.wait_ms"])) >= 250


async def test_configure_reuses_a_dbos_another_library_configured(tmp_path: Path) -> None:
    from dbos import DBOS

    from dsh_tools.dbos.options import system_database

    theirs = f"sqlite:///{tmp_path / 'theirs.sqlite'}"
    DBOS(config={"name": "their-app", "system_database_url": theirs})
    try:
        assert system_database(f"sqlite:///{tmp_path / 'c.db'}") == (theirs, "dbos", None)
    finally:
        DBOS.destroy(destroy_registry=False)


def ann_stand_ins(limit: int = DEFAULT_LIMIT) -> tuple[Context, StandIns, Request]:
    """A registry of the queue tools, its stand-ins, and a call of agent "a1" (Ann) to vary."""
    ctx = boot()
    queue_tools.register(ctx)
    return ctx, StandIns(ctx, limit=limit), Request("c", "record", {"n": 1}, "k", 1, "f", 0.0, 4096, agent_id="a1", agent_name="Ann")


async def test_a_worker_stand_in_acts_with_the_call_s_mode_and_restrictions() -> None:
    ctx, standins, base = ann_stand_ins(limit=2)
    async with standins.acting(base.set(restrictions=((("record", "ghost"), ()),), mode="code")) as agent:
        assert agent is not None and agent.id == "a1" and agent.name == "Ann"
        assert ctx.tools.mode_for(agent) == "code"
        assert [tool.name for tool in ctx.tools.end_capabilities(agent)] == ["record"]  # "ghost" is unknown here
    async with standins.acting(base) as again:
        assert again is agent and ctx.tools.mode_for(agent) == "native" and len(ctx.tools.end_capabilities(agent)) == 6
    for other in ("a2", "a3"):
        async with standins.acting(base.set(agent_id=other)):
            pass
    assert len(standins) == 2 and agent.ctx.disposed  # the oldest idle stand-in made room
    Agent(ctx, name="Ann", id="a1")  # its id is free again


async def test_concurrent_calls_of_one_agent_never_run_under_each_other_s_restrictions() -> None:
    """A call with other restrictions (or another mode) waits for the stand-in to be idle; the same ones share it."""
    ctx, standins, base = ann_stand_ins()
    only_record = base.set(restrictions=((("record",), ()),))
    only_echo = base.set(restrictions=((("echo",), ()),))
    seen: list[tuple[str, list[str]]] = []
    release = {name: asyncio.Event() for name in ("first", "second", "third")}
    inside = {name: asyncio.Event() for name in release}

    async def call(name: str, request: Request) -> None:
        async with standins.acting(request) as agent:
            assert agent is not None
            inside[name].set()
            seen.append((name, [tool.name for tool in ctx.tools.end_capabilities(agent)]))
            await release[name].wait()
            seen.append((name, [tool.name for tool in ctx.tools.end_capabilities(agent)]))

    first = asyncio.ensure_future(call("first", only_record))
    await asyncio.wait_for(inside["first"].wait(), 5)
    second = asyncio.ensure_future(call("second", only_echo))  # other restrictions: waits for "first"
    third = asyncio.ensure_future(call("third", only_record))  # the same as "first", but "second" waits: behind it
    for _ in range(10):
        await asyncio.sleep(0)
    assert not inside["second"].is_set() and not inside["third"].is_set()
    release["first"].set()
    await asyncio.wait_for(inside["second"].wait(), 5)
    assert not inside["third"].is_set()
    release["second"].set()
    await asyncio.wait_for(inside["third"].wait(), 5)
    release["third"].set()
    await asyncio.wait_for(asyncio.gather(first, second, third), 5)
    assert seen == [
        ("first", ["record"]), ("first", ["record"]),
        ("second", ["echo"]), ("second", ["echo"]),
        ("third", ["record"]), ("third", ["record"]),
    ]
    mode_code = base.set(mode="code")
    release = {name: asyncio.Event() for name in ("native", "code")}
    inside = {name: asyncio.Event() for name in release}
    modes: list[tuple[str, str]] = []

    async def in_mode(name: str, request: Request) -> None:
        async with standins.acting(request) as agent:
            inside[name].set()
            modes.append((name, ctx.tools.mode_for(agent)))
            await release[name].wait()
            modes.append((name, ctx.tools.mode_for(agent)))

    native = asyncio.ensure_future(in_mode("native", base))
    await asyncio.wait_for(inside["native"].wait(), 5)
    code = asyncio.ensure_future(in_mode("code", mode_code))
    for _ in range(10):
        await asyncio.sleep(0)
    assert not inside["code"].is_set()
    release["native"].set()
    release["code"].set()
    await asyncio.wait_for(asyncio.gather(native, code), 5)
    assert modes == [("native", "native"), ("native", "native"), ("code", "code"), ("code", "code")]


async def test_a_cancelled_wait_for_a_stand_in_lets_the_others_go() -> None:
    ctx, standins, base = ann_stand_ins()
    other = base.set(restrictions=((("echo",), ()),))
    release = asyncio.Event()
    entered: list[str] = []

    async def call(name: str, request: Request, hold: asyncio.Event | None = None) -> None:
        async with standins.acting(request):
            entered.append(name)
            if hold is not None:
                await hold.wait()

    first = asyncio.ensure_future(call("first", base, release))
    await asyncio.sleep(0)
    waiting = asyncio.ensure_future(call("other", other))
    await asyncio.sleep(0)
    same = asyncio.ensure_future(call("same", base))  # held back behind "other"'s wait
    await asyncio.sleep(0)
    assert entered == ["first"]
    waiting.cancel()
    await asyncio.wait_for(same, 5)  # "other" gave up: the same restrictions share the stand-in again
    assert entered == ["first", "same"]
    release.set()
    await asyncio.wait_for(first, 5)
    with pytest.raises(asyncio.CancelledError):
        await waiting


class _InProcessHandle:
    """A workflow handle whose 'worker' is a :class:`WorkerRuntime` in this process, on a task of its own (as a worker's)."""

    def __init__(self, client: _InProcessClient, wid: str, payload: str) -> None:
        self.client, self.wid, self.payload = client, wid, payload

    async def get_result(self, polling_interval_sec: float) -> str:
        run = self.client.runs.get(self.wid)
        if run is None:
            run = self.client.runs[self.wid] = asyncio.ensure_future(self._work())
        return await asyncio.shield(run)  # the caller's cancellation stops its waiting, not the worker

    async def _work(self) -> str:
        client = self.client
        await client.dequeue.wait()
        refused = await client.runtime.check(self.payload)
        if refused is not None:
            return refused
        client.started.add(self.wid)  # as the workflow records dsh.started before the body
        return await client.runtime.run_body(self.payload, False)


class _InProcessClient:
    """Just enough of a ``DBOSClient`` for a caller's dispatch: each enqueue is run by one in-process worker."""

    def __init__(self, runtime: WorkerRuntime, tamper: Callable[[str], str] = lambda payload: payload) -> None:
        self.runtime, self.tamper = runtime, tamper
        self.enqueued: list[str] = []
        self.runs: dict[str, asyncio.Future[str]] = {}
        self.started: set[str] = set()
        self.cancelled: list[str] = []
        self.dequeue = asyncio.Event()
        self.dequeue.set()  # cleared: what is enqueued waits there

    async def enqueue_async(self, options: Mapping[str, object], payload: str) -> _InProcessHandle:
        self.enqueued.append(payload)
        return _InProcessHandle(self, str(options["workflow_id"]), self.tamper(payload))

    async def cancel_workflow_async(self, wid: str) -> None:
        self.cancelled.append(wid)
        run = self.runs.get(wid)
        if run is not None:
            run.cancel()  # as DBOS cancels a preemptible body step

    async def list_workflow_steps_async(self, wid: str) -> list[dict[str, str]]:
        return [{"function_name": STARTED_STEP}] if wid in self.started else []

    async def ended(self) -> None:
        """Every worker run has ended (however)."""
        if self.runs:
            await asyncio.wait_for(asyncio.wait(list(self.runs.values())), 5)


def _in_process(tamper: Callable[[str], str] = lambda payload: payload) -> tuple[Context, Context, _InProcessClient]:
    """A caller routing every tool to queue "q", whose dispatches a worker runtime in this process serves."""
    from dsh_tools.dbos.dispatcher import DbosQueues
    from dsh_tools.dbos.seam import QUEUE_DISPATCHER
    from dsh_tools.dbos.worker import WorkerRuntime

    worker = boot()
    queue_tools.register(worker)
    client = _InProcessClient(WorkerRuntime(worker, "q"), tamper)
    caller = boot(queues={"*": "q"})
    queue_tools.register(caller)
    caller.provide(QUEUE_DISPATCHER, DbosQueues(cast("DBOSClient", client), {"q": QueueOptions()}))
    return caller, worker, client


async def test_the_caller_keeps_its_call_id_whatever_the_worker_names() -> None:
    caller, _, client = _in_process(tamper=lambda payload: "not a request")  # the worker settles it as call "?"
    result = await caller.tools.execute(ToolExecutionInput("c1", "echo", {"text": "hi"}))
    assert len(client.enqueued) == 1
    assert result.error is not None and result.error.code == "QUEUE_UNAVAILABLE", result.text
    assert result.call_id == "c1"
    (record,) = await caller.tools.store.journal(call_id="c1")
    assert record.outcome == "error"


async def test_queued_calls_of_finds_the_dispatcher_a_call_would() -> None:
    from dsh_tools.dbos import queued_calls_of
    from dsh_tools.dbos.seam import QUEUE_DISPATCHER, QueuedCall, configured_dispatcher

    held = [QueuedCall("dsh:a1:k:1", "q", "a1", "c1", "echo", "k", 1, "SUCCESS")]

    class Held:
        def knows(self, queue: str) -> bool:
            return queue == "q"

        async def queued_calls_of(self, agent_id: str) -> list[QueuedCall]:
            return [call for call in held if call.agent_id == agent_id]

    ctx = boot(queues={"*": "q"})
    ctx.provide(QUEUE_DISPATCHER, Held())  # type: ignore[misc]  # a partial dispatcher: what this test asks of it
    assert configured_dispatcher() is None
    assert await queued_calls_of("a1", tools=ctx.tools) == held  # the context's, as its calls and recover find it
    assert await queued_calls_of("a1") == []  # no context named, none configured in this process


def _both(ctx: Context, worker: Context, definition: ToolDefinition) -> None:
    """Register ``definition`` with the caller and the worker alike (so the fingerprints match)."""
    ctx.tools.register(definition)
    worker.tools.register(definition)


async def test_a_queued_call_runs_the_worker_s_execute_listeners_not_the_caller_s() -> None:
    caller, worker, _ = _in_process()
    heard: list[str] = []

    def listener(where: str) -> ExecuteListener:
        async def around(exec: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
            heard.append(where)
            return await next()

        return around

    caller.on("tools/execute", listener("caller"))
    worker.on("tools/execute", listener("worker"))
    result = await caller.tools.execute(ToolExecutionInput("c1", "echo", {"text": "hi"}))
    assert (result.outcome, result.text) == ("ok", "hi")
    assert heard == ["worker"]


async def test_a_queued_call_s_timeout_holds_on_the_worker_per_attempt() -> None:
    caller, worker, client = _in_process()
    attempts: list[str] = []

    @tool(timeout_ms=50, retry=Retry(attempts=2, backoff_ms=1), idempotent=True)
    async def stuck(exec: ToolExecution) -> str:
        """Never answers."""
        attempts.append(exec.call_id)
        await asyncio.Event().wait()
        return "never"

    _both(caller, worker, stuck)
    result = await asyncio.wait_for(caller.tools.execute(ToolExecutionInput("c1", "stuck", {})), 10)
    assert result.error is not None and result.error.code == "TOOL_TIMEOUT", result.text
    assert attempts == ["c1", "c1"]  # each attempt had its own 50 ms, on the worker
    assert len(client.started) == 1 and client.cancelled == []


class _Held:
    """A tool body that says when it starts and when it is cancelled, and otherwise waits forever."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    def definition(self) -> ToolDefinition:
        @tool(name="held")
        async def held() -> str:
            """Wait forever."""
            self.started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled = True
                raise
            return "never"

        return held


async def test_a_signal_aborting_a_running_queued_call_cancels_its_workflow() -> None:
    caller, worker, client = _in_process()
    body = _Held()
    _both(caller, worker, body.definition())
    controller = AbortController()
    call = asyncio.ensure_future(caller.tools.execute(ToolExecutionInput("c1", "held", {}, signal=controller.signal)))
    await asyncio.wait_for(body.started.wait(), 5)
    controller.abort("enough")
    result = await asyncio.wait_for(call, 5)
    assert result.outcome == "aborted" and result.error is not None and result.error.code == "ABORTED", result.text
    assert len(client.cancelled) == 1 and client.cancelled[0] in client.started
    await client.ended()
    assert body.cancelled  # the workflow's cancellation reached the body
    (record,) = await caller.tools.store.journal(call_id="c1")
    assert record.outcome == "aborted"


async def test_a_signal_aborting_an_enqueued_call_settles_aborted_before_dispatch() -> None:
    caller, worker, client = _in_process()
    body = _Held()
    _both(caller, worker, body.definition())
    client.dequeue.clear()  # no worker takes it
    controller = AbortController()
    call = asyncio.ensure_future(caller.tools.execute(ToolExecutionInput("c1", "held", {}, signal=controller.signal)))
    await until(lambda: bool(client.enqueued), 5, "the call to be enqueued")
    controller.abort("enough")
    result = await asyncio.wait_for(call, 5)
    assert result.error is not None and result.error.code == "ABORTED_BEFORE_DISPATCH", result.text
    assert len(client.cancelled) == 1 and client.started == set()
    await client.ended()
    assert not body.started.is_set()  # never dequeued: the body never ran


async def test_a_cancelled_queued_call_cancels_its_workflow_and_its_body() -> None:
    caller, worker, client = _in_process()
    body = _Held()
    _both(caller, worker, body.definition())
    call = asyncio.ensure_future(caller.tools.execute(ToolExecutionInput("c1", "held", {})))
    await asyncio.wait_for(body.started.wait(), 5)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert len(client.cancelled) == 1
    await client.ended()
    assert body.cancelled
    (record,) = await caller.tools.store.journal(call_id="c1")
    assert record.outcome == "aborted" and record.error == {"name": "ToolAbortedError", "code": "ABORTED"}


async def test_result_of_awaits_at_the_queue_s_polling_interval_or_the_default_for_a_queue_not_configured_here() -> None:
    from dsh_tools.dbos.dispatcher import DbosQueues
    from dsh_tools.dbos.seam import QueuedCall

    polled: list[tuple[str, float]] = []

    class Handle:
        def __init__(self, wid: str) -> None:
            self.wid = wid

        async def get_result(self, polling_interval_sec: float) -> str:
            polled.append((self.wid, polling_interval_sec))
            return '{"result": {"callId": "worker says", "content": [], "isError": false}, "outcome": "ok"}'

    class Client:
        async def retrieve_workflow_async(self, wid: str) -> Handle:
            return Handle(wid)

    queues = DbosQueues(cast("DBOSClient", Client()), {"slow": QueueOptions(polling_interval_s=2.5)})
    for wid, queue in (("w1", "slow"), ("w2", "elsewhere")):
        call = QueuedCall(wid, queue, "a1", f"c-{wid}", "echo", "k", 1, "PENDING")
        result = await queues.result_of(call)
        assert (result.outcome, result.call_id) == ("ok", f"c-{wid}")  # under the call's id, not the worker's word
    assert polled == [("w1", 2.5), ("w2", QueueOptions().polling_interval_s)]
