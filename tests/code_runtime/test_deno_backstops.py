"""The guards behind the guards: what holds when the first line of defence does not.

* The kernel's ``RLIMIT_CPU``, set at spawn, ends a spinning program even when
  the host's watchdog thread never watches it.
* The host refuses a binding call past ``max_calls`` even when the in-sandbox
  harness, which refuses such calls first, has been subverted or misled.

Each test takes away the first guard and shows the second one alone ends the run.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import pytest

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.deno import runtime as deno_runtime
from dsh_tools.code_mode.deno._process import Limits
from dsh_tools.code_mode.deno._watchdog import Watch, Watchdog
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest, CodeRunResult
from dsh_tools.json_values import JsonValue

SAFETY_NET_S = 20.0
"""Only a safety net: a backstop that holds ends each run within about two seconds."""


@pytest.fixture
async def runtimes() -> AsyncIterator[list[DenoCodeRuntime]]:
    """Runtimes a test makes; afterwards each is disposed and none of its processes is left."""
    made: list[DenoCodeRuntime] = []
    yield made
    pids: set[int] = set()
    for rt in made:
        pids |= rt.live_pids
        await asyncio.wait_for(rt.dispose(), 10)
    assert all(not os.path.exists(f"/proc/{pid}") for pid in pids)


async def run_within_safety_net(rt: DenoCodeRuntime, request: CodeRunRequest, what: str) -> CodeRunResult:
    try:
        async with asyncio.timeout(SAFETY_NET_S):
            return await rt.run(request)
    except TimeoutError:
        pytest.fail(f"the run was still going after {SAFETY_NET_S} s: {what} did not end it")


# -- the kernel's CPU limit, with nobody watching ------------------------------------


async def test_rlimit_cpu_ends_a_spinning_program_the_watchdog_never_watches(
    runtimes: list[DenoCodeRuntime], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The kernel limit is compute_ms rounded up to whole seconds plus a margin; with no
    # margin and a one-second budget it is 1 s of CPU (soft: SIGXCPU) and 2 s (hard: SIGKILL).
    monkeypatch.setattr(deno_runtime, "_CPU_BACKSTOP_S", 0)

    def stop_watching(self: Watchdog, watch: Watch) -> None:
        """The host's watchdog is given the run and ignores it: no CPU, memory or wall-clock check."""

    monkeypatch.setattr(Watchdog, "watch", stop_watching)
    rt = DenoCodeRuntime(compute_ms=1000, max_wall_ms=600_000, pool_size=0)
    runtimes.append(rt)
    assert rt._limits.cpu_s == 1

    result = await run_within_safety_net(rt, CodeRunRequest("while (true) {}", []), "RLIMIT_CPU")

    assert result.value is None
    assert result.error is not None, result
    # Died of a signal (the watchdog's own verdict would be a "timeout" naming the compute budget).
    assert result.error.kind == "worker-exit", result.error
    assert "died unexpectedly (SIGXCPU)" in result.error.message or "died unexpectedly (SIGKILL)" in result.error.message
    assert rt.live_pids == frozenset()


# -- the host's call limit, with the harness's refusal out of the way ------------------

MAX_CALLS = 3

FORGED_CALLS = """
// Subvert the harness: it frames every message with JSON.stringify, which asks
// Object.prototype.toJSON first, so each console.log below leaves the sandbox as a
// correctly tagged *call* frame the harness never counted (its call limit never sees it).
await tools.f(0);  // one genuine call: the host counts the harness's ids and forged ones alike
let id = 1000;
(Object.prototype as any).toJSON = function (this: any) {
  return this.t === "log" ? { t: "call", id: id++, ns: 0, fn: 0, args: this.text } : this;
};
for (let i = 1; i <= 6; i++) console.log(String(i));
delete (Object.prototype as any).toJSON;
return "finished";
"""

GENUINE_CALLS = """
// The harness was told a higher limit than the host's (a stand-in for any harness
// the program has talked out of its own check): only the host refuses now.
for (let i = 0; i < 7; i++) await tools.f(i);
return "finished";
"""


@pytest.mark.parametrize(
    ("program", "harness_max_calls"),
    [(FORGED_CALLS, MAX_CALLS), (GENUINE_CALLS, 1000)],
    ids=["forged call frames", "harness limit raised"],
)
async def test_the_host_refuses_binding_calls_past_max_calls(
    runtimes: list[DenoCodeRuntime], monkeypatch: pytest.MonkeyPatch, program: str, harness_max_calls: int
) -> None:
    to_json = Limits.to_json

    def told_to_harness(self: Limits) -> dict[str, int]:
        return {**to_json(self), "maxCalls": harness_max_calls}

    monkeypatch.setattr(Limits, "to_json", told_to_harness)
    rt = DenoCodeRuntime(max_calls=MAX_CALLS, compute_ms=5000, max_wall_ms=60_000, pool_size=0)
    runtimes.append(rt)
    dispatched: list[JsonValue] = []

    async def f(args: JsonValue) -> JsonValue:
        dispatched.append(args)
        return None

    request = CodeRunRequest(program, [CodeBindingNamespace("tools", {"f": f})])
    result = await run_within_safety_net(rt, request, "the host's call limit")

    assert result.value is None, result
    assert result.error is not None, result
    assert result.error.kind == "exception", result.error
    assert result.error.message == f"the program made more than {MAX_CALLS} binding calls"
    assert dispatched == [0, 1, 2], "exactly max_calls calls reach the binding, none past the limit"
