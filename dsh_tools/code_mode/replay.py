"""Programs that wait for a human: what a parked program keeps, and how its rerun is matched against it.

A program cannot hold a sandbox open while a human decides, so when one of
its calls is deferred the program *parks*: the sandbox ends, and the parked
sub-call's record in the store gets the program (:class:`ParkedProgram`): its
code and, in submission order, every call it made that settled (name, a
digest of its arguments, and result). Resuming runs the approved call, then
the program again from the start in a fresh sandbox. Each call the rerun
makes is matched by number against the earlier run (:class:`Replay`):

* a recorded call with the same tool and equal arguments gets its recorded
  result, silently (no pipeline, no observers, no journal row);
* the approved call gets its now-real result (a denial rejects inside the
  program, which may catch it);
* calls past the record run live, numbered on from the earlier run's;
* anything else (another tool, other arguments, a tool that is gone, a run
  that ends before repeating every recorded call) is a divergence: the rerun
  stops and the ``run_code`` call settles ``REPLAY_DIVERGED``, naming the
  first call that differed, with nothing journaled dispatched again.

The registry hands a claimed parked call whose record holds a program to its
Code Mode plugin, which calls :func:`resume_program`.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import orjson
from returns.result import Failure

from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.execution import ToolExecution, ToolExecutionResult, mint_idempotency_key
from dsh_tools.json_values import JsonValue, freeze_json, thaw_json
from dsh_tools.pipeline.cancellation import CANCELLED, FATAL, cancel_requested
from dsh_tools.pipeline.compose import continue_call, record_interrupted
from dsh_tools.pipeline.outcomes import Settled, aborted_result, record_tampered
from dsh_tools.pipeline.plan import CallPlan, plan_call, plan_of
from dsh_tools.pipeline.resume import resume_call
from dsh_tools.record import Record

if TYPE_CHECKING:
    from dsh_tools.context.ports import ToolsPort
    from dsh_tools.call_records import ParkedCall

__all__ = ["ParkedProgram", "RecordedCall", "Replay", "replay_for", "resume_program"]

_HEAD_CHARS: Final = 200
"""Characters of a call's JSON arguments a divergence quotes."""


class RecordedCall(Record):
    """One settled call of a program run, as its rerun gets it back.

    It keeps what a rerun needs, not the call's arguments: their digest,
    against which the rerun's arguments are matched, and the head of their
    JSON text, which a divergence quotes (:func:`arguments_key`). A
    run records every call it makes (any of them may be the one a later
    park needs), so keeping the arguments themselves cost the run up to
    ``max_calls`` times ``max_arg_bytes``, and a parked program's stored
    record as much.
    """

    _json_fields = frozenset({"value"})
    number: int
    call_id: str
    name: str
    digest: str
    head: str
    is_error: bool
    text: str
    value: JsonValue | None = None

    @classmethod
    def of(cls, number: int, name: str, arguments: JsonValue, result: ToolExecutionResult) -> RecordedCall:
        return cls.keyed(number, name, arguments_key(arguments), result)

    @classmethod
    def pending(
        cls, number: int, name: str, arguments: JsonValue, result: ToolExecutionResult
    ) -> Callable[[], RecordedCall]:
        """:meth:`of`, made when asked: the arguments' key is taken now (so the arguments need not be kept), the
        record only if the program parks (a run records every call; few runs park)."""
        return partial(cls.keyed, number, name, arguments_key(arguments), result)

    @classmethod
    def keyed(cls, number: int, name: str, key: tuple[str, str], result: ToolExecutionResult) -> RecordedCall:
        """:meth:`of`, from the arguments' key (:func:`arguments_key`) already taken."""
        carried = {"value": result.value}  # the result's field: frozen by construction
        digest, head = key
        return cls._carrying(carried, number, result.call_id, name, digest, head, result.is_error, result.text)

    def wire(self) -> dict[str, object]:
        return {
            "number": self.number, "callId": self.call_id, "name": self.name, "argumentsDigest": self.digest,
            "argumentsHead": self.head, "isError": self.is_error, "text": self.text, "value": thaw_json(self.value),
        }

    @classmethod
    def read(cls, c: Any) -> RecordedCall:
        """One wired call (``KeyError``/``TypeError`` if it is not one); a call parked before
        digests were kept carries its ``arguments`` whole."""
        if "arguments" in c:
            digest, head = arguments_key(c["arguments"])
        else:
            digest, head = c["argumentsDigest"], c["argumentsHead"]
            if type(digest) is not str or type(head) is not str:
                raise TypeError("a recorded call's argumentsDigest and argumentsHead are strings")
        return cls(c["number"], c["callId"], c["name"], digest, head, c["isError"], c["text"], c["value"])


def arguments_key(arguments: JsonValue) -> tuple[str, str]:
    """What a replay keeps of a call's arguments: the SHA-256 of their JSON with sorted keys (equal for
    JSON-equal arguments; ``1`` and ``true`` differ), and the first ``_HEAD_CHARS`` characters of that
    JSON, which a divergence quotes."""
    try:
        text = orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)  # frozen values are dicts and tuples to orjson
    except TypeError:
        text = orjson.dumps(thaw_json(arguments), option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(text).hexdigest(), text[: _HEAD_CHARS * 4].decode("utf-8", "ignore")[:_HEAD_CHARS]


class ParkedProgram(Record):
    """A program waiting for the approval of its call number ``waiting`` (kept in the parked sub-call's record)."""

    run_call_id: str
    code: str
    calls: tuple[RecordedCall, ...]
    waiting: int
    waiting_name: str
    resumes: int = 0
    seed: int | None = None
    clock: tuple[float, ...] = ()
    run_key: str | None = None
    """The ``run_code`` call's idempotency key: its rerun keeps it (and so do its sub-calls')."""

    def wire(self) -> dict[str, object]:
        """The program as a store keeps it, with the digest :meth:`read` checks."""
        wired: dict[str, object] = {
            "runCallId": self.run_call_id, "code": self.code, "calls": [call.wire() for call in self.calls],
            "waiting": self.waiting, "waitingName": self.waiting_name, "resumes": self.resumes,
            "seed": self.seed, "clock": list(self.clock), "runKey": self.run_key,
        }
        wired["digest"] = _program_digest(wired)
        return wired

    @classmethod
    def read(cls, stored: object, *, digest_required: bool = True) -> ParkedProgram | None:
        """The program a store kept, or ``None`` if it does not read back as the program that was stored.

        Everything is checked before anything runs: the digest (code or
        recorded results rewritten, or the digest taken away), and the type
        of every field (a number that is not one would otherwise fail the
        rerun after its approved call ran). Only a program parked before
        digests were kept (``digest_required=False``: its parked row has no
        digest either) is read by its types alone.
        """
        try:
            return cls._read(thaw_json(stored), digest_required)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    @classmethod
    def _read(cls, data: Any, digest_required: bool) -> ParkedProgram | None:
        if not isinstance(data, dict):
            return None
        digest = data.pop("digest", None)
        if (digest is None and digest_required) or (digest is not None and digest != _program_digest(data)):
            return None
        calls = tuple(RecordedCall.read(c) for c in data["calls"])
        clock = tuple(float(t) for t in data.get("clock", ()))
        seed, run_key = data.get("seed"), data.get("runKey")
        typed = (
            all(type(number) is int for number in (data["waiting"], data["resumes"], *(c.number for c in calls)))
            and all(type(data[key]) is str for key in ("runCallId", "code", "waitingName"))
            and all(
                type(c.call_id) is str and type(c.name) is str and type(c.text) is str and type(c.is_error) is bool
                for c in calls
            )
            and (seed is None or type(seed) is int)
        )
        if not typed:
            return None
        program = cls(data["runCallId"], data["code"], calls, data["waiting"], data["waitingName"], data["resumes"])
        return program.set(seed=seed, clock=clock, run_key=run_key if type(run_key) is str else None)


def _program_digest(wired: dict[str, object]) -> str:
    """The SHA-256 of a wired program's JSON with sorted keys (its ``digest`` left out)."""
    kept = {key: value for key, value in wired.items() if key != "digest"}
    return hashlib.sha256(orjson.dumps(kept, option=orjson.OPT_SORT_KEYS)).hexdigest()


class Replay:
    """The matching state of one rerun: recorded calls by number, the approved one's real result among them."""

    def __init__(self, program: ParkedProgram, approved: RecordedCall, approved_outcome: str = "ok") -> None:
        self.program = program
        self.approved = approved
        self.approved_outcome = approved_outcome
        """How the approved call ended when it ran, just before the rerun (the first effect a report names)."""
        self.entries: dict[int, RecordedCall] = {call.number: call for call in program.calls}
        self.entries[program.waiting] = approved
        self.last = max(self.entries)

    def match(self, number: int, name: str, arguments: JsonValue, available: bool) -> RecordedCall | str | None:
        """The recorded result for call ``number``; ``None`` to run it live; a ``str`` saying how it diverged."""
        entry = self.entries.get(number)
        if entry is None:
            return None
        digest, head = arguments_key(arguments)
        if entry.name != name or entry.digest != digest:
            return (
                f"the resumed program diverged at call {number}: the earlier run called {entry.name}"
                f"({entry.head}), this run called {name}({head})"
            )
        if not available and entry is not self.approved:
            return f"the resumed program diverged at call {number}: tool {name!r} is no longer available to the agent"
        return entry

    def unfinished(self, submitted: int) -> str | None:
        """Why a run that ended after ``submitted`` calls diverged (it skipped recorded calls), or ``None``."""
        if submitted >= self.last:
            return None
        missing = self.entries.get(submitted + 1)
        what = f" ({missing.name})" if missing is not None else ""
        return f"the resumed program diverged: it ended after {submitted} calls, before repeating call {submitted + 1}{what}"


def replay_for(execution: ToolExecution) -> Replay | None:
    """The replay a ``run_code`` call's run follows, if it is a rerun (taken from its plan: a run consults it once)."""
    plan = plan_of(execution)
    if plan is None:
        return None
    replay, plan.state.replay = plan.state.replay, None
    return replay if isinstance(replay, Replay) else None


async def resume_program(
    registry: ToolsPort,
    sub_plan: CallPlan,
    parked: ParkedCall,
    execution: ToolExecution,
    stale: str | None,
    *,
    tampered: bool,
) -> ToolExecutionResult:
    """Settle the approved sub-call, then rerun its program with the earlier run's calls replayed.

    The sub-call runs outside any program (its journal record linked to the
    approval); the ``run_code`` call then runs again under its own call id,
    and its result is what ``resume`` returns. A parked row or program that
    does not read back as the one stored (``tampered``; the program's
    digest, its fields) runs nothing: see :func:`_settle_tampered`.
    """
    program = None if tampered else ParkedProgram.read(parked.program, digest_required=parked.digest is not None)
    if program is None:
        return await _settle_tampered(registry, sub_plan, parked, execution)
    try:
        sub_result = await registry.settle_parked(sub_plan, parked, execution, stale)
    except (asyncio.CancelledError, *FATAL) as error:
        if isinstance(error, asyncio.CancelledError) and not cancel_requested():
            raise
        # The caller's cancellation (or an interrupt) cut the approved call short: the sub-call is recorded,
        # and so is the program's call this resume answers for (a thread waits on it), before it goes on.
        run, plan = _program_call(registry, program, parked, execution)
        if isinstance(error, asyncio.CancelledError):
            await continue_call(plan, Failure(Settled(run, aborted_result(run, "ABORTED", CANCELLED))), ())
        else:
            await record_interrupted(plan, run, error)
        raise
    approved = RecordedCall.of(program.waiting, parked.tool_name, parked.arguments, sub_result)
    run, plan = _program_call(registry, program, parked, execution)
    plan.state.replay = Replay(program, approved, sub_result.outcome)  # the rerun's bindings consult it (``replay_for``)
    return await resume_call(plan, run, "allowed-once")


def _program_call(
    registry: ToolsPort, program: ParkedProgram, parked: ParkedCall, execution: ToolExecution
) -> tuple[ToolExecution, CallPlan]:
    """The program's ``run_code`` call, planned and linked to the approval it resumes after."""
    code = freeze_json({"code": program.code}).unwrap()
    run = ToolExecution(
        registry.mint_token(), program.run_call_id, RUN_CODE_NAME, code, execution.agent, signal=execution.signal,
        idempotency_key=program.run_key or mint_idempotency_key(),
    )
    plan = plan_call(registry, run)
    plan.state.approval_id = parked.approval_id
    plan.state.thread_slot = parked.thread_slot  # the program's call is the thread's: its rerun fills the slot
    plan.state.decision = parked.decision
    return run, plan


async def _settle_tampered(
    registry: ToolsPort, sub_plan: CallPlan, parked: ParkedCall, execution: ToolExecution
) -> ToolExecutionResult:
    """Settle both the sub-call and its program's ``run_code`` call ``RECORD_TAMPERED``; the latter's result.

    Neither runs. The ``run_code`` call is the one a thread waits on (its
    slot fills with this result, so the conversation goes on), named by the
    parked row's parent call id: the program's own fields are not trusted.
    """
    await continue_call(sub_plan, record_tampered(execution), ())
    run = ToolExecution(
        registry.mint_token(), parked.parent_call_id or execution.call_id, RUN_CODE_NAME, freeze_json({}).unwrap(),
        execution.agent, signal=execution.signal, idempotency_key=mint_idempotency_key(),
    )
    plan = plan_call(registry, run)
    plan.state.approval_id = parked.approval_id
    plan.state.thread_slot = parked.thread_slot
    return await continue_call(plan, record_tampered(run), ())

