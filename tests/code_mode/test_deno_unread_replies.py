"""A program that stops reading its replies makes the host hold every one of them.

The harness reads stdin only while one of its calls waits (``pending.size``,
a getter the program may redefine on ``Map.prototype``; a main thread blocked
in ``Atomics.wait`` stops reading just as well, at no CPU cost). The host
writes each binding's reply to the pipe whatever the harness does: past the
pipe's 64 KiB every reply stays in the host's write buffer until the run
ends, which is the wall-clock budget (ten minutes by default). So the host's
memory grows by the sum of the results of up to ``max_calls`` calls; only
refusals check the unread bytes (``RunSession._refuse``).

Not fixed (``xfail``, strict): a bound on unread reply bytes must not end a
faithful program that receives many large results at once, and that needs a
design choice (a bound on results in flight, or progress over time).
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

import pytest
from deno_support import runtimes  # noqa: F401  # the fixture

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest
from dsh_tools.json_values import JsonValue

RESULT = "x" * (1 << 20)
CALLS = 150
MAX_GROWTH = 64 << 20
"""Far below what holding every reply costs (CALLS MiB and more), far above one reply."""

DEAF = f"""
// The harness pumps replies while pending.size > 0: now it never does.
Object.defineProperty(Map.prototype, "size", {{ get() {{ return 0; }} }});
for (let i = 0; i < {CALLS}; i++) tools.big(i);
setInterval(() => {{}}, 1000);  // alive, idle, until the wall-clock budget
await new Promise(() => {{}});
"""


class HostMemory:
    """Peak resident memory growth of this process across the block (VmHWM, reset first)."""

    def __enter__(self) -> HostMemory:
        Path("/proc/self/clear_refs").write_text("5")  # resets the peak to the current size
        self.before = _status("VmRSS")
        self.growth = 0
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.growth = max(_status("VmHWM"), _status("VmRSS")) - self.before


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


async def big(args: JsonValue) -> JsonValue:
    return RESULT


@pytest.mark.xfail(strict=True, reason="replies the harness never reads are held by the host until the run ends")
async def test_replies_the_program_never_reads_do_not_pile_up_in_the_host(runtimes: list[DenoCodeRuntime]) -> None:
    rt = DenoCodeRuntime(compute_ms=10_000, max_wall_ms=3_000, pool_size=0)
    runtimes.append(rt)
    with HostMemory() as memory:
        result = await rt.run(CodeRunRequest(DEAF, [CodeBindingNamespace("tools", {"big": big})]))
    assert result.error is not None, result
    assert memory.growth < MAX_GROWTH, f"the host grew by {memory.growth >> 20} MiB"
