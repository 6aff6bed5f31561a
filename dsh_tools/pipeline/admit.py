"""Stage 1, admission: turn a caller's input into a pipeline-owned execution.

Admission snapshots the single-use input: it checks the identity fields,
detaches and deep-freezes the arguments (they must be losslessly JSON), refuses
a ``parent`` token this registry never minted, and assigns the new execution's
own token. Whatever goes wrong is a settled error result, and policy and body
never see the call.
"""

from __future__ import annotations

from returns.result import Failure, Result, Success

from dsh_tools.errors import ToolArgsError
from dsh_tools.execution import IDEMPOTENCY_KEY_MAX, ToolExecution, ToolExecutionInput, UnparsedArguments, mint_idempotency_key
from dsh_tools.context.context import Agent
from dsh_tools.json_values import NotJson, frozen_or_failure
from dsh_tools.json_walk import has_lone_surrogate, unicode_text
from dsh_tools.seams import PipelineHost
from dsh_tools.pipeline.outcomes import Settled, error_result, exception_result
from dsh_tools.signals import AbortSignal

__all__ = ["admit", "identity_problem"]


def admit(host: PipelineHost, call: ToolExecutionInput) -> Result[ToolExecution, Settled]:
    """``Success(execution)`` for a well-formed input, else ``Failure(Settled)``."""
    if type(call) is not ToolExecutionInput:
        return _reject(host, None, f"expected ToolExecutionInput, got {type(call).__name__}")
    parent = call.parent
    forged = parent is not None and not host.issued(parent)
    problem = identity_problem(call)
    if problem is None and forged:
        problem = "parent is not a token issued by this registry"
    if problem is None and type(call.arguments) is UnparsedArguments:
        return _unparsed(host, call, call.arguments)
    if problem is None:
        frozen = frozen_or_failure(call.arguments)
        if isinstance(frozen, NotJson):
            problem = f"arguments are not JSON ({frozen.why})"
        else:
            name = unicode_text(call.name)  # a lone surrogate names no tool: as text, the call settles UNKNOWN_TOOL
            carried = {"arguments": frozen}  # frozen just now: the record takes it without a second look
            key = call.idempotency_key or mint_idempotency_key()
            return Success(
                ToolExecution._carrying(
                    carried, host.mint_token(), call.call_id, name, agent=call.agent, parent=parent, signal=call.signal,
                    idempotency_key=key,
                )
            )
    return _reject(host, call, problem, drop_parent=forged)


def _unparsed(host: PipelineHost, call: ToolExecutionInput, unparsed: UnparsedArguments) -> Failure[Settled]:
    """An adapter's stand-in for arguments the model sent unusable: ``INVALID_ARGS``, before policy.

    Observers see the raw text as the arguments, a lone surrogate in it (a
    ``"\\ud800"`` escape that Python's ``json`` decoded) written as U+FFFD.
    """
    raw, problem = unparsed.raw, unparsed.problem
    execution = ToolExecution(
        host.mint_token(),
        call.call_id,
        unicode_text(call.name),
        unicode_text(raw) if type(raw) is str else None,
        call.agent,
        call.parent,
        call.signal,
        _given_key(call) or mint_idempotency_key(),
    )
    reason = problem if type(problem) is str else "the arguments could not be read"
    return Failure(Settled(execution, exception_result(call.call_id, ToolArgsError((reason,)))))


def identity_problem(call: ToolExecutionInput) -> str | None:
    """The input's fields are typed, but callers are untrusted: check what is really there."""
    call_id: object = call.call_id
    name: object = call.name
    agent: object = call.agent
    signal: object = call.signal
    if type(call_id) is not str or not call_id:
        return "call_id must be a non-empty str"
    if has_lone_surrogate(call_id):
        return "call_id holds a lone surrogate (not Unicode text)"
    if type(name) is not str:
        return "name must be a str"
    if agent is not None and not _is_agent(agent):
        return f"agent must be an Agent, got {type(agent).__name__}"
    if signal is not None and type(signal) is not AbortSignal:
        return f"signal must be an AbortSignal, got {type(signal).__name__}"
    if call.idempotency_key is not None and _given_key(call) is None:
        return f"idempotency_key must be a non-empty str of at most {IDEMPOTENCY_KEY_MAX} characters (Unicode text)"
    return None


def _given_key(call: ToolExecutionInput) -> str | None:
    """The caller's key, if it is a usable one (the one rule for it; a call whose key is not gets a fresh one)."""
    key: object = call.idempotency_key
    if type(key) is not str or not key or len(key) > IDEMPOTENCY_KEY_MAX or has_lone_surrogate(key):
        return None
    return key


def _reject(
    host: PipelineHost, call: ToolExecutionInput | None, problem: str, *, drop_parent: bool = False
) -> Failure[Settled]:
    """Settle an invalid call: observers see it with ``arguments=None`` (and its ids as Unicode text)."""
    call_id = unicode_text(call.call_id) if call is not None and type(call.call_id) is str else ""
    execution = ToolExecution(
        host.mint_token(),
        call_id,
        unicode_text(call.name) if call is not None and type(call.name) is str else "",
        None,
        call.agent if call is not None and _is_agent(call.agent) else None,
        None if call is None or drop_parent else call.parent,
        call.signal if call is not None and type(call.signal) is AbortSignal else None,
        (_given_key(call) if call is not None else None) or mint_idempotency_key(),
    )
    return Failure(Settled(execution, error_result(call_id, f"invalid tool call: {problem}")))


def _is_agent(value: object) -> bool:
    """``isinstance(value, Agent)``, total: a hostile ``__class__`` lookup reads as "no"."""
    try:
        return isinstance(value, Agent)
    except Exception:  # noqa: BLE001 - hostile input is data here
        return False
