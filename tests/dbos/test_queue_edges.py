"""The queues' edges, in this process: bad names and options, hostile requests, executor ids, routing, prune, tracing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

import queue_tools
from dsh_tools import Agent, ToolExecutionInput, boot
from dsh_tools.dbos import QueueOptions, configure
from dsh_tools.dbos.codec import Request, decode_request, decode_result, encode_request, encode_result, workflow_id
from dsh_tools.dbos.names import system_database_url
from dsh_tools.dbos.recovery import ExecutorBusy, check_executor_id, lock_executor
from dsh_tools.dbos.seam import check_queue_name, check_routes


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
        Path(system_database_url(url)[len("sqlite:///") :]).unlink()  # DBOS's file is gone
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
        '{"format": 1, "queue": "q", "call_id": 1}',
        orjson.dumps({"format": 1, "queue": "q", "call_id": "c", "name": "n", "idempotency_key": "k", "fingerprint": "f",
                      "dispatch": True, "max_payload_bytes": 1, "enqueued_at": 0, "arguments": {}}).decode(),
        orjson.dumps({"format": 1, "queue": "q", "call_id": "c", "name": "n", "idempotency_key": "k", "fingerprint": "f",
                      "dispatch": 1, "max_payload_bytes": 1, "enqueued_at": 0, "arguments": {},
                      "restrictions": [["x", []]]}).decode(),
        orjson.dumps({"format": 1, "queue": "q", "call_id": "c", "name": "n", "idempotency_key": "k", "fingerprint": "f",
                      "dispatch": 1, "max_payload_bytes": 1, "enqueued_at": 0, "arguments": {}, "trace": [[1, 2]]}).decode(),
    ],
)
def test_a_hostile_request_is_a_value_error(text: object) -> None:
    with pytest.raises(ValueError):
        decode_request(text)


def test_a_request_and_a_result_round_trip() -> None:
    request = Request("q", "c1", "echo", {"text": "hé", "n": [1, 2.5, None]}, "k" * 32, 2, "f" * 64, 1.5, 4096,
                      agent_id="a:b", agent_name="A", mode="code", restrictions=((("x",), ()), (None, ("y",))),
                      catalog="c", approved=True, trace=(("traceparent", "00-x"),))
    assert decode_request(encode_request(request)) == request
    assert workflow_id("a:b", "k", 2) == "dsh:a:b:k:2" and workflow_id(None, "k", 1) == "dsh:-:k:1"
    with pytest.raises(ValueError):
        decode_result('{"result": {}, "outcome": "ok"}')
    with pytest.raises(ValueError):
        decode_result('{"result": {"callId": "c", "content": [], "isError": false}, "outcome": "maybe"}')


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


async def test_the_tracing_context_crosses_with_the_call() -> None:
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
    original = trace.get_tracer_provider()
    trace.set_tracer_provider(provider)  # the worker's global provider (first set wins in a process)
    with worker_span("echo", "c1", "q", carrier, time.time() - 0.25):
        pass
    if trace.get_tracer_provider() is not provider and original is not None:
        pytest.skip("another test set this process's tracer provider first")
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


def test_a_worker_stand_in_acts_with_the_call_s_mode_and_restrictions() -> None:
    from dsh_tools.dbos.standins import StandIns

    ctx = boot()
    queue_tools.register(ctx)
    standins = StandIns(ctx, limit=2)
    base = Request("q", "c", "record", {"n": 1}, "k", 1, "f", 0.0, 4096, agent_id="a1", agent_name="Ann")
    with standins.acting(base.set(restrictions=((("record", "ghost"), ()),), mode="code")) as agent:
        assert agent is not None and agent.id == "a1" and agent.name == "Ann"
        assert ctx.tools.mode_for(agent) == "code"
        assert [tool.name for tool in ctx.tools.end_capabilities(agent)] == ["record"]  # "ghost" is unknown here
    with standins.acting(base) as again:
        assert again is agent and ctx.tools.mode_for(agent) == "native" and len(ctx.tools.end_capabilities(agent)) == 6
    for other in ("a2", "a3"):
        with standins.acting(base.set(agent_id=other)):
            pass
    assert len(standins) == 2 and agent.ctx.disposed  # the oldest idle stand-in made room
    Agent(ctx, name="Ann", id="a1")  # its id is free again
