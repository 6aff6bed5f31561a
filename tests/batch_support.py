"""Tools and probes for the batch and cancellation tests: overlap is proved with events, never sleeps."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from dsh_tools.content import ContentBlock, text_block
from dsh_tools.execution import ToolExecution, ToolExecutionInput

HANG_GUARD_S = 10.0
"""Only so a broken scheduler fails instead of hanging the suite; nothing waits for it to pass."""


class Log:
    """One ordered record of what happened, shared by tools and listeners."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def __call__(self, event: str) -> None:
        self.events.append(event)

    def index(self, event: str) -> int:
        return self.events.index(event)


class Gated:
    """A tool whose bodies wait for the test: ``release(call_id)`` lets one finish.

    ``safe`` answers ``is_concurrency_safe``; ``active``/``max_active`` count
    bodies running at once; ``started[call_id]`` is set when a body begins.
    """

    def __init__(self, name: str, log: Log, *, safe: object = True, gated: bool = True) -> None:
        self.name = name
        self.description = f"the {name} tool"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.log = log
        self.safe = safe
        self.gated = gated
        self.active = 0
        self.max_active = 0
        self.started: dict[str, asyncio.Event] = {}
        self.ended: dict[str, asyncio.Event] = {}
        self._gates: dict[str, asyncio.Event] = {}
        self.classified: list[object] = []
        self.on_start: Callable[[], None] | None = None

    def is_concurrency_safe(self, args: object) -> object:
        self.classified.append(args)
        self.log(f"classify:{self.name}")
        return self.safe

    def gate(self, call_id: str) -> asyncio.Event:
        return self._gates.setdefault(call_id, asyncio.Event())

    def started_event(self, call_id: str) -> asyncio.Event:
        return self.started.setdefault(call_id, asyncio.Event())

    def ended_event(self, call_id: str) -> asyncio.Event:
        return self.ended.setdefault(call_id, asyncio.Event())

    def release(self, call_id: str) -> None:
        self.gate(call_id).set()

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        self.log(f"start:{exec.call_id}")
        self.started_event(exec.call_id).set()
        if self.on_start is not None:
            self.on_start()
        try:
            if self.gated:
                await self.gate(exec.call_id).wait()
        finally:
            self.active -= 1
            self.log(f"end:{exec.call_id}")
            self.ended_event(exec.call_id).set()
        return [text_block(f"{self.name}:{exec.call_id}")]


class Rendezvous:
    """A safe tool whose ``n`` bodies each wait until all ``n`` have started: only overlap lets them finish."""

    def __init__(self, name: str, n: int, log: Log) -> None:
        self.name = name
        self.description = "meets its siblings"
        self.parameters: dict[str, Any] = {"type": "object"}
        self.n = n
        self.log = log
        self.arrived = 0
        self.everyone = asyncio.Event()

    def is_concurrency_safe(self, args: object) -> bool:
        return True

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        self.arrived += 1
        self.log(f"start:{exec.call_id}")
        if self.arrived == self.n:
            self.everyone.set()
        await self.everyone.wait()
        self.log(f"end:{exec.call_id}")
        return [text_block(exec.call_id)]


def calls(name: str, count: int, *, prefix: str = "c", **kwargs: Any) -> list[ToolExecutionInput]:
    return [ToolExecutionInput(f"{prefix}{i}", name, {}, **kwargs) for i in range(count)]


async def when(event: asyncio.Event) -> None:
    await asyncio.wait_for(event.wait(), HANG_GUARD_S)


async def settle(awaitable: Awaitable[Any]) -> Any:
    return await asyncio.wait_for(awaitable, HANG_GUARD_S)


def other_tasks() -> set[asyncio.Task[Any]]:
    """Every task but the test's own."""
    return {task for task in asyncio.all_tasks() if task is not asyncio.current_task()}

