"""The guards behind the guards: what holds when the first line of defence does not.

* The kernel's ``RLIMIT_CPU``, set at spawn, ends a spinning program even when
  the host's watchdog thread never watches it.
* The host refuses a binding call past ``max_calls`` even when the in-sandbox
  harness, which refuses such calls first, has been misled.
* A program that patches ``Object.prototype.toJSON`` cannot rewrite the frames
  the harness sends (it would otherwise turn a log into an uncounted call).

Each test takes away the first guard and shows the second one alone ends the run.
"""

from __future__ import annotations

import asyncio
import signal

import pytest
from deno_support import runtimes  # noqa: F401  # the fixture

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.deno import runtime as deno_runtime
from dsh_tools.code_mode.deno._process import Limits
from dsh_tools.code_mode.deno._run import _exit_failure
from dsh_tools.code_mode.deno._watchdog import Watch, Watchdog
from dsh_tools.code_mode.runtime import Binding, CodeBindingNamespace, CodeRunRequest, CodeRunResult
from dsh_tools.json_values import JsonValue

SAFETY_NET_S = 20.0
"""Only a safety net: a backstop that holds ends each run within about two seconds."""


async def run_within_safety_net(rt: DenoCodeRuntime, request: CodeRunRequest, what: str) -> CodeRunResult:
    try:
        async with asyncio.timeout(SAFETY_NET_S):
            return await rt.run(request)
    except TimeoutError:
        pytest.fail(f"the run was still going after {SAFETY_NET_S} s: {what} did not end it")


def recording_binding() -> tuple[list[JsonValue], Binding]:
    """A binding that answers ``None`` and the list of the arguments it was called with."""
    dispatched: list[JsonValue] = []

    async def f(args: JsonValue) -> JsonValue:
        dispatched.append(args)
        return None

    return dispatched, f


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
    # The kernel's SIGXCPU, reported as the compute budget it backs (the watchdog never acted).
    assert result.error.kind == "timeout", result.error
    assert result.error.message == (
        "compute budget exceeded: the program used more than 1000 ms of CPU time (stopped by the kernel's CPU limit)"
    )
    assert rt.live_pids == frozenset()


# -- the host's call limit, with the harness's refusal out of the way ------------------

MAX_CALLS = 3

GENUINE_CALLS = """
// The harness was told a higher limit than the host's (a stand-in for any harness
// the program has talked out of its own check): only the host refuses now.
for (let i = 0; i < 7; i++) await tools.f(i);
return "finished";
"""


async def test_the_host_refuses_binding_calls_past_max_calls(
    runtimes: list[DenoCodeRuntime], monkeypatch: pytest.MonkeyPatch
) -> None:
    to_json = Limits.to_json

    def told_to_harness(self: Limits) -> dict[str, int]:
        return {**to_json(self), "maxCalls": 1000}

    monkeypatch.setattr(Limits, "to_json", told_to_harness)
    rt = DenoCodeRuntime(max_calls=MAX_CALLS, compute_ms=5000, max_wall_ms=60_000, pool_size=0)
    runtimes.append(rt)
    dispatched, f = recording_binding()
    request = CodeRunRequest(GENUINE_CALLS, [CodeBindingNamespace("tools", {"f": f})])
    result = await run_within_safety_net(rt, request, "the host's call limit")

    assert result.value is None, result
    assert result.error is not None, result
    assert result.error.kind == "exception", result.error
    assert result.error.message == f"the program made more than {MAX_CALLS} binding calls"
    assert dispatched == [0, 1, 2], "exactly max_calls calls reach the binding, none past the limit"


# -- the frames themselves, with the program rewriting what JSON.stringify asks ----------

TO_JSON_FORGERY = """
// The harness writes its frames with JSON.stringify, which asks an object's toJSON
// first; a toJSON on Object.prototype would turn each log frame into a call frame the
// harness never counted. Frames are written without consulting it.
(Object.prototype as any).toJSON = function (this: any) {
  return this.t === "log" ? { t: "call", id: 1000, ns: 0, fn: 0, args: "0" } : this;
};
console.log("still a log");
delete (Object.prototype as any).toJSON;
return "finished";
"""


async def test_a_to_json_on_object_prototype_cannot_rewrite_the_harness_frames(runtimes: list[DenoCodeRuntime]) -> None:
    rt = DenoCodeRuntime(pool_size=0)
    runtimes.append(rt)
    dispatched, f = recording_binding()
    request = CodeRunRequest(TO_JSON_FORGERY, [CodeBindingNamespace("tools", {"f": f})])
    result = await run_within_safety_net(rt, request, "the run")

    assert result.error is None, result.error
    assert result.value == "finished"
    assert [entry.text for entry in result.logs] == ["still a log"]
    assert dispatched == []


# -- how a process that ended on its own is reported ---------------------------------


@pytest.mark.parametrize(
    ("code", "kind", "text"),
    [
        (-signal.SIGXCPU, "timeout", "compute budget exceeded: the program used more than 1000 ms of CPU time"),
        (-signal.SIGKILL, "worker-exit", "killed (SIGKILL): out of memory, or past the kernel's hard CPU limit"),
        (-signal.SIGSEGV, "worker-exit", "died unexpectedly (SIGSEGV); an out-of-memory crash ends this way"),
        (3, "worker-exit", "exited before the program settled (code 3): the program called exit"),
    ],
    ids=["SIGXCPU", "SIGKILL", "SIGSEGV", "exit"],
)
def test_a_process_that_ended_before_settling_says_why(code: int, kind: str, text: str) -> None:
    failure = _exit_failure(code, 1000)
    assert failure.kind == kind and text in failure.message, failure
