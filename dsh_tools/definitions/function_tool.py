"""``@tool``: a tool from a plain typed function, the way Python agent authors write them.

::

    @tool
    async def add(a: int, b: int = 1, *, exec: ToolExecution) -> str:
        \"\"\"Add two numbers.

        Args:
            a: The first number.
            b: The second number.
        \"\"\"
        return str(a + b)

The signature is the schema (:mod:`.signature` reads it), the docstring is
the description, the return annotation is the typed output, and the result
is a :class:`FunctionTool`: the very ``DefinedTool`` that
``define_tool(parameters=..., output=...)`` builds from them, plus the
original function as ``.fn``. So validation (of the arguments and of the
returned value), rendering, presentation and registration are
``define_tool``'s, not a second implementation, and mypy sees a
``ToolDefinition`` while still checking direct calls of ``add.fn``.

A synchronous ``def`` runs in a worker thread of its agent's own bounded
executor (:mod:`.sync_threads`), so a blocking body never stalls the event
loop and one agent's stuck threads never starve another agent. A thread
cannot be interrupted: if the call is cancelled or times out, the body is
given the pipeline's grace period and then orphaned (its thread runs on,
its result discarded). A sync body that wants to stop early polls
``exec.signal.aborted``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Mapping
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from dsh_tools.definitions.define import DefinedTool, define_tool
from dsh_tools.definitions.signature import FunctionSignature, read_function
from dsh_tools.definitions.sync_threads import to_agent_thread
from dsh_tools.errors import OutputSchemaError, ToolOutputError
from dsh_tools.execution import ToolExecution
from dsh_tools.json_values import JsonValue, thaw_json
from dsh_tools.retry import Retry
from dsh_tools.tool_types import NeedsApproval

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent

__all__ = ["ConcurrencySafety", "FunctionTool", "tool"]

ConcurrencySafety = bool | Callable[[Mapping[str, JsonValue]], bool]
"""``@tool(is_concurrency_safe=...)``: ``True`` for every call, or a predicate over the call's arguments."""

F = TypeVar("F", bound=Callable[..., Any])
F_co = TypeVar("F_co", bound=Callable[..., Any], covariant=True)
R = TypeVar("R")


class FunctionTool(DefinedTool[Mapping[str, JsonValue]], Generic[F_co]):
    """A ``DefinedTool`` made by :func:`tool` from a function, which stays callable as ``.fn``.

    It registers like any definition; ``fn`` is the undecorated function, so
    ``add.fn(1, 2, exec=execution)`` is an ordinary, type-checked call.
    """

    fn: F_co
    """The decorated function itself, unchanged (call it directly in tests and scripts)."""


@overload
def tool(fn: F, /) -> FunctionTool[F]: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_ms: float | None = None,
    is_concurrency_safe: ConcurrencySafety | None = None,
    output: object = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
) -> Callable[[F], FunctionTool[F]]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_ms: float | None = None,
    is_concurrency_safe: ConcurrencySafety | None = None,
    output: object = None,
    retry: Retry | None = None,
    idempotent: bool = False,
    needs_approval: NeedsApproval = False,
    max_inline_bytes: int | None = None,
) -> FunctionTool[Any] | Callable[[Callable[..., Any]], FunctionTool[Any]]:
    """Turn a typed function into a tool: ``@tool`` or ``@tool(name=..., description=..., ...)``.

    * Parameters, in signature order, are the tool's arguments: a parameter
      with a default is optional and its default appears in the schema.
      Types map as for ``define_tool``'s TypedDicts, plus unions (``int |
      str``, rendered ``anyOf``) and ``Literal`` of str, int or bool members.
    * A parameter ``exec: ToolExecution`` receives the call and is not part of
      the schema.
    * The name is the function's unless ``name=`` is given; the description is
      the docstring's summary unless ``description=`` is given. Parameter
      descriptions come from the docstring's Google, NumPy or reST sections
      (``docstring_parser``) or from ``Annotated[T, Prop(description=...)]``,
      which wins.
    * The return annotation is the typed output (``define_tool(output=...)``):
      the returned value is checked against its schema (``OUTPUT_INVALID``
      on a mismatch), becomes ``result.value`` and is rendered (``-> str`` as
      the text itself, anything else as compact JSON). ``-> T | ToolOutput``
      may also return ``ToolOutput(content, value=...)``. ``-> list[ContentBlock]``
      (or ``ToolOutput``) is a content tool whose return passes through.
      ``output=`` (a type, a ``Prop`` or a JSON Schema) replaces the
      annotation's schema, for a function annotated ``-> JsonValue``.
    * A ``def`` runs in a worker thread of its agent's own bounded executor
      (``SYNC_THREADS_PER_AGENT`` threads); an ``async def`` on the event loop.
    * ``is_concurrency_safe=True`` lets every call of the tool dispatch
      alongside its siblings (``execute_batch``, Code Mode); a predicate
      decides per call from the validated arguments (a mapping of parameter
      name to value), as ``define_tool``'s does.
    * ``retry=Retry(attempts, ...)`` runs a failing body again, as
      ``define_tool``'s does; ``idempotent``, ``needs_approval`` and
      ``max_inline_bytes`` mean what they mean there.

    Raises at decoration time: ``TypeError`` naming the parameter for an
    unsupported or missing annotation, ``*args``/``**kwargs`` or a misdeclared
    ``exec``, and for anything that is not a plain function (a lambda, a
    method, a callable object); ``ValueError`` for a docstring that documents
    parameters the signature lacks, a missing description, or a bad
    ``name``/``timeout_ms`` (as ``define_tool`` would).
    """
    decorate = functools.partial(
        _function_tool,
        name=name,
        description=description,
        timeout_ms=timeout_ms,
        is_concurrency_safe=is_concurrency_safe,
        output=output,
        retry=retry,
        idempotent=idempotent,
        needs_approval=needs_approval,
        max_inline_bytes=max_inline_bytes,
    )
    return decorate if fn is None else decorate(fn)


def _function_tool(
    fn: Callable[..., Any],
    *,
    name: str | None,
    description: str | None,
    timeout_ms: float | None,
    is_concurrency_safe: ConcurrencySafety | None,
    output: object,
    retry: Retry | None,
    idempotent: bool,
    needs_approval: NeedsApproval,
    max_inline_bytes: int | None,
) -> FunctionTool[Any]:
    signature = read_function(fn, needs_return=output is None)
    tool_name = fn.__name__ if name is None else name
    text = description if description is not None else signature.description
    if text is None:
        raise ValueError(f"@tool {fn.__name__}: no description; give the function a docstring or pass description=")
    declared: Any = output if output is not None else signature.output  # a type, Prop or schema: define_tool judges it
    try:
        defined = define_tool(
            name=tool_name,
            description=text,
            parameters=signature.spec,
            execute=_body(fn, signature, tool_name),
            output=declared,
            timeout_ms=timeout_ms,
            is_concurrency_safe=_classifier(is_concurrency_safe),
            retry=retry,
            idempotent=idempotent,
            needs_approval=needs_approval,
            max_inline_bytes=max_inline_bytes,
        )
    except (TypeError, OutputSchemaError) as error:
        if output is not None or signature.output_kind == "content":
            raise
        raise TypeError(f"@tool {fn.__name__}: unsupported return annotation: {error}") from None
    return _adopt(defined, fn)


def _classifier(safety: ConcurrencySafety | None) -> Callable[[Mapping[str, JsonValue]], bool] | None:
    """``True`` as the predicate that always answers it; ``False``/``None`` as no predicate (exclusive)."""
    if safety is True:
        return _always_safe
    if safety is None or safety is False:
        return None
    return safety  # define_tool checks that it is callable


def _always_safe(args: Mapping[str, JsonValue]) -> bool:
    return True


def _body(
    fn: Callable[..., Any], signature: FunctionSignature, name: str
) -> Callable[[Mapping[str, JsonValue], ToolExecution], Awaitable[Any]]:
    """The ``execute`` body ``define_tool`` runs after validating the arguments; its return is the tool's.

    A ``def`` that returns a coroutine (an ``async def`` behind a sync
    decorator) is ``OUTPUT_INVALID`` saying so, and the coroutine is closed
    unrun: it would otherwise be dropped un-awaited.
    """

    if signature.is_async:

        def awaited(args: Mapping[str, JsonValue], exec: ToolExecution) -> Awaitable[Any]:
            plain = cast("Mapping[str, object]", thaw_json(args))  # the body gets plain dict/list, as annotated
            positional, keywords = signature.bind(plain, exec)
            return cast("Awaitable[Any]", fn(*positional, **keywords))  # its own coroutine, awaited by execute

        return awaited

    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> Any:
        plain = cast("Mapping[str, object]", thaw_json(args))  # the body gets plain dict/list, as annotated
        positional, keywords = signature.bind(plain, exec)
        output = await run_in_thread(functools.partial(fn, *positional, **keywords), exec.agent)
        if type(output) is CoroutineType:  # exact type: isinstance could run a hostile __class__
            output.close()
            raise ToolOutputError(["the function is a def but returned a coroutine; declare it with async def"], tool=name)
        return output

    return body


async def run_in_thread(call: Callable[[], R], agent: Agent | None = None) -> R:
    """Run ``call`` in a worker thread of ``agent``'s executor; on cancellation, wait for it to end, then cancel.

    A thread cannot be stopped, so a cancelled caller waits for it (however
    often it is cancelled meanwhile) and then re-raises: the body's task
    reflects the thread. The pipeline bounds that wait for the call itself
    (the grace period, then the body is orphaned).
    """
    future = asyncio.ensure_future(to_agent_thread(agent, functools.partial(_no_stop_iteration, call)))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        while not future.done():
            try:
                await asyncio.wait((future,))
            except asyncio.CancelledError:
                continue
        if not future.cancelled():
            future.exception()  # retrieved: the cancellation, not the body's outcome, is what propagates
        raise


def _no_stop_iteration(call: Callable[[], R]) -> R:
    """``call()``, a ``StopIteration`` it raises turned into ``RuntimeError`` (as a coroutine's is).

    An asyncio future refuses ``StopIteration``, so one escaping the thread
    would leave the awaiting future pending for ever.
    """
    try:
        return call()
    except StopIteration as error:
        raise RuntimeError("function raised StopIteration") from error


def _adopt(defined: DefinedTool[Any], fn: Callable[..., Any]) -> FunctionTool[Any]:
    """The ``FunctionTool`` holding exactly what ``define_tool`` built, plus ``fn``.

    ``define_tool`` stays the one place a definition is checked and built;
    its record's fields (whatever they are) carry over by name.
    """
    fields = {name: getattr(defined, name) for name in DefinedTool._record_fields}
    return FunctionTool(**fields, fn=fn)
