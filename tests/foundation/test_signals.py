"""AbortController / AbortSignal: a one-way latch with listeners, timeout and any."""

from __future__ import annotations

import asyncio

import pytest

from dsh_tools.disposer import Disposer
from dsh_tools.signals import AbortController, AbortError, AbortSignal


def aborted(signal: AbortSignal) -> bool:
    """Read ``.aborted`` without mypy narrowing it across an abort."""
    return signal.aborted


def test_fresh_signal_is_not_aborted() -> None:
    controller = AbortController()
    assert controller.signal.aborted is False
    assert controller.signal.reason is None
    controller.signal.throw_if_aborted()  # no-op


def test_abort_without_reason_gives_abort_error() -> None:
    controller = AbortController()
    controller.abort()
    assert controller.signal.aborted is True
    assert isinstance(controller.signal.reason, AbortError)
    with pytest.raises(AbortError):
        controller.signal.throw_if_aborted()


def test_abort_is_a_one_way_latch_keeping_the_first_reason() -> None:
    controller = AbortController()
    first = ValueError("first")
    controller.abort(first)
    controller.abort(ValueError("second"))
    assert controller.signal.reason is first
    with pytest.raises(ValueError, match="first"):
        controller.signal.throw_if_aborted()


def test_throw_if_aborted_wraps_a_non_exception_reason() -> None:
    controller = AbortController()
    controller.abort("user pressed stop")
    assert controller.signal.reason == "user pressed stop"
    with pytest.raises(AbortError, match="user pressed stop"):
        controller.signal.throw_if_aborted()


def test_listeners_run_once_with_the_reason() -> None:
    controller = AbortController()
    seen: list[object] = []
    disposer = controller.signal.add_listener(seen.append)
    assert isinstance(disposer, Disposer)
    reason = RuntimeError("stop")
    controller.abort(reason)
    controller.abort(RuntimeError("again"))
    assert seen == [reason]


def test_listener_added_after_abort_runs_immediately() -> None:
    controller = AbortController()
    controller.abort("done")
    seen: list[object] = []
    controller.signal.add_listener(seen.append)
    assert seen == ["done"]


def test_disposed_listener_does_not_run() -> None:
    controller = AbortController()
    seen: list[str] = []
    keep = controller.signal.add_listener(lambda _: seen.append("keep"))
    drop = controller.signal.add_listener(lambda _: seen.append("drop"))
    drop()
    drop()  # idempotent
    assert drop.disposed and not keep.disposed
    controller.abort()
    assert seen == ["keep"]


def test_raising_listener_does_not_starve_the_others() -> None:
    controller = AbortController()
    seen: list[str] = []

    def bad(_: object) -> None:
        raise RuntimeError("listener failure")

    controller.signal.add_listener(lambda _: seen.append("before"))
    controller.signal.add_listener(bad)
    controller.signal.add_listener(lambda _: seen.append("after"))
    controller.abort()  # does not raise
    assert seen == ["before", "after"]
    assert controller.signal.aborted


class EqualToEverything:
    """A callable listener whose ``__eq__`` claims equality with anything."""

    def __init__(self, seen: list[str], name: str) -> None:
        self.seen = seen
        self.name = name

    def __call__(self, reason: object) -> None:
        self.seen.append(self.name)

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


class RaisingEq:
    def __call__(self, reason: object) -> None:
        pass

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("__eq__")

    __hash__ = object.__hash__


def test_disposing_removes_exactly_that_listener_even_with_hostile_eq() -> None:
    controller = AbortController()
    seen: list[str] = []
    controller.signal.add_listener(EqualToEverything(seen, "a"))
    dispose_b = controller.signal.add_listener(EqualToEverything(seen, "b"))
    dispose_b()
    controller.abort()
    assert seen == ["a"]


def test_disposing_next_to_a_raising_eq_listener_does_not_raise() -> None:
    controller = AbortController()
    seen: list[str] = []
    controller.signal.add_listener(RaisingEq())
    dispose = controller.signal.add_listener(lambda _: seen.append("x"))
    dispose()
    controller.abort()
    assert seen == []


def test_same_callback_twice_disposes_one_registration() -> None:
    controller = AbortController()
    seen: list[object] = []
    first = controller.signal.add_listener(seen.append)
    controller.signal.add_listener(seen.append)
    first()
    controller.abort("r")
    assert seen == ["r"]


async def test_wait_returns_the_reason() -> None:
    controller = AbortController()
    waiter = asyncio.ensure_future(controller.signal.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    controller.abort("why")
    assert await waiter == "why"
    assert await controller.signal.wait() == "why"  # already aborted: returns at once


async def test_timeout_fires_with_a_timeout_error() -> None:
    signal = AbortSignal.timeout(5)
    assert not aborted(signal)
    reason = await asyncio.wait_for(signal.wait(), 1.0)
    assert aborted(signal)
    assert isinstance(reason, TimeoutError)
    assert "5ms" in str(reason)
    with pytest.raises(TimeoutError):
        signal.throw_if_aborted()


async def test_timeout_with_a_custom_reason() -> None:
    reason = ValueError("budget")
    signal = AbortSignal.timeout(1, reason=reason)
    assert await asyncio.wait_for(signal.wait(), 1.0) is reason


async def test_timeout_listeners_run_once() -> None:
    seen: list[object] = []
    signal = AbortSignal.timeout(1)
    signal.add_listener(seen.append)
    await asyncio.wait_for(signal.wait(), 1.0)
    later = AbortSignal.timeout(2)
    await asyncio.wait_for(later.wait(), 1.0)  # the first timer never fires twice
    assert len(seen) == 1 and isinstance(seen[0], TimeoutError)


async def test_timeout_of_zero_or_negative_fires_soon() -> None:
    for ms in (0, -10):
        signal = AbortSignal.timeout(ms)
        await asyncio.wait_for(signal.wait(), 1.0)
        assert signal.aborted


def test_timeout_requires_a_running_loop() -> None:
    with pytest.raises(RuntimeError):
        AbortSignal.timeout(10)


def test_abort_constructor_gives_an_aborted_signal() -> None:
    assert isinstance(AbortSignal.abort().reason, AbortError)
    assert AbortSignal.abort("r").reason == "r"


def test_any_follows_the_first_source_to_abort() -> None:
    a, b, c = AbortController(), AbortController(), AbortController()
    combined = AbortSignal.any([a.signal, b.signal, c.signal])
    seen: list[object] = []
    combined.add_listener(seen.append)
    assert not aborted(combined)
    b.abort("b first")
    a.abort("a later")
    assert aborted(combined) and combined.reason == "b first"
    assert seen == ["b first"]


def test_any_of_an_already_aborted_source_is_aborted_with_its_reason() -> None:
    a = AbortController()
    a.abort("already")
    combined = AbortSignal.any([AbortController().signal, a.signal])
    assert combined.aborted and combined.reason == "already"


def test_any_accepts_an_iterator_and_detaches_once_aborted() -> None:
    a, b = AbortController(), AbortController()
    combined = AbortSignal.any(iter([a.signal, b.signal]))
    a.abort("a")
    assert combined.reason == "a"
    # b's listener list no longer holds the combined signal's forwarder
    assert b.signal._listeners == []


def test_any_of_nothing_never_aborts() -> None:
    assert AbortSignal.any([]).aborted is False


async def test_any_follows_a_timeout() -> None:
    caller = AbortController()
    fused = AbortSignal.any([caller.signal, AbortSignal.timeout(2)])
    reason = await asyncio.wait_for(fused.wait(), 1.0)
    assert isinstance(reason, TimeoutError)
    assert not caller.signal.aborted


async def test_any_is_not_aborted_by_a_cancelled_timeout() -> None:
    caller = AbortController()
    deadline = AbortSignal.timeout(10_000)
    fused = AbortSignal.any([caller.signal, deadline])
    caller.abort("caller")
    assert fused.reason == "caller"
    assert not deadline.aborted
