"""The Code Mode SDK prompt text (:func:`render_tools_sdk`).

The registry regenerates this text at every prompt assembly, and it sits near
the top of the system prompt, so two properties matter more than anything:

* **Determinism.** Tools are ordered by name in code-point order (ties, which
  only duplicate names produce, by their rendered text), so the same *set*
  gives byte-identical text whatever the input order — prompt prefix caches
  stay warm. Properties keep the author's order (see :mod:`._read`).
* **Cost.** Each tool's member text is memoised (:class:`_MemberCache`, the
  :data:`CACHE_SIZE` most recently used entries) so an unchanged tool set is
  not rendered again. An entry is keyed by the tool's name, description,
  return type and the *identity* of its parameters, holds a strong reference
  to them (so the id cannot be recycled) and their JSON text as orjson writes
  it — the fingerprint. A hit needs the parameters to write the same text
  again: one call into C per tool, and a caller that mutates its ``dict``
  (or anything inside it) gets a fresh render. That is sound because the
  renderer reads a schema only as its JSON text says (:mod:`._read`) and
  stores an entry only for a render that says it is *sure* of that (see
  :mod:`._schema`; an odd schema is rendered every time instead).

  A first render only notes that its text was sure, so the parameters may
  be fingerprinted (a value nobody has counted yet must not be written
  out: sharing can make it exponentially long); the next render of the same object renders once more
  between two equal fingerprints and stores the text, so a thread writing
  to the schema meanwhile cannot pair a text with other content. From then
  on a hit costs the fingerprint alone. (The fingerprint of a known object
  is taken without counting it again: an owner who rewrites its schema into
  an exponentially shared structure between two renders pays for writing
  it out, as with any JSON encoder.)

  The last tool set is kept as well (:data:`_Catalog`): once every member
  of a set came with a proof (the fingerprint it was confirmed by), the
  same tools in the same order, each still writing its fingerprint, get
  the whole text back without a member lookup, sort or join. A warm render
  costs reading each tool and one fingerprint per tool (and, for a typed
  tool, rendering its output schema, unless the caller vouches for it).

A caller that knows its schemas never change (the registry's deep-frozen
snapshots) says so by calling :func:`render_frozen_tools_sdk`: a hit is
then the identity alone, a sure first render is stored at once (an output
schema's text too), and the last set is answered for the same tools alone.
That caller vouches for it; nothing here inspects a foreign type to decide it.

The function is still pure from the caller's view: the memo changes only how
fast the answer comes, never the answer.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Final, Protocol, Union, cast

import orjson

from ._read import view
from ._schema import clear_memos, render
from ._text import exact_str, jsdoc, member_key

__all__ = ["CACHE_SIZE", "SDK_USAGE", "ToolSchemaLike", "render_frozen_tools_sdk", "render_tools_sdk"]

SDK_USAGE: Final = (
    "Call tools by writing a TypeScript program and passing it as the `code` "
    "argument of `run_code`. The program is the body of an async function, so "
    "`await` works at the top level and `return` ends it with a value. Call a "
    "tool with `await tools.name({ ... })`, passing one object of arguments "
    "(`{}` when there are none); a tool whose name is not an identifier is "
    'called as `await tools["my-tool"]({ ... })`. Each call returns a '
    "Promise of the type declared for it: a tool that returns data resolves "
    "to that value (compute with it directly), a Promise<string> to the "
    "tool's text output. A denied or "
    "failed call rejects, so wrap calls in try/catch when you want to handle "
    "that. Only what you `console.log` or `return` comes back to you; nothing "
    "else the program computes or receives reaches you. Calls start in the "
    "order made. Independent calls to tools that only read overlap when you "
    "await them together (`await Promise.all([...])`); a call that changes "
    "something runs alone, after the calls made before it and before the "
    "calls made after it. The available tools:"
)
"""The fixed usage instructions that open the SDK text (one paragraph)."""

CACHE_SIZE: Final = 8192
"""Entries (identity and content keys) the per-tool memo is sure to keep:
the most recently used ones (it may hold up to twice as many)."""
MAX_TOOLS: Final = 100_000
"""Tools read from the input iterable; the rest are ignored."""


class ToolSchemaLike(Protocol):
    """What :func:`render_tools_sdk` reads from a tool: ``ToolSchema`` fits.

    Read-only properties, so frozen records and dataclasses conform. A
    ``Mapping`` with the keys ``name``, ``description`` and ``parameters`` is
    accepted too.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str | None: ...

    @property
    def parameters(self) -> object: ...


# A tool may also carry ``output_schema`` (attribute or mapping key): its
# value's JSON Schema, rendered as the member's return type (read when present).

ToolInput = Union[ToolSchemaLike, Mapping[str, object]]


def render_tools_sdk(schemas: Iterable[ToolInput]) -> str:
    """The Code Mode SDK section: usage paragraph + one fenced ``ts`` block.

    The block is ``declare const tools: { ... };`` with one member per tool,
    ``name(args: <type>): Promise<string>;`` (a quoted key for a name that is
    not an identifier), preceded by the tool description as one-line JSDoc.
    A typed tool (one with an ``output_schema``) returns ``Promise<<type of
    its output schema>>`` instead.
    Total: a tool whose name is not a string, or that cannot be read, is
    skipped; odd parameters degrade to ``unknown`` (see
    :func:`~dsh_tools_codegen.json_schema_to_ts`).
    """
    return _render(schemas, immutable=False)


def render_frozen_tools_sdk(schemas: Iterable[ToolInput]) -> str:
    """:func:`render_tools_sdk` for a caller that vouches no ``parameters`` it passes will ever change.

    For deep-frozen trees (the registry's snapshots): the memo trusts an
    object it rendered before by its identity instead of comparing its JSON
    text (see the module docstring). The text is the same; a schema mutated
    after all the same may be answered with its earlier text.
    """
    return _render(schemas, immutable=True)


def _render(schemas: Iterable[ToolInput], immutable: bool) -> str:
    keys: list[tuple[str, str | None, int, str]] = []  # per tool read: what its member text is a function of
    held: list[object] = []  # and its parameters
    for name, description, parameters, output in read_tools(schemas):
        returns = "string" if output is None else _returns(output, immutable)
        keys.append((name, description, id(parameters), returns))
        held.append(parameters)
    return _CACHE.catalog(keys, held, immutable)


def read_tools(tools: Iterable[ToolInput]) -> list[tuple[str, str | None, object, object]]:
    """``(name, description, parameters, output schema)`` of each readable tool, at most ``MAX_TOOLS``.

    What every renderer reads first, total: a tool that cannot be read is
    skipped (:func:`_fields`), and an iterable that fails midway gives what
    it yielded.
    """
    read: list[tuple[str, str | None, object, object]] = []
    try:
        for tool in islice(tools, MAX_TOOLS):
            fields = _fields(tool)
            if fields is not None:
                read.append(fields)
    except Exception:
        pass  # an iterable that fails midway: render what it yielded
    return read


def _returns(output: object, immutable: bool) -> str:
    """A typed tool's return type text. A vouched output schema's sure text is
    kept by identity (as its parameters' member text is), so a warm render of
    typed tools reads it back instead of rendering every output schema again;
    a plain one is rendered each time (its member memo entry is keyed by the text)."""
    if immutable:
        hit = _RETURNS.get(id(output))
        if hit is not None and hit[0] is output:
            return hit[1]
    try:
        text, sure = render(output, 1)
    except Exception:
        return "unknown"
    if immutable and sure:
        if len(_RETURNS) >= CACHE_SIZE:  # bounded like the member memo: start afresh
            _RETURNS.clear()
        _RETURNS[id(output)] = (output, text)  # holding the schema: its id is not recycled
    return text


_RETURNS: Final[dict[int, tuple[object, str]]] = {}


def _uncached(name: str, description: str | None, parameters: object, returns: str) -> str | None:
    """A tool's member text when the memo failed, or ``None`` to skip the tool:
    a failure stays with that tool (its type degrades to ``unknown``, then
    the tool is dropped) instead of ending the whole render."""
    try:
        return _member_text(name, description, render(parameters, 1)[0], returns)
    except Exception:  # the name or description itself (e.g. MemoryError in jsdoc)
        return None


def _fields(tool: object) -> tuple[str, str | None, object, object] | None:
    """``(name, description, parameters, output schema)`` of one tool (an
    attribute or mapping key each; ``output_schema`` is optional), or
    ``None`` to skip it."""
    try:
        cls = type(tool)
        mapping = cast("dict[object, object]", tool) if cls is dict else view(tool) if _is_mapping_class(cls) else None
        if mapping is not None:
            name, description = mapping.get("name"), mapping.get("description")
            parameters, output = mapping.get("parameters"), mapping.get("output_schema")
        else:
            name = getattr(tool, "name", None)
            description = getattr(tool, "description", None)
            parameters = getattr(tool, "parameters", None)
            try:
                output = getattr(tool, "output_schema", None)
            except Exception:  # an unreadable output schema: the tool returns its text
                output = None
        if type(name) is str and (description is None or type(description) is str):
            return (name, description, parameters, output)
        text = exact_str(name)
        return None if text is None else (text, exact_str(description), parameters, output)
    except Exception:
        return None


def _is_mapping_class(cls: type) -> bool:
    """``issubclass(cls, Mapping)``, memoised by class *identity*: an ABC check
    per tool is measurable, and keying by ``id`` (confirmed by ``is``) runs
    no metaclass ``__hash__``/``__eq__``. A class registered as a ``Mapping``
    after it was first seen keeps its old answer."""
    entry = _MAPPING_CLASSES.get(id(cls))
    if entry is not None and entry[0] is cls:
        return entry[1]
    if len(_MAPPING_CLASSES) >= 256:  # classes made on the fly must not pile up
        _MAPPING_CLASSES.clear()
    answer = issubclass(cls, Mapping)
    _MAPPING_CLASSES[id(cls)] = (cls, answer)
    return answer


_MAPPING_CLASSES: Final[dict[int, tuple[type, bool]]] = {}


def _member_text(name: str, description: str | None, args: str, returns: str) -> str:
    doc = jsdoc(description) if description is not None else None
    key = member_key(name, method=True)
    if doc is None:
        return f"  {key}(args: {args}): Promise<{returns}>;"
    return f"  {doc}\n  {key}(args: {args}): Promise<{returns}>;"


class _MemberCache:
    """Bounded memo of member texts, and the last tool set's text (see the
    module docstring).

    Two generations of plain dicts approximate an LRU: hits come from the
    young one (an old hit is promoted), and a young generation that reaches
    ``capacity`` entries becomes the old one, dropping the previous old; so
    the ``capacity`` most recently used entries are always kept (at most
    twice as many are held). No lock is needed: each ``dict`` operation (and
    the swap of the last tool set) is atomic, every entry is immutable and
    validated on use (``entry is parameters`` and the fingerprint), so racing
    callers can only cost each other a miss.
    """

    def __init__(self, capacity: int) -> None:
        self._generation = max(capacity, 1)
        self._young: dict[tuple[object, ...], _Entry] = {}
        self._old: dict[tuple[object, ...], _Entry] = {}
        self._last: _Catalog | None = None

    def catalog(self, keys: list[tuple[str, str | None, int, str]], held: list[object], immutable: bool) -> str:
        """The SDK text for these tools (``keys[i]`` describes ``held[i]``,
        the parameters): the last tool set's text when it is the same one,
        unchanged; else from each member's text."""
        last = self._last
        if last is not None and last[0] == keys and (immutable or _unchanged(last[1], last[2])):
            return last[3]
        members: list[tuple[str, str]] = []
        proofs: list[bytes | None] = []
        for (name, description, _, returns), parameters in zip(keys, held):
            text: str | None
            try:
                text, proof = self.member(name, description, parameters, returns, immutable)
            except Exception:
                text, proof = _uncached(name, description, parameters, returns), None
            if text is not None:
                members.append((name, text))
            proofs.append(proof)
        members.sort()  # the same tool twice is then adjacent: kept once (no hash of every member text)
        lines = [entry[1] for index, entry in enumerate(members) if index == 0 or entry != members[index - 1]]
        text = "\n".join([SDK_USAGE, "", "```ts", "declare const tools: {", *lines, "};", "```"])
        if None not in proofs:
            self._last = (keys, held, proofs, text)
        return text

    def member(
        self, name: str, description: str | None, parameters: object, returns: str = "string", immutable: bool = False
    ) -> tuple[str, bytes | None]:
        """The member text and its proof: the fingerprint it is confirmed by,
        :data:`_VOUCHED` for a sure text of vouched parameters, ``None`` if
        it is not known to be a function of their fingerprint."""
        key = (name, description, id(parameters), returns)
        hit = self._young.get(key)
        if hit is None:
            hit = self._old.get(key)
            if hit is not None:
                self._put(key, hit)  # promoted
        before = None
        if hit is not None and hit[0] is parameters:
            if immutable:  # the caller vouches the object never changes: no fingerprint to compare
                if hit[2] is not None:
                    return hit[2], _VOUCHED
            else:
                try:
                    before = orjson.dumps(parameters)  # bounded: its first render was sure
                except Exception:
                    before = None
                if before is not None and before == hit[1]:
                    return cast(str, hit[2]), before  # a fingerprint comes with its text
        args, sure = render(parameters, 1)
        text = _member_text(name, description, args, returns)
        if not sure:
            return text, None
        if immutable:
            self._put(key, (parameters, None, text))
            return text, _VOUCHED
        if before is None:  # first seen: remember that it can be fingerprinted
            self._put(key, (parameters, None, None))
            return text, None
        try:
            if orjson.dumps(parameters) == before:  # rendered between two equal fingerprints
                self._put(key, (parameters, before, text))
                return text, before
        except Exception:
            pass
        return text, None

    def _put(self, key: tuple[object, ...], entry: _Entry) -> None:
        young = self._young
        if len(young) >= self._generation:
            self._old = young
            young = self._young = {}
        young[key] = entry

    def entries(self) -> list[tuple[object, str]]:
        """Every stored ``(parameters, text)`` (for tests)."""
        return [(entry[0], entry[2] or "") for entry in (*self._old.values(), *self._young.values())]

    def clear(self) -> None:
        self._young = {}
        self._old = {}
        self._last = None


def _unchanged(held: list[object], proofs: list[bytes | None]) -> bool:
    """Whether every parameters object still writes its proof (a vouched
    proof, ``b""``, is never written: such a set is checked per tool)."""
    try:
        return all(map(operator.eq, map(orjson.dumps, held), proofs))
    except Exception:
        return False


_VOUCHED: Final = b""
"""The proof of a sure text of parameters the caller vouches never change
(no JSON text is empty, so no fingerprint equals it)."""
_Catalog = tuple[list[tuple[str, Union[str, None], int, str]], list[object], list[Union[bytes, None]], str]
"""The last tool set: what each member text is a function of (name,
description, parameters' identity, return type), the parameters (held, so
no id is recycled), each member text's proof, and the SDK text."""
_Entry = tuple[object, Union[bytes, None], Union[str, None]]
"""``(parameters, their fingerprint, member text)``: the last two ``None``
until a second render confirms them, and the fingerprint ``None`` for good
when the caller vouches for the parameters (see the module docstring)."""
_CACHE: Final = _MemberCache(CACHE_SIZE)


def _clear_cache() -> None:
    """Empty the per-tool memo and the renderer's text memos: for benchmarks
    and tests of the cold path."""
    _CACHE.clear()
    _RETURNS.clear()
    clear_memos()
