"""The Code Mode SDK prompt text (:func:`render_tools_sdk`).

The registry regenerates this text at every prompt assembly, and it sits near
the top of the system prompt, so two properties matter more than anything:

* **Determinism.** Tools are ordered by name in code-point order (ties, which
  only duplicate names produce, by their rendered text), so the same *set*
  gives byte-identical text whatever the input order — prompt prefix caches
  stay warm. Properties keep the author's order (:mod:`._schema`'s rule:
  a ``dict``'s or ``FrozenDict``'s own order, code-point order for other
  mappings such as ``PMap``).
* **Cost.** Each tool's member text is memoised in a bounded memo (keeping
  the :data:`CACHE_SIZE` most recently used entries) so an
  unchanged tool set is not rendered twice; per call only the lookups, the
  sort and the join run. Keys are chosen so a hit can never be stale:

  - *content* keys ``(name, description, canonical JSON bytes)`` (see
    :mod:`._canonical`): the member text is rendered from ``orjson.loads`` of
    those very bytes, or from the exact ``dict`` they were dumped from when
    the fast renderer accepts it (then the two trees render alike, see
    ``_render_canonical``) and the dict dumps to the same bytes again after
    rendering, so equal keys mean equal text;
  - *identity* keys ``(name, description, id(parameters))``, the fast path
    for the registry's frozen schemas, are stored only for parameters whose
    text was computed from immutable data alone: either the canonical pass
    verified them deeply immutable (only ``FrozenDict``/``tuple`` (or
    ``PMap``/``PVector``) and JSON scalars, exact types), or the fast renderer (:mod:`._fast`) rendered them
    in *frozen* mode, which bails out on any mutable container it would read
    (and runs only on a ``FrozenDict`` that ``freeze_json`` verified as a
    whole, so every key in it is an exact ``str``).
    The entry holds a strong reference to that object and a hit requires
    ``entry is parameters``, so the id cannot have been recycled and the
    object cannot have changed;
  - a value without canonical bytes is rendered directly, uncached.

A cold verified ``FrozenDict`` (the registry's parameters) is rendered
straight away in frozen mode and cached by identity only: the canonical pass
would cost as much as the rendering. Everything else goes through the
canonical bytes and the fast renderer, the defensive one taking over on a
bail-out — the same text either way (see :mod:`._fast`).

The function is still pure from the caller's view: the cache changes only
how fast the answer comes, never the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Final, Protocol, Union, cast

import orjson

from ._canonical import canonical_json, dumps_to, frozen_dict_type
from ._fast import Fallback, clear_memos, fast_render
from ._schema import _view, json_schema_to_ts, render_schema, render_tree
from ._text import exact_str, jsdoc, member_key

__all__ = ["CACHE_SIZE", "SDK_USAGE", "ToolSchemaLike", "render_tools_sdk"]

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
    :func:`json_schema_to_ts`).
    """
    members: list[tuple[str, str]] = []
    try:
        for tool in islice(schemas, MAX_TOOLS):
            fields = _fields(tool)
            if fields is not None:
                text = _member(*fields[:3], _returns(tool))
                if text is not None:
                    members.append((fields[0], text))
    except Exception:
        pass  # an iterable that fails midway: render what it yielded
    members.sort()
    lines = [SDK_USAGE, "", "```ts", "declare const tools: {"]
    previous = None
    for member in members:
        if member != previous:
            lines.append(member[1])
        previous = member
    lines += ["};", "```"]
    return "\n".join(lines)


def _member(name: str, description: str | None, parameters: object, returns: str) -> str | None:
    """One tool's member text, or ``None`` to skip the tool: a failure stays
    with that tool (its type degrades to ``unknown``, then the tool is
    dropped) instead of ending the whole render."""
    try:
        return _CACHE.member(name, description, parameters, returns)
    except Exception:
        pass
    try:
        return _member_text(name, description, render_schema(parameters, 1), returns)
    except Exception:  # the name or description itself (e.g. MemoryError in jsdoc)
        return None


def _returns(tool: object) -> str:
    """The resolved type of a tool's Promise: its output schema's type, else ``string``."""
    try:
        if type(tool) is dict or _is_mapping_class(type(tool)):
            view = _view(tool)
            output = None if view is None else view.get("output_schema")
        else:
            output = getattr(tool, "output_schema", None)
    except Exception:
        return "string"
    return "string" if output is None else json_schema_to_ts(output, 1)


def _fields(tool: object) -> tuple[str, str | None, object] | None:
    """``(name, description, parameters)`` of one tool, or ``None`` to skip it."""
    try:
        cls = type(tool)
        if cls is dict:
            view: Mapping[object, object] | None = cast("dict[object, object]", tool)
        elif _is_mapping_class(cls):
            view = _view(tool)
        else:
            view = None
        if view is not None:
            name, description, parameters = view.get("name"), view.get("description"), view.get("parameters")
        else:
            name = getattr(tool, "name", None)
            description = getattr(tool, "description", None)
            parameters = getattr(tool, "parameters", None)
        text = exact_str(name)
        return None if text is None else (text, exact_str(description), parameters)
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
    member = f"  {member_key(name, method=True)}(args: {args}): Promise<{returns}>;"
    return member if doc is None else f"  {doc}\n{member}"


def _render_canonical(parameters: object, data: bytes) -> tuple[str, bool]:
    """``(type text, read live?)`` for parameters whose canonical JSON is ``data``.

    An exact ``dict`` or ``FrozenDict`` is rendered as it is (*live*): where
    the fast renderer accepts it (exact builtin types, no NaN or infinity
    where it decides a rule), ``orjson.loads(data)`` is the same tree, so the
    text is the same, without paying for the copy. Anything else, or a
    bail-out, renders the loaded copy.
    """
    cls = type(parameters)
    if cls is dict or cls is frozen_dict_type():
        try:
            return fast_render(parameters, 1, frozen=False), True
        except Fallback:
            pass
    return render_tree(orjson.loads(data), 1), False


class _MemberCache:
    """Bounded memo of member texts (see the module docstring).

    Two generations of plain dicts approximate an LRU: hits come from the
    young one (an old hit is promoted), and a young generation that reaches
    ``capacity`` entries becomes the old one, dropping the previous old; so
    the ``capacity`` most recently used entries are always kept (at most
    twice as many are held). No lock is needed: each ``dict`` operation is
    atomic, every entry is immutable, and identity entries are validated on
    use (``entry is parameters``), so racing callers can only cost each other
    a miss.
    """

    def __init__(self, capacity: int) -> None:
        self._generation = max(capacity, 1)
        self._young: dict[tuple[object, ...], tuple[object, str]] = {}
        self._old: dict[tuple[object, ...], tuple[object, str]] = {}

    def member(self, name: str, description: str | None, parameters: object, returns: str = "string") -> str:
        cls = type(parameters)
        identity_key: tuple[object, ...] = (_IDENTITY, name, description, id(parameters), returns)
        if cls is not dict:  # a dict is never deeply frozen: no identity entry
            hit = self._get(identity_key)
            if hit is not None and hit[0] is parameters:
                return hit[1]
        if cls is frozen_dict_type() and getattr(parameters, "_json", False) is True:
            try:
                text = _member_text(name, description, fast_render(parameters, 1, frozen=True), returns)
            except Fallback:
                pass
            else:
                self._put(identity_key, (parameters, text))
                return text
        canonical = canonical_json(parameters)
        if canonical is None:
            return _member_text(name, description, render_schema(parameters, 1), returns)  # uncacheable
        data, frozen = canonical
        content_key: tuple[object, ...] = (_CONTENT, name, description, data, returns)
        hit = self._get(content_key)
        if hit is None:
            args, live = _render_canonical(parameters, data)
            text = _member_text(name, description, args, returns)
            if not live or dumps_to(parameters, data):
                # read live, the text is stored only if the dict still has the
                # content it had before (another thread may be writing to it)
                self._put(content_key, (None, text))
        else:
            text = hit[1]
        if frozen:
            self._put(identity_key, (parameters, text))
        return text

    def _get(self, key: tuple[object, ...]) -> tuple[object, str] | None:
        hit = self._young.get(key)
        if hit is None:
            hit = self._old.get(key)
            if hit is not None:
                self._put(key, hit)
        return hit

    def _put(self, key: tuple[object, ...], value: tuple[object, str]) -> None:
        young = self._young
        if len(young) >= self._generation:
            self._old = young
            young = self._young = {}
        young[key] = value

    def entries(self) -> list[tuple[object, str]]:
        """Every stored ``(pinned parameters or None, text)`` (for tests)."""
        return [*self._old.values(), *self._young.values()]

    def clear(self) -> None:
        self._young = {}
        self._old = {}


_IDENTITY: Final = 0
_CONTENT: Final = 1
_CACHE: Final = _MemberCache(CACHE_SIZE)


def _clear_cache() -> None:
    """Empty the per-tool memo and the renderer's text memos: for benchmarks
    and tests of the cold path."""
    _CACHE.clear()
    clear_memos()
