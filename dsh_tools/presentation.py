"""Tool-owned UI presentation: ``card``-tagged render intents and what they see.

A tool describes how ITS calls look (SPEC "Tool-owned UI presentation"); a UI
bridge switches on ``card`` and never special-cases tool names. Every view is
an immutable :class:`~dsh_tools.record.Record` whose ``to_json()`` is the
TypeScript harness's wire shape (``card`` first, camelCase keys, absent
optionals omitted), so a view logged by Python renders in any bridge.

Sequences of nested records (``locations``, ``diffs``) are stored as tuples
and checked by exact type at construction: a view is built by a presenter
that may be buggy, and a wrong element should fail there (where the
``define_tool`` wrapper turns it into "no card") rather than in a UI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal, TypeAlias, get_args

from dsh_tools.content import ContentBlock
from dsh_tools.json_values import JsonValue
from dsh_tools.record import Record

__all__ = [
    "DiffCallView",
    "DiffResultView",
    "FileDiff",
    "FileLocation",
    "GenericCallView",
    "GenericResultView",
    "TerminalCallView",
    "TerminalResultView",
    "ToolCallKind",
    "ToolCallView",
    "ToolResult",
    "ToolResultView",
]

ToolCallKind: TypeAlias = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
"""The icon/treatment hint of a generic call card (a UI defaults to ``other``)."""

_KINDS: Final = frozenset(get_args(ToolCallKind))


def _record_tuple(owner: str, field: str, value: object, element: type) -> object:
    """Detach a sequence of records into a tuple, refusing foreign elements."""
    if value is None:
        return None
    if type(value) is not list and type(value) is not tuple:
        raise TypeError(f"{owner}.{field} must be a list of {element.__name__}, got {type(value).__name__}")
    assert isinstance(value, (list, tuple))
    items: tuple[object, ...] = tuple(value)
    for index, item in enumerate(items):
        if type(item) is not element:
            raise TypeError(f"{owner}.{field}[{index}] must be a {element.__name__}, got {type(item).__name__}")
    return items


class _CheckedRecord(Record):
    """A record whose constructor checks field types and detaches record lists.

    ``_str_fields``/``_int_fields``/``_bool_fields`` name fields that must hold
    exactly that type (or ``None`` when the field defaults to ``None`` or is
    listed in ``_nullable_fields``); ``_record_lists`` maps a field to the
    record type its sequence holds.
    """

    _str_fields: ClassVar[frozenset[str]] = frozenset()
    _bool_fields: ClassVar[frozenset[str]] = frozenset()
    _nullable_fields: ClassVar[frozenset[str]] = frozenset()
    _int_fields: ClassVar[frozenset[str]] = frozenset()
    _record_lists: ClassVar[dict[str, type]] = {}

    if not TYPE_CHECKING:

        def __new__(cls, *args, **kwargs):
            names = cls._record_fields
            if len(args) > len(names):
                raise TypeError(f"{cls.__name__}() takes at most {len(names)} positional arguments")
            for name, value in zip(names, args):
                if name in kwargs:
                    raise TypeError(f"{cls.__name__}() got multiple values for {name!r}")
                kwargs[name] = value
            for name, element in cls._record_lists.items():
                if name in kwargs:
                    kwargs[name] = _record_tuple(cls.__name__, name, kwargs[name], element)
            self = super().__new__(cls, **kwargs)
            nullable = cls._nullable_fields | {n for n, d in cls._record_defaults.items() if d is None}
            for name in cls._str_fields | cls._int_fields | cls._bool_fields:
                value = getattr(self, name)
                if value is None and name in nullable:
                    continue
                wanted = str if name in cls._str_fields else int if name in cls._int_fields else bool
                if type(value) is not wanted:
                    raise TypeError(
                        f"{cls.__name__}.{name} must be {wanted.__name__}, got {type(value).__name__}"
                    )
            return self


class FileLocation(_CheckedRecord):
    """A file (and optionally a line) a call reads or modifies, for follow-along UIs."""

    _str_fields = frozenset({"path"})
    _int_fields = frozenset({"line"})
    path: str
    line: int | None = None


class FileDiff(_CheckedRecord):
    """One file's before/after text; ``old_text`` is ``None`` for a created file.

    ``old_text`` has no default, so ``to_json()`` always writes ``oldText``
    (``null`` for a new file), which is how a bridge tells "create" from "edit".
    """

    _str_fields = frozenset({"path", "old_text", "new_text"})
    _nullable_fields = frozenset({"old_text"})
    path: str
    old_text: str | None
    new_text: str


class _View(_CheckedRecord):
    """A render intent: its ``card`` is the class's wire tag, readable without ``to_json()``.

    Each view class declares ``card`` once (a ``Literal`` class attribute, so
    mypy narrows ``ToolCallView``/``ToolResultView`` on it); ``to_json()``
    writes the same value first.
    """

    card: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._wire_tag = ("card", cls.card)


class GenericCallView(_View):
    """The default pending card: a title, an optional kind, salient input, extra content."""

    card: ClassVar[Literal["generic"]] = "generic"
    _json_fields = frozenset({"raw_input", "content"})
    _str_fields = frozenset({"title"})
    _record_lists = {"locations": FileLocation}
    title: str
    kind: ToolCallKind | None = None
    raw_input: JsonValue | None = None
    content: Sequence[ContentBlock] | None = None
    locations: Sequence[FileLocation] | None = None

    if not TYPE_CHECKING:

        def __new__(cls, *args, **kwargs):
            self = super().__new__(cls, *args, **kwargs)
            if self.kind is not None and (type(self.kind) is not str or self.kind not in _KINDS):
                raise ValueError(f"GenericCallView.kind must be one of {sorted(_KINDS)}, got {self.kind!r}")
            return self


class TerminalCallView(_View):
    """A shell command card: ``title`` is the command, ``description`` sits above it."""

    card: ClassVar[Literal["terminal"]] = "terminal"
    _str_fields = frozenset({"title", "description", "cwd"})
    title: str
    description: str | None = None
    cwd: str | None = None


class DiffCallView(_View):
    """A pending file create/modify rendered as an inline diff."""

    card: ClassVar[Literal["diff"]] = "diff"
    _str_fields = frozenset({"title"})
    _record_lists = {"diffs": FileDiff, "locations": FileLocation}
    title: str
    diffs: Sequence[FileDiff]
    locations: Sequence[FileLocation] | None = None


class GenericResultView(_View):
    """A completed call: an optional replacement title and reformatted content."""

    card: ClassVar[Literal["generic"]] = "generic"
    _json_fields = frozenset({"content"})
    _str_fields = frozenset({"title"})
    title: str | None = None
    content: Sequence[ContentBlock] | None = None


class TerminalResultView(_View):
    """A terminal run's captured output and exit status (the bridge adds any fences)."""

    card: ClassVar[Literal["terminal"]] = "terminal"
    _str_fields = frozenset({"title", "output", "signal"})
    _int_fields = frozenset({"exit_code"})
    title: str | None = None
    output: str | None = None
    exit_code: int | None = None
    signal: str | None = None


class DiffResultView(_View):
    """A completed file mutation as an inline diff (applied hunks or a whole file)."""

    card: ClassVar[Literal["diff"]] = "diff"
    _record_lists = {"diffs": FileDiff}
    _str_fields = frozenset({"title"})
    diffs: Sequence[FileDiff]
    title: str | None = None


class ToolResult(_CheckedRecord):
    """What ``present_result`` receives: the content, the error flag and the tool's ``meta``."""

    _json_fields = frozenset({"content", "meta"})
    _bool_fields = frozenset({"is_error"})
    content: Sequence[ContentBlock]
    is_error: bool
    meta: JsonValue | None = None


ToolCallView: TypeAlias = GenericCallView | TerminalCallView | DiffCallView
"""A pending-call render intent (switch on ``card``)."""

ToolResultView: TypeAlias = GenericResultView | TerminalResultView | DiffResultView
"""A completed-call render intent (switch on ``card``)."""
