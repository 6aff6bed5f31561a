"""Test doubles for code built on dsh-tools.

:class:`ScriptedCodeRuntime` stands in for :class:`~dsh_tools.DenoCodeRuntime`
the way httpx's ``MockTransport`` stands in for the network: unit tests of
Code Mode policies, bridges and prompts get a real registry and pipeline
without starting Deno. A *program* is a Python coroutine function, registered
under the exact source text the model would send to ``run_code``; it gets the
``tools`` bindings (each call re-enters the full pipeline, exactly as a call
from TypeScript does) and the request, and returns the run's
:class:`~dsh_tools.CodeRunResult`. A source with no program runs nothing and
completes with an empty result, so ``ScriptedCodeRuntime()`` also serves tests
that only need Code Mode to assemble.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from types import MappingProxyType

from dsh_tools.code_mode.runtime import Binding, CodeBindingNamespace, CodeRunRequest, CodeRunResult

__all__ = ["Bindings", "ScriptedCodeRuntime", "ScriptedProgram"]

Bindings = Mapping[str, Binding]
"""The ``tools`` namespace a program sees: binding name → async function."""
ScriptedProgram = Callable[[Bindings, CodeRunRequest], Awaitable[CodeRunResult]]
"""A stand-in program: ``async def program(tools, request) -> CodeRunResult``."""

_NO_BINDINGS: Bindings = MappingProxyType({})


class _Open(Mapping[str, Binding]):
    """An open namespace as a program's ``tools``: its listed functions, and any other name through its lookup
    (``catalog="search"``: ``tools["any_tool"]`` is callable, as in the real runtimes)."""

    def __init__(self, space: CodeBindingNamespace) -> None:
        self._space = space

    def __getitem__(self, name: str) -> Binding:
        space = self._space
        found = space.functions.get(name)
        if found is None and space.lookup is not None:
            found = space.lookup(name)
        if found is None:
            raise KeyError(name)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._space.functions)

    def __len__(self) -> int:
        return len(self._space.functions)


class ScriptedCodeRuntime:
    """A ``CodeRuntime`` whose programs are Python coroutine functions.

    ``programs`` maps source text to program, and stays mutable (add one
    with ``runtime.programs[source] = program``). Every request is kept in
    :attr:`requests`, in order. ``language`` defaults to ``"typescript"``,
    which Code Mode requires; another value lets a test check that refusal.
    """

    isolation = "none"

    def __init__(self, programs: Mapping[str, ScriptedProgram] | None = None, *, language: str = "typescript") -> None:
        self.language = language
        self.programs: dict[str, ScriptedProgram] = dict(programs or {})
        self.requests: list[CodeRunRequest] = []

    async def run(self, request: CodeRunRequest, /) -> CodeRunResult:
        """Run the program registered for ``request.program`` (or nothing)."""
        self.requests.append(request)
        program = self.programs.get(request.program)
        if program is None:
            return CodeRunResult(logs=())
        space = next((space for space in request.bindings if space.global_name == "tools"), None)
        tools = _NO_BINDINGS if space is None else space.functions if space.lookup is None else _Open(space)
        return await program(tools, request)

    async def dispose(self) -> None:
        """Nothing to release."""
