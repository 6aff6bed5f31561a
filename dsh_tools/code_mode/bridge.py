"""The dispatch bridge: every binding call from the program re-enters the pipeline.

For one ``run_code`` execution the bridge

* binds one async function per end-capability tool the calling agent can see:
  a typed tool's binding resolves to its (post-policy) value, a content
  tool's to its text;
* schedules binding calls like a batch (``pipeline/batch.py``), in submission
  order: under ``Promise.all`` the dispatches of concurrency-safe calls
  overlap (at most ``registry.max_parallel_sub_calls`` at once), an exclusive
  call runs alone after everything submitted before it, and policy stages run
  one sub-call at a time, in submission order;
* runs each as a full pipeline call (``<call_id>:code:<n>``, numbered by
  submission, ``parent`` = the outer token, the run-scoped signal), so policy
  applies inside programs too;
* refuses arguments that are not JSON with a ``TypeError`` before the pipeline;
* logs each sub-call as ``tool/code-dispatch`` on the agent's session, keeping
  small arguments whole and a preview plus the size of large ones (the event
  and the run's output are worded in :mod:`.run_report`);
* owns a run-scoped abort that follows the caller's signal and fires when the
  run settles, then drains in-flight sub-calls *before* returning, so every
  dispatch is logged inside the open turn.

A denied or failed sub-call rejects inside the program with its text; a
failed run raises ``CodeRunFailedError``, which the pipeline turns into a
structured ``is_error`` result the model can correct from. A sub-call whose
approval is deferred *parks the program* (:mod:`.replay`): the sandbox ends,
sub-calls already dispatched finish, queued ones are dropped, and the
``run_code`` call settles ``APPROVAL_PENDING``; a rerun after the verdict
replays the recorded calls. A program cannot
pass an image on as a value, so the content of a successful sub-call that
holds an image block is kept and reaches the model beside the ``run_code``
result, as its ``additional_context``, in dispatch order.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from dsh_tools.code_mode.runtime import (
    Binding,
    CodeBindingNamespace,
    CodeRunRequest,
    CodeRunResult,
    code_runtime,
    language_label,
)
from dsh_tools.content import ContentBlock, ToolOutput
from dsh_tools.code_mode.replay import ParkedProgram, RecordedCall, Replay, replay_for
from dsh_tools.code_mode.weak import weak_callback
from dsh_tools.errors import ApprovalPendingError, CodeRunFailedError, ReplayDivergedError, ToolArgsError
from dsh_tools.execution import (
    HookContext,
    PluginSource,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    derived_idempotency_key,
)
from dsh_tools.code_mode.run_report import dispatch_event, run_output, summary
from dsh_tools.json_values import JsonValue, frozen_or_raise
from dsh_tools.pipeline.batch import CallLane
from dsh_tools.signals import AbortController

if TYPE_CHECKING:
    from dsh_tools.context.ports import ToolsPort

__all__ = ["CodeDispatchError", "run_program"]

RUN_CODE_PLUGIN: Final = "run_code"
"""The ``PluginSource`` of the context that carries sub-call images to the loop."""


class CodeDispatchError(Exception):
    """A sub-call that ended as an error; the program sees its text as the rejection."""


class _Parked:
    """The sub-call a program stopped for: its number, id, tool and approval id."""

    __slots__ = ("number", "call_id", "name", "approval_id")

    def __init__(self, number: int, call_id: str, name: str, approval_id: str) -> None:
        self.number, self.call_id, self.name, self.approval_id = number, call_id, name, approval_id


class _Run:
    """Bookkeeping of one program run: the lane and its driver, the counters, what parks or replays it."""

    def __init__(
        self, registry: ToolsPort, outer: ToolExecution, controller: AbortController, replay: Replay | None
    ) -> None:
        self.registry = registry
        self.outer = outer
        self.controller = controller  # the sub-calls' signal
        self.program = AbortController()  # the sandbox's: a parked program stops before its calls do
        self.replay = replay
        # call number -> its recorded call, or how to make it: a live call's is made only if the program
        # parks (its arguments' key is taken at once, so the run does not keep the arguments themselves)
        self.recorded: dict[int, RecordedCall | Callable[[], RecordedCall]] = {}
        self.parked: _Parked | None = None
        self.diverged: str | None = None
        # Told weakly: the run owns its lane, and a lane holding the run back would make the
        # pair a cycle that keeps every recorded call until the collector runs.
        self.lane = CallLane(
            registry,
            max_parallel=registry.max_parallel_sub_calls,
            gates=registry.gates,
            on_recorded=weak_callback(self._on_recorded),
            stay_open=True,  # one driver for the run's calls; drain() closes it
        )
        # sub-call id -> what its record needs (number, tool, arguments), until the lane records it
        self.numbers: dict[str, tuple[int, str, JsonValue]] = {}
        self.unlogged: dict[str, Exception] = {}  # sub-call id -> why its dispatch event could not be logged
        self.driver: asyncio.Task[None] | None = None
        self.submitted = 0
        self.dispatches = 0
        self.images: list[tuple[int, Sequence[ContentBlock]]] = []
        self.live: list[tuple[int, ToolExecutionResult, str]] = []  # a replay's calls that ran for real: (number, result, tool)

    def binding(self, name: str, *, typed: bool | None) -> Binding:
        """The binding of tool ``name``; ``typed=None``: whether it gives a value is read when it is called
        (a name the program found at run time, ``catalog="search"``)."""

        async def call(args: JsonValue) -> JsonValue:
            # Numbered and queued before the first await, so the lane sees the
            # calls in the order the program made them. The lane runs the
            # sub-call and tells ``_on_recorded``, which logs and keeps it: when
            # the runtime cancels a binding because the run ended, the
            # pipeline call it started still finishes (and is logged) before
            # ``drain`` returns; only the wait for its result is cancelled.
            # Not JSON: the program's mistake, refused before the pipeline sees a
            # call (no number, no result, no dispatch event), whatever the runtime.
            frozen = frozen_or_raise(args, lambda why: TypeError(f"tools.{name}(): arguments are not JSON: {why}"))
            if self.parked is not None or self.diverged is not None:
                raise CodeDispatchError("the program is stopping: it is waiting for approval, or its replay diverged")
            self.submitted += 1
            number = self.submitted
            gives_value = typed
            if gives_value is None:
                resolved = self.registry.resolve(name, self.outer.agent)
                gives_value = resolved is not None and resolved.output_schema is not None
            sub_id = f"{self.outer.call_id}:code:{number}"
            if self.replay is not None:
                recorded = self._replayed(number, name, frozen)
                if recorded is not None:
                    if recorded.is_error:
                        raise CodeDispatchError(recorded.text)
                    return recorded.value if gives_value else recorded.text
            # A sub-call's key is its program's and its number: the same call of a rerun has the same key.
            sub_call = ToolExecutionInput(
                sub_id, name, frozen, self.outer.agent, self.outer.token, self.controller.signal,
                derived_idempotency_key(self.outer.idempotency_key, str(number)) if self.outer.idempotency_key else None,
            )
            self.numbers[sub_id] = (number, name, frozen)
            result = await self._submit(sub_call)
            unlogged = self.unlogged.pop(sub_id, None)
            if unlogged is not None:
                raise unlogged  # the program sees it, as it would any failure of its call
            if result.is_error:
                raise CodeDispatchError(result.text)
            return result.value if gives_value else result.text

        return call

    def _replayed(self, number: int, name: str, arguments: JsonValue) -> RecordedCall | None:
        """Call ``number``'s recorded result, ``None`` to run it live; a divergence stops the run."""
        assert self.replay is not None
        available = self.registry.resolve(name, self.outer.agent) is not None
        matched = self.replay.match(number, name, arguments, available)
        if isinstance(matched, str):
            self.diverged = matched
            self.program.abort(ReplayDivergedError(matched))
            raise CodeDispatchError(matched)
        if matched is not None:
            self.recorded[number] = matched  # silent: no pipeline, no observers, no journal row
        return matched

    def _submit(self, sub_call: ToolExecutionInput) -> asyncio.Future[ToolExecutionResult]:
        future = self.lane.submit(sub_call)
        if self.driver is None or self.driver.done():
            self.driver = asyncio.ensure_future(self.lane.drive())
        return future

    def _on_recorded(self, result: ToolExecutionResult) -> None:
        """The lane recorded a sub-call: it is logged and kept, and a deferred one parks the program before anything else starts.

        Parking stops the sandbox and drops the calls only queued; calls
        already dispatched finish (``drain``) and are kept.
        """
        known = self.numbers.pop(result.call_id, None)
        if known is None:
            return
        number, name, args = known
        self.dispatches += 1
        try:
            self._log(result.call_id, name, args, result)
        except Exception as error:  # noqa: BLE001 - a session listener's failure: the binding raises it (below)
            self.unlogged[result.call_id] = error
        else:
            if result.outcome != "approval-pending":
                self.recorded[number] = RecordedCall.pending(number, name, args, result)
            if self.replay is not None:
                self.live.append((number, result, name))
            if not result.is_error and any(block.get("type") == "image" for block in result.content):
                self.images.append((number, result.content))
        if result.outcome != "approval-pending" or self.parked is not None or self.diverged is not None:
            return
        approval_id = result.meta_get("approvalId")
        if type(approval_id) is not str:
            return  # a pending result without an id cannot be resumed; the program just sees the rejection
        self.parked = _Parked(number, result.call_id, name, approval_id)
        self.lane.cancel_queued()
        self.program.abort(CodeDispatchError("the program parked, waiting for approval"))

    def parked_program(self, code: str, seed: int, clock: Sequence[float]) -> ParkedProgram:
        assert self.parked is not None
        resumes = self.replay.program.resumes + 1 if self.replay is not None else 0
        calls = tuple(_made(self.recorded[n]) for n in sorted(self.recorded) if n != self.parked.number)
        program = ParkedProgram(self.outer.call_id, code, calls, self.parked.number, self.parked.name, resumes)
        return program.set(seed=seed, clock=tuple(clock), run_key=self.outer.idempotency_key or None)

    def effects(self) -> tuple[str, dict[str, object]]:
        """What ran for real during this replay: the approved call, then each live sub-call, as text and as ``meta``.

        A replay that diverges or fails after its approved call ran must say
        so: a model that reads only "diverged" would retry, and charge again.
        """
        assert self.replay is not None
        approved = self.replay.approved
        ran: list[tuple[str, str, str, str | None]] = [
            (approved.call_id, approved.name, self.replay.approved_outcome, approved.text)
        ]
        for _, result, name in sorted(self.live, key=lambda entry: entry[0]):
            ran.append((result.call_id, name, result.outcome, None))
        lines = ["calls that ran during this replay (their effects happened):"]
        for call_id, name, outcome, text in ran:
            shown = f": {summary(text)}" if text is not None else ""
            lines.append(f"- {name} (call {call_id}): {outcome}{shown}")
        meta: dict[str, object] = {"effects": [{"callId": c, "name": n, "outcome": o} for c, n, o, _ in ran]}
        return "\n".join(lines), meta

    def image_context(self) -> HookContext | None:
        """The content of the sub-calls that returned images, in dispatch order, or ``None``."""
        if not self.images:
            return None
        content: list[ContentBlock] = []
        for _, blocks in sorted(self.images, key=lambda entry: entry[0]):
            content.extend(blocks)
        return HookContext(content, PluginSource(RUN_CODE_PLUGIN))

    def _log(self, sub_id: str, name: str, args: object, result: ToolExecutionResult) -> None:
        agent = self.outer.agent
        if agent is not None:
            agent.session.append("tool/code-dispatch", dispatch_event(self.outer.call_id, sub_id, name, args, result))

    async def drain(self) -> None:
        """Wait for every sub-call already submitted (the run has settled by now).

        Sub-calls that had not started when the run settled meet its aborted
        signal and settle ``ABORTED_BEFORE_DISPATCH`` (recorded, never run).
        """
        self.lane.close()
        while self.driver is not None and not self.driver.done():
            await asyncio.gather(self.driver, return_exceptions=True)


def _made(kept: RecordedCall | Callable[[], RecordedCall]) -> RecordedCall:
    return kept if isinstance(kept, RecordedCall) else kept()


async def run_program(registry: ToolsPort, args: object, execution: ToolExecution) -> ToolOutput:
    """``run_code``'s body: run ``args["code"]`` with bindings into the pipeline."""
    code = args.get("code") if isinstance(args, Mapping) else None
    if type(code) is not str:
        raise ToolArgsError(["code: expected string" if isinstance(args, Mapping) else "(root): expected object"])
    language = registry.code_language
    runtime = code_runtime(registry.context, language)
    if isinstance(runtime, str):
        raise CodeRunFailedError(f"run_code needs a {language_label(language)} code runtime: {runtime}")
    controller = AbortController()
    run = _Run(registry, execution, controller, replay_for(execution))

    def stop(reason: object) -> None:
        run.program.abort(reason)
        controller.abort(reason)

    follow = execution.signal.add_listener(stop) if execution.signal is not None else None
    namespace = _namespace(registry, run)
    previous = run.replay.program if run.replay is not None else None
    seed = previous.seed if previous is not None and previous.seed is not None else secrets.randbits(32)
    clock = previous.clock if previous is not None else ()
    outcome: CodeRunResult | None = None
    try:
        outcome = await runtime.run(CodeRunRequest(code, [namespace], run.program.signal, seed, clock))
    except Exception:
        if run.parked is None and run.diverged is None:
            raise
        # the run was stopped on purpose (parked, or its replay diverged): that is what it settles as
    finally:
        ended = CodeDispatchError("the program run has ended")
        if run.parked is None:
            controller.abort(ended)  # a parked program's dispatched calls finish; the rest were dropped
        run.program.abort(ended)
        if follow is not None:
            follow()
        await run.drain()
        controller.abort(ended)
    if run.diverged is not None:
        raise _diverged(run, run.diverged)
    if run.parked is not None:
        await _keep_parked(registry, run.parked_program(code, seed, outcome.clock if outcome is not None else ()), run)
    assert outcome is not None  # a run that raised without parking or diverging raised above
    if run.replay is not None and outcome.error is None:
        unfinished = run.replay.unfinished(run.submitted)
        if unfinished is not None:
            raise _diverged(run, unfinished)
    resumed = run.replay.approved.name if run.replay is not None else None
    try:
        return run_output(outcome, run.dispatches, run.image_context(), resumed)
    except CodeRunFailedError as failed:
        if run.replay is None:
            raise
        text, meta = run.effects()  # a replay that failed after its approved call ran
        raise CodeRunFailedError(f"{failed.message}\n{text}", meta=meta) from None


def _namespace(registry: ToolsPort, run: _Run) -> CodeBindingNamespace:
    """The program's ``tools``: a binding per tool the agent sees; with ``catalog="search"``, per tool the
    SDK declares, the built-ins, and any other name through ``lookup`` (into the pipeline, which
    rejects a tool the agent may not call as unknown)."""
    agent = run.outer.agent
    if registry.code_mode.catalog == "search":
        from dsh_tools.code_mode.search.builtins import search_namespace  # first need: native code never loads it

        return search_namespace(registry, agent, run.binding)
    tools = registry.end_capabilities(agent)
    bindings = {tool.name: run.binding(tool.name, typed=tool.output_schema is not None) for tool in tools}
    if run.replay is not None:  # a recorded call's tool that is gone still gets a binding: calling it diverges
        for entry in run.replay.entries.values():
            bindings.setdefault(entry.name, run.binding(entry.name, typed=False))
    return CodeBindingNamespace("tools", bindings)


def _diverged(run: _Run, why: str) -> ReplayDivergedError:
    """The divergence, naming every call that ran for real during the replay (the call it diverged at did not)."""
    text, meta = run.effects()
    return ReplayDivergedError(f"{why}\n{text}", meta=meta)


async def _keep_parked(registry: ToolsPort, program: ParkedProgram, run: _Run) -> None:
    """Attach the program to its parked sub-call's record, then settle ``run_code`` as waiting for it (raises)."""
    parked = run.parked
    assert parked is not None
    try:
        kept = await registry.store.set_program(parked.approval_id, program.wire())  # type: ignore[arg-type]
    except Exception as error:  # noqa: BLE001 - reported as the run's failure
        registry.store.note_failure(error)
        kept = False
    if not kept:
        raise CodeRunFailedError(
            f'the program stopped for the approval of its call to "{parked.name}", but could not be kept waiting'
        )
    await registry.announce_parked(parked.approval_id)  # visible from now on: tell tools/parked listeners
    raise ApprovalPendingError(RUN_CODE_PLUGIN, parked.approval_id, sub_call=(parked.call_id, parked.name))


