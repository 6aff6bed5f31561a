"""The Python runtime's admission: a cap on workers, a bounded queue, and budgets charged from each run's start.

Issue 34 #15: 30 spinning runs on ``MontyCodeRuntime`` queued without bound
inside Monty's pool, 6 ever started, yet all 30 were told "exceeded
wall-clock budget", their clocks having run while they waited. The rule is
now the Deno runtime's (``dsh_tools.code_mode.slots``), so these are the
twins of the cap tests in ``test_deno_lifecycle.py``, plus the rule itself.

Waiting is done on observable states with bounded deadlines, never by a
fixed sleep.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from dsh_tools import AbortController, CodeRuntimeBusyError, MontyCodeRuntime
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest
from dsh_tools.code_mode.slots import Slots, SlotsClosed
from dsh_tools.json_values import JsonValue
from dsh_tools.signals import AbortSignal

DEADLINE_S = 20.0
"""Only a bound on polling: each state is normally reached within a fraction of it."""


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"still not {what} after {DEADLINE_S} s")
        await asyncio.sleep(0.01)


class Holds:
    """A binding that records who called it and waits until released."""

    def __init__(self) -> None:
        self.entered: list[JsonValue] = []
        self.release = asyncio.Event()

    async def __call__(self, args: JsonValue) -> JsonValue:
        self.entered.append(args)
        await self.release.wait()
        return "done"

    def request(self, program: str, signal: AbortSignal | None = None) -> CodeRunRequest:
        return CodeRunRequest(program, [CodeBindingNamespace("tools", {"hold": self})], signal)


async def test_runs_past_max_processes_queue_and_past_max_queued_runs_fail_clearly() -> None:
    rt = MontyCodeRuntime(max_processes=2, max_queued_runs=1)
    hold = Holds()
    try:
        request = hold.request("return await tools.hold()")
        first = asyncio.ensure_future(rt.run(request))
        second = asyncio.ensure_future(rt.run(request))
        await until(lambda: len(hold.entered) == 2, "both runs holding a worker")
        third = asyncio.ensure_future(rt.run(request))
        await until(lambda: rt.queued_runs == 1, "the third run queued")
        with pytest.raises(CodeRuntimeBusyError, match="max_processes, max_queued_runs") as raised:
            await rt.run(request)
        assert raised.value.code == "CODE_RUNTIME_BUSY"
        assert len(hold.entered) == 2 and len(rt.live_pids) <= 2
        hold.release.set()
        results = await asyncio.gather(first, second, third)
        assert [r.value for r in results] == ["done"] * 3, [r.error for r in results]
        assert rt.queued_runs == 0
    finally:
        await rt.dispose()


async def test_the_wall_budget_is_charged_from_a_runs_start_not_its_submission() -> None:
    # One worker, three runs submitted together: the first two spin to their wall budget one after
    # the other, so the third waits twice that long and must still get its whole budget to run.
    rt = MontyCodeRuntime(max_processes=1, max_wall_ms=500)
    started: list[JsonValue] = []

    async def mark(args: JsonValue) -> JsonValue:
        started.append(args)
        return None

    def request(program: str) -> CodeRunRequest:
        return CodeRunRequest(program, [CodeBindingNamespace("tools", {"mark": mark})])

    spin = "await tools.mark(n={n})\nwhile True:\n    pass"
    try:
        results = await asyncio.gather(
            rt.run(request(spin.format(n=1))),
            rt.run(request(spin.format(n=2))),
            rt.run(request("await tools.mark(n=3)\nreturn 'ran'")),
        )
    finally:
        await rt.dispose()
    assert started == [{"n": 1}, {"n": 2}, {"n": 3}], "every run started, in arrival order"
    for spun in results[:2]:
        assert spun.error is not None and spun.error.kind == "timeout" and "wall-clock" in spun.error.message
    assert results[2].error is None, results[2].error
    assert results[2].value == "ran"


async def test_a_queued_run_ends_as_aborted_when_its_signal_aborts_or_the_runtime_is_disposed() -> None:
    rt = MontyCodeRuntime(max_processes=1)
    hold = Holds()
    busy = asyncio.ensure_future(rt.run(hold.request("return await tools.hold()")))
    await until(lambda: len(hold.entered) == 1, "the first run holding the only worker")
    controller = AbortController()
    aborted = asyncio.ensure_future(rt.run(hold.request("return 1", controller.signal)))
    disposed = asyncio.ensure_future(rt.run(hold.request("return 2")))
    await until(lambda: rt.queued_runs == 2, "both runs queued")
    controller.abort("changed my mind")
    result = await aborted
    assert result.error is not None and result.error.kind == "abort" and "changed my mind" in result.error.message
    assert rt.queued_runs == 1
    await rt.dispose()
    for ended in await asyncio.gather(disposed, busy):
        assert ended.error is not None and ended.error.kind == "abort", ended
        assert "the code runtime was disposed" in ended.error.message
    assert len(hold.entered) == 1  # the queued runs never ran
    assert not rt.live_pids


@pytest.mark.parametrize(("name", "value"), [("max_processes", 0), ("max_queued_runs", -1)])
def test_the_caps_are_checked(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=name):
        MontyCodeRuntime(**{name: value})


# -- the rule itself ------------------------------------------------------------------------------


async def test_slots_are_handed_on_in_arrival_order_and_a_cancelled_taker_passes_its_turn() -> None:
    slots = Slots(1, 2)
    assert slots.try_take()
    order: list[str] = []

    async def take(label: str) -> None:
        await slots.take()
        order.append(label)

    first = asyncio.ensure_future(take("first"))
    second = asyncio.ensure_future(take("second"))
    await until(lambda: slots.queued == 2, "two takers waiting")
    with pytest.raises(CodeRuntimeBusyError, match="all 1 sandbox processes are busy and 2 runs already wait"):
        await slots.take()
    assert not slots.try_take(), "a free slot goes to the queue first"
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert slots.give_back() is True  # handed to "second", the one still waiting
    await second
    assert order == ["second"]
    assert slots.give_back() is False and slots.try_take()
    waiting = asyncio.ensure_future(slots.take())
    await until(lambda: slots.queued == 1, "a taker waiting")
    slots.close("closing")
    with pytest.raises(SlotsClosed, match="closing"):
        await waiting
    with pytest.raises(SlotsClosed):
        await slots.take()
