"""The parked-call half of ``ToolRegistry``: the store, pending approvals, decisions, resuming.

:class:`ParkedCalls` is mixed into :class:`~dsh_tools.registry.registry.ToolRegistry`
(``ctx.tools.resume(...)`` is the contract's spelling); it keeps what a
registry does with its call store apart from registering, resolving and
executing, which ``registry.py`` holds. The rules of parking itself live in
:mod:`.approvals`; the journal in :mod:`.journal`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, cast

from returns.result import Failure

from dsh_tools.approval import APPROVAL_VERDICTS, ApprovalVerdict, PendingApproval, Remember
from dsh_tools.execution import ToolExecution, ToolExecutionResult, ToolExecutionToken
from dsh_tools.context.context import Agent, Context, live_agent
from dsh_tools.json_values import JsonValue
from dsh_tools.pipeline.cancellation import CallerScope, cancel_requested
from dsh_tools.pipeline.compose import continue_call
from dsh_tools.pipeline.outcomes import record_tampered
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.plan import plan_call, plan_of
from dsh_tools.pipeline.resume import resume_call
from dsh_tools.code_mode import RUN_CODE_NAME
from dsh_tools.registry.announce import DECIDED, PARKED, announce, hears
from dsh_tools.registry.approvals import (
    OWNER, decided_arguments, fingerprint, parked_key, stale_result, tampered,
)
from dsh_tools.registry.recovery import recover
from dsh_tools.tool_types import describe_value
from dsh_tools.signals import checked_signal
from dsh_tools.call_store import CallStore, RuleStore
from dsh_tools.store.sql import StoreUnavailable
from dsh_tools.call_records import ApprovalRule, ParkedCall

if TYPE_CHECKING:
    from dsh_tools.registry.registry import ToolRegistry, _Core
    from dsh_tools.signals import AbortSignal

__all__ = ["ParkedCalls"]


class ParkedCalls:
    """``ToolRegistry``'s methods over its call store (a mixin: the registry's ``_core`` and ``_ctx``)."""

    __slots__ = ()

    if TYPE_CHECKING:
        _core: _Core
        _ctx: Context

        def mint_token(self) -> ToolExecutionToken: ...

    @property
    def store(self) -> CallStore:
        """The call store in use: parked calls, decisions and the journal."""
        return self._core.lot.store

    @property
    def lease_seconds(self) -> float:
        """How long a claim (a parked call run here, a thread step's calls) outlives this process unless renewed."""
        return self._core.lot.lease_seconds

    async def pending_approvals(self, agent: Agent | None = None) -> list[PendingApproval]:
        """Parked calls from the store, oldest first: ``agent``'s (decided or not, not yet run), or every undecided one.

        ``agent=None`` serves an operator or a UI: every undecided parked call
        of every agent, in this process or not (``execution.agent`` is the live
        agent holding it, or ``None``; ``agent_id`` names it either way).
        """
        lot = self._core.lot
        if agent is not None and type(agent) is not Agent:
            raise TypeError(f"pending_approvals() takes an Agent or None, got {describe_value(agent)}")
        parked = await lot.store.parked(agent_id=None if agent is None else agent.id)
        return [lot.pending(self._registry(), call) for call in parked]

    async def resume(
        self,
        approval_id: str,
        outcome: ApprovalVerdict | None = None,
        *,
        arguments: JsonValue | None = None,
        decided_by: str | None = None,
        message: str | None = None,
        remember: Remember | None = None,
        signal: AbortSignal | None = None,
    ) -> ToolExecutionResult:
        """Decide a parked call (unless ``outcome`` is ``None`` and it is decided) and run it here; its final result.

        ``"allowed-once"`` runs the call through the guards (as they are now),
        dispatch and ``tools/post-execute`` — with ``arguments`` instead of
        the model's, if given (validated like the model's); a denial settles
        it with the usual denial text, ``: <message>`` added when ``message``
        says why; an approval that no longer matches the tool the human saw
        settles ``APPROVAL_STALE``. ``remember="agent"`` also keeps the
        decision as a rule for the agent's later calls of the tool (the tool
        must still be the one that parked: ``ValueError`` otherwise).
        ``tools/decided`` listeners hear the decision once it is committed.
        ``tools/result`` observers hear the call once more, and the journal
        records it linked to the parked call (``approval_id``), with who
        decided and what they said. The call runs under ``signal``; a call of
        a thread's turn fills its thread slot when it settles.

        Raises ``ValueError`` for an outcome outside the verdicts (or
        ``None`` with nothing decided yet), ``TypeError`` for a ``signal``
        that is not an ``AbortSignal``, ``LookupError`` when no live agent of
        this app has the parked call's agent id, and ``KeyError`` for an id
        that is unknown, already decided (when ``outcome`` is given), already
        run, or being run by another process. Nothing is consumed by an error.
        """
        verdict: object = outcome  # typed as a literal, but callers are untrusted
        if verdict is not None and (type(verdict) is not str or verdict not in APPROVAL_VERDICTS):
            raise ValueError(f"resume() takes one of {', '.join(APPROVAL_VERDICTS)}, or None; got {describe_value(verdict)}")
        checked = checked_signal(signal, "resume(signal=...)")  # before anything is decided or taken
        store = self._core.lot.store
        parked = await store.get_parked(approval_id) if type(approval_id) is str else None
        if parked is None or parked.state not in ("parked", "decided"):
            raise KeyError(
                f"no pending approval {describe_value(approval_id)}: unknown, already resumed, "
                "running elsewhere, or its agent was disposed (a MemoryStore keeps nothing past that)"
            )
        agent = live_agent(self._ctx, parked.agent_id)
        if agent is None:
            raise LookupError(f"no live agent with id {parked.agent_id!r} here to run approval {approval_id!r}")
        problem = self._program_problem(parked)
        if problem is not None:
            raise RuntimeError(f"approval {approval_id!r} resumes a parked program, and {problem}; nothing was consumed")
        if verdict is None and parked.state == "parked":
            raise ValueError(f"approval {approval_id!r} has no decision yet: pass one of {', '.join(APPROVAL_VERDICTS)}")
        if verdict is not None:
            if remember is not None:
                self._check_rememberable(parked, agent)
            with CallerScope() as scope:
                decision = await store.decide(
                    approval_id, outcome, arguments=arguments, decided_by=decided_by, message=message, remember=remember,  # type: ignore[arg-type]  # checked above
                )
                await announce(self._ctx, DECIDED, agent, decision)
                # A listener that cancelled this task asked the resume to stop: the decision stands (resume_decided
                # runs it). Left pending, the call's own CallerScope would take it for one swallowed before the call,
                # contain it as a stray CancelledError and leave the body's task running unowned.
                scope.raise_if_cancelled()
        elif (arguments, decided_by, message, remember) != (None, None, None, None):
            raise ValueError("arguments, decided_by, message and remember come with an outcome (they are part of a decision)")
        return await self._run_decided(approval_id, agent, checked)

    def _check_rememberable(self, parked: ParkedCall, agent: Agent) -> None:
        """``ValueError`` unless a rule for ``parked``'s tool could ever apply: the store keeps rules, the tool is as it parked."""
        if not isinstance(self._core.lot.store, RuleStore):
            raise ValueError(f"the store ({type(self._core.lot.store).__name__}) keeps no rules: remember is not available")
        tool = self._registry().resolve(parked.tool_name, agent)
        if tool is None:
            raise ValueError(
                f'tool "{parked.tool_name}" no longer exists for agent {agent.name!r}: a rule for it would never apply'
            )
        if fingerprint(tool) != parked.fingerprint:
            raise ValueError(f'tool "{parked.tool_name}" changed since the call parked: a rule for it would never apply')

    async def remembered_rule(self, execution: ToolExecution, /) -> ApprovalRule | None:
        """Internal (:mod:`dsh_tools.pipeline.remembered`): the rule remembered for this call's agent and tool, as it is now."""
        store, agent = self._core.lot.store, execution.agent
        if not isinstance(store, RuleStore) or agent is None:
            return None
        plan = plan_of(execution)
        tool = plan.tool if plan is not None else self._registry().resolve(execution.name, agent)
        return None if tool is None else await store.rule_for(agent.id, execution.name, fingerprint(tool))

    async def recover(self, agent: Agent) -> list[ToolExecutionResult]:
        """Settle ``agent``'s calls that a stopped process left running (their lease lapsed); their results.

        An idempotent tool's call runs again with the same ``idempotency_key``
        (through the staleness check, the guards, dispatch and post-execute;
        not the approval again); any other call, ``run_code`` included,
        settles ``TOOL_OUTCOME_UNKNOWN`` (outcome ``"unknown"``). Each is
        taken in the store first, so concurrent recoveries settle each call
        once. See :mod:`dsh_tools.registry.recovery` and ``docs/durability.md``.
        """
        core = self._core
        return await recover(self._registry(), agent, lease_seconds=core.lot.lease_seconds)

    async def resume_decided(self, agent: Agent) -> list[ToolExecutionResult]:
        """Run every decided, not yet run parked call of ``agent`` (those another process claims first are skipped)."""
        if type(agent) is not Agent:
            raise TypeError(f"resume_decided() takes an Agent, got {describe_value(agent)}")
        results = []
        for parked in await self._core.lot.store.decided(agent.id):
            if self._program_problem(parked) is not None:
                continue  # left decided: a process that can rerun the program will
            try:
                results.append(await self._run_decided(parked.approval_id, agent, None))
            except KeyError:
                continue  # another process or replica took it first
        return results

    async def watch_decisions(self, agent: Agent, *, poll_seconds: float = 1.0) -> AsyncIterator[ToolExecutionResult]:
        """Run each of ``agent``'s parked calls as its decision arrives, yielding its result; ends when the agent is disposed.

        PostgreSQL wakes it with ``NOTIFY``; SQLite is polled (at most
        ``poll_seconds`` behind). While the database is away it waits
        (``StoreUnavailable``); a store that stays broken raises. Cancel the
        iterating task to stop earlier.
        """
        if type(agent) is not Agent:
            raise TypeError(f"watch_decisions() takes an Agent, got {describe_value(agent)}")
        store = self._core.lot.store
        while not agent.ctx.disposed:
            try:
                results = await self.resume_decided(agent)
            except StoreUnavailable:
                results = []  # the database is away (the store logs it and reconnects): look again after the wait
            for result in results:
                yield result
            await store.wait_for_decision(agent.id, poll_seconds)

    def _program_problem(self, parked: ParkedCall) -> str | None:
        """Why this registry cannot rerun the program parked with ``parked`` now (``None``: it can, or there is none)."""
        return None if parked.program is None else self._core.code_mode.program_problem()

    async def _run_decided(self, approval_id: str, agent: Agent, signal: AbortSignal | None) -> ToolExecutionResult:
        lot = self._core.lot
        claimed = await lot.store.claim(approval_id, owner=OWNER, lease_seconds=lot.lease_seconds)
        execution = ToolExecution(
            self.mint_token(), claimed.call_id, claimed.tool_name, decided_arguments(claimed), agent, signal=signal,
            idempotency_key=parked_key(claimed),
        )
        return await lot.run_claimed(self._registry(), claimed, agent, execution)

    async def run_parked(self, parked: ParkedCall, execution: ToolExecution, stale: str | None) -> ToolExecutionResult:
        """Internal (:class:`~dsh_tools.registry.approvals.ParkingLot`): settle a claimed call's verdict and run it.

        A sub-call whose program parked for it goes to the Code Mode plugin,
        which runs the program again after it. The call is planned here, its
        plan's state linked to the approval it continues (and the program
        that made it), so its journal record says so.
        """
        plan = plan_call(self._registry(), execution)
        state = plan.state
        state.approval_id, state.decision = parked.approval_id, parked.decision
        if parked.program is None:  # a parked program's slot is its rerun's (code_mode/replay.py), not the sub-call's
            state.thread_slot = parked.thread_slot
        if parked.parent_call_id is not None:
            state.parent_call_id = parked.parent_call_id
        if parked.program is not None:  # its program settles too, tampered or not: the thread waits on it
            return await self._core.code_mode.resume_program(plan, parked, execution, stale, tampered=tampered(parked))
        if tampered(parked):  # what was read back is not what parked: nothing runs
            return await continue_call(plan, record_tampered(execution), ())
        return await self.settle_parked(plan, parked, execution, stale)

    async def settle_parked(
        self, host: PipelineHost, parked: ParkedCall, execution: ToolExecution, stale: str | None
    ) -> ToolExecutionResult:
        """Internal: settle a claimed call's verdict and run what follows it (a parked program's sub-call too).

        ``host`` is the call's plan, linked to its approval (:meth:`run_parked`).
        """
        if stale is not None:
            return await continue_call(host, Failure(stale_result(execution, stale)), ())
        decision = parked.decision
        assert decision is not None  # claimed calls are decided
        return await resume_call(host, execution, decision.outcome, message=decision.message)

    async def park_approval(self, execution: ToolExecution, reason: str | None, /) -> str:
        """Internal (:class:`~dsh_tools.pipeline.verdicts.ApprovalParking`): commit a deferred call."""
        core = self._core
        plan = plan_of(execution)
        parent = plan.state.parent_call_id if plan is not None else None
        # A program's sub-call is held until its program is attached (the program parks with it).
        hold = plan is not None and plan.parent is not None and plan.parent.name == RUN_CODE_NAME
        # A sub-call's approval holds up its program's call: that call's thread slot waits for it.
        slot = None
        if plan is not None:
            slot = plan.state.thread_slot or (plan.state.parent.thread_slot if plan.state.parent is not None else None)
        parked = await core.lot.park(self._registry(), execution, reason, parent, hold=hold, slot=slot)
        agent = execution.agent
        store = core.lot.store
        if agent is not None and not store.durable and agent not in core.forgetting:
            core.forgetting[agent] = None
            agent.ctx.track(lambda: store.forget_agent(agent.id))
        if not hold and hears(self._ctx, PARKED, agent):
            try:
                await announce(self._ctx, PARKED, agent, core.lot.pending(self._registry(), parked))
            except asyncio.CancelledError:
                if not cancel_requested():
                    raise
                # The park is committed: the call waits for approval, whatever the caller does now. It settles
                # APPROVAL_PENDING (never "aborted before it ran", which a later resume would belie), and the
                # caller's cancellation goes on once it is recorded (CallerScope).
        return parked.approval_id

    async def announce_parked(self, approval_id: str) -> None:
        """Internal (Code Mode): a held sub-call became visible with its program; tell ``tools/parked`` listeners."""
        parked = await self._core.lot.store.get_parked(approval_id)
        if parked is None:
            return
        agent = live_agent(self._ctx, parked.agent_id)
        if hears(self._ctx, PARKED, agent):
            await announce(self._ctx, PARKED, agent, self._core.lot.pending(self._registry(), parked))

    def _registry(self) -> ToolRegistry:
        return cast("ToolRegistry", self)  # the mixin's one host; no import of it, which imports this module
