"""``is_awaitable`` (the per-type fast path) answers what ``inspect.isawaitable`` answers."""

from __future__ import annotations

import asyncio
import gc
import inspect
import types
import weakref
from collections.abc import Generator, Iterator

from dsh_tools.awaitables import is_awaitable
from dsh_tools.decisions import Allow


class Awaits:
    def __await__(self) -> Generator[None, None, int]:
        return iter(())  # type: ignore[return-value]


class Pretends:
    """Claims to be a coroutine through ``__class__``: the real type decides."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return types.CoroutineType


@types.coroutine
def _old_style() -> Generator[None, None, None]:
    yield


def _plain_generator() -> Iterator[int]:
    yield 1


async def _native() -> None:
    return None


async def test_every_kind_of_value_is_answered_as_inspect_answers() -> None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()
    future.set_result(None)
    coroutine = _native()
    old_style = _old_style()
    plain = _plain_generator()
    values: list[object] = [
        coroutine, old_style, plain, future, Awaits(), Allow(), None, 1, "text", [], {}, object(), Awaits,
    ]
    for _ in range(2):  # the second round reads the cache
        for value in values:
            assert is_awaitable(value) is inspect.isawaitable(value), value
    coroutine.close()
    old_style.close()


def test_a_faked_class_is_not_believed() -> None:
    """``inspect`` believes ``__class__`` (and awaiting would then raise); the real type is not awaitable."""
    assert inspect.isawaitable(Pretends())
    assert not is_awaitable(Pretends())


def test_plain_generators_are_asked_every_time() -> None:
    old_style, plain = _old_style(), _plain_generator()
    answers = [is_awaitable(old_style), is_awaitable(plain), is_awaitable(old_style)]
    assert answers == [True, False, True]  # one type for both: a cached answer would be wrong for one
    old_style.close()


def test_the_cache_does_not_keep_a_class_alive() -> None:
    made = type("MadeAtRunTime", (), {})
    gone = weakref.ref(made)
    assert not is_awaitable(made())
    del made
    gc.collect()
    assert gone() is None  # a mock's or a per-request model's class is not pinned by the cache


def test_classes_made_at_run_time_are_answered_right() -> None:
    made = [type(f"Made{i}", (), {}) for i in range(50)]
    awaiting = [type(f"Awaiting{i}", (Awaits,), {}) for i in range(20)]
    assert not any(is_awaitable(kind()) for kind in made)
    assert all(is_awaitable(kind()) for kind in awaiting)


def test_a_gone_class_leaves_no_entry_behind() -> None:
    from dsh_tools import awaitables

    made = type("Short", (), {})
    key = id(made)
    assert not is_awaitable(made()) and key in awaitables._BY_TYPE
    del made
    gc.collect()
    assert key not in awaitables._BY_TYPE  # the cache does not grow with classes made and dropped
