"""``Record``: the immutable value base every dsh-tools record builds on.

A record is a pyrsistent ``PClass`` (so it has ``set()``, ``evolver()``,
structural ``==``/``hash`` and refuses attribute assignment with
``AttributeError``) declared the way a dataclass is::

    class Deny(Record):
        _wire_tag = ("kind", "deny")
        reason: str

``dataclass_transform`` teaches mypy the constructor (positional or keyword, in
field order), so user code constructing records is type-checked under
``--strict`` with pyrsistent's own stubs alone.

Two per-class knobs keep the records themselves free of boilerplate:

* ``_json_fields``: fields holding JSON payloads. They are detached and
  deep-frozen at construction (``TypeError`` naming the field and the path when
  the value is not JSON), which is what makes "mutating a record's payload is
  impossible" true rather than a convention.
  (``_carrying`` lets internal code hand over fields it already holds as
  verified frozen values, so they are not walked a second time.)
* ``_wire_tag``: the discriminator ``to_json()`` writes first (``("card",
  "diff")``, ``("kind", "deny")``).
* ``_record_finish``: a static method completing every record the class's
  constructor and ``set`` make (a result's ``outcome`` is derived there).

``to_json()`` produces the TypeScript harness's wire shape: camelCase keys,
nested records rendered recursively, frozen payloads thawed, and optional fields
(those with a ``None`` default) omitted while ``None``.
"""

from __future__ import annotations

import linecache
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeVar, cast, dataclass_transform

from pyrsistent import PClass, field

from dsh_tools.json_values import frozen_or_failure, thaw_json
from dsh_tools.json_walk import NotJson

__all__ = ["Record", "camel_case"]

_MISSING: Final = object()
_R = TypeVar("_R", bound="Record")


def camel_case(name: str) -> str:
    """``additional_context`` → ``additionalContext`` (the wire spelling)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _frozen_field(cls: type, name: str, value: object) -> object:
    frozen = frozen_or_failure(value)  # no closure for the error per field: most values are JSON
    if type(frozen) is NotJson:
        raise TypeError(f"{cls.__name__}.{name} must be JSON: {frozen.why}")
    return frozen


_GENERIC_NEW: Callable[..., Any] | None = None
"""``Record.__new__`` itself (set below, once the class exists)."""
_GENERIC_SET: Callable[..., Any] | None = None
"""``Record.set`` itself (set below, once the class exists)."""
_generated_count = 0


def _generated_new(cls: type[Record]) -> Callable[..., Any]:
    """A constructor written for ``cls``'s fields: straight-line code, as attrs generates its ``__init__``.

    PClass.__new__ re-validates pyrsistent field specs on every call; ours are
    plain, so the record's slots are filled directly: every field a parameter
    (positional or keyword, in field order), a required one checked for
    presence, a JSON one frozen when given (a default is the class's own value,
    not re-frozen). A loop over a per-class plan did the same at about twice
    the cost, and every tool call builds several records. The source is kept
    in ``linecache``, so a traceback through it shows the line that raised.
    """
    fields = cls._record_plan
    names = [name for name, _, _ in fields]  # never "_"-prefixed (such annotations are no fields): no clash below
    params = ", ".join(f"{name}=_M" for name in names)
    # ``_carried``: JSON fields taken as they are, for Record._carrying only (values frozen by construction).
    lines = [f"def __new__(_cls, {params}{', ' if params else ''}*, _carried=(), **_extra):"]
    # A subclass that reaches this constructor through its own __new__ (super().__new__) is built by its
    # own generated one, its own fields (in **_extra) included.
    forwarded = "".join(f"{n}={n}, " for n in names)
    lines.append("    if _cls is not _owner:")
    lines.append(f"        return _cls._record_new(_cls, {forwarded}_carried=_carried, **_extra)")
    lines.append("    if _extra:")
    lines.append("        _unknown(_cls, _extra)")
    lines.append("    _self = _object_new(_cls)")
    namespace: dict[str, Any] = {
        "_M": _MISSING, "_object_new": object.__new__, "_frozen": _frozen_field,
        "_unknown": _unknown_fields, "_missing": _missing_field, "_owner": cls,
    }
    for name, default, is_json in fields:
        if default is _MISSING:
            lines.append(f"    if {name} is _M: _missing(_cls, {name!r})")
        else:
            namespace[f"_d_{name}"] = default
            lines.append(f"    if {name} is _M: {name} = _d_{name}")
        if is_json:
            lines.append(f"    elif {name} is not None and {name!r} not in _carried: {name} = _frozen(_cls, {name!r}, {name})")
        lines.append(_store(cls, name, "_self", name, namespace))
    lines.append(_store(cls, "_pclass_frozen", "_self", "True", namespace))
    lines.append(_returned(cls, "_self", namespace))
    return _compiled(cls, "__new__", lines, namespace)


def _compiled(cls: type, name: str, lines: list[str], namespace: dict[str, Any]) -> Callable[..., Any]:
    """The function ``name`` the generated ``lines`` define, its source kept in ``linecache`` for tracebacks."""
    global _generated_count
    _generated_count += 1
    source = "\n".join(lines) + "\n"
    filename = f"<dsh_tools.record generated {name} of {cls.__qualname__} #{_generated_count}>"
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own code, from field names
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    made = namespace[name]
    made._dsh_generated = True
    made.__qualname__ = f"{cls.__qualname__}.{name}"
    return cast(Callable[..., Any], made)


def _returned(cls: type, made: str, namespace: dict[str, Any]) -> str:
    """The generated ``return``: the record as made, or as the class's ``_record_finish`` completes it.

    ``_record_finish(record) -> record`` is a class's rule for a derived field
    (a result's ``outcome``), run on every record its constructor and ``set``
    make, so the class needs no hand-written ``__new__`` or ``set`` for it.
    """
    finish = getattr(cls, "_record_finish", None)
    if finish is None:
        return f"    return {made}"
    namespace["_finish"] = finish
    return f"    return _finish({made})"


def _store(cls: type, name: str, target: str, value: str, namespace: dict[str, Any]) -> str:
    """The generated statement that stores ``value`` in field ``name`` of ``target`` (a ``cls`` instance).

    Through the slot's own descriptor (its ``__set__``) where the field is a
    slot, as every record's is: about half the cost of ``object.__setattr__``,
    which looks the name up again on every store. Anything else goes through
    ``object.__setattr__``.
    """
    descriptor = getattr(cls, name, None)
    if type(descriptor).__name__ == "member_descriptor":
        namespace[f"_s_{name}"] = descriptor.__set__  # type: ignore[union-attr]
        return f"    _s_{name}({target}, {value})"
    namespace["_set_attr"] = object.__setattr__
    return f"    _set_attr({target}, {name!r}, {value})"


def _check_field_names(cls: type[Record], names: Iterable[str], positional: int) -> None:
    """Refuse a keyword that names no field, or one the first ``positional`` arguments already gave."""
    for name in names:
        position = cls._record_position.get(name)
        if position is None:
            raise TypeError(f"{cls.__name__}() got an unexpected field {name!r}")
        if position < positional:
            raise TypeError(f"{cls.__name__}() got multiple values for {name!r}")


def _generated_set(cls: type[Record]) -> Callable[..., Any]:
    """``set`` written for ``cls``'s fields, as :func:`_generated_new` writes its constructor.

    Every field not replaced is copied as it is (already frozen); a replaced
    JSON field is frozen. The generic loop it replaces cost about twice as
    much, and a call copies records (its execution handed a signal, a
    settled call's result) on its way through the pipeline.
    """
    lines = [
        "def set(self, *_args, **_changes):",
        "    if _args:",  # pyrsistent's set(name, value)
        "        _changes[_args[0]] = _args[1]",
        "    _cls = type(self)",
        "    if _cls is not _owner:",  # a subclass's own set reached this one through super().set
        "        return _cls._record_set(self, **_changes)",
        "    _made = _object_new(_cls)",
    ]
    namespace: dict[str, Any] = {
        "_M": _MISSING, "_object_new": object.__new__, "_frozen": _frozen_field, "_check": _check_field_names, "_owner": cls,
    }
    for name, _default, is_json in cls._record_plan:
        lines.append(f"    _v = _changes.pop({name!r}, _M)")
        lines.append(f"    if _v is _M: _v = self.{name}")
        if is_json:
            lines.append(f"    elif _v is not None: _v = _frozen(_cls, {name!r}, _v)")
        lines.append(_store(cls, name, "_made", "_v", namespace))
    lines.append("    if _changes:")
    lines.append("        _check(_cls, _changes, 0)")
    lines.append(_store(cls, "_pclass_frozen", "_made", "True", namespace))
    lines.append(_returned(cls, "_made", namespace))
    return _compiled(cls, "set", lines, namespace)


def _unknown_fields(cls: type[Record], extra: dict[str, object]) -> None:
    """pyrsistent's own keywords are accepted and ignored; any other name is no field: ``TypeError``.

    A keyword naming a field that was also given by position never arrives
    here: Python refuses it first ("got multiple values").
    """
    for name in extra:
        if name not in ("_factory_fields", "ignore_extra"):
            raise TypeError(f"{cls.__name__}() got an unexpected field {name!r}")


def _missing_field(cls: type[Record], name: str) -> None:
    raise TypeError(f"{cls.__name__}() missing required field {name!r}")


if TYPE_CHECKING:
    _RecordMeta = type
else:

    class _RecordMeta(type(PClass)):
        """Turn annotations into pyrsistent ``field()`` declarations, then let ``PClass``'s own metaclass run.

        The metaclass is reached through the public ``PClass`` (``type(PClass)``),
        not imported from pyrsistent's private module: what it is handed is the
        documented way to declare a ``PClass``: ``field()`` declarations.
        """

        def __new__(mcs, name, bases, namespace):
            annotations = namespace.get("__annotations__", {})
            own: list[str] = []
            defaults: dict[str, object] = {}
            for field_name, annotation in annotations.items():
                if field_name.startswith("_") or "ClassVar" in str(annotation):
                    continue
                default = namespace.pop(field_name, _MISSING)
                if default is not _MISSING:
                    defaults[field_name] = default
                namespace[field_name] = field()
                own.append(field_name)
            cls = super().__new__(mcs, name, bases, namespace)
            inherited = [n for base in bases for n in getattr(base, "_record_fields", ())]
            cls._record_fields = tuple(dict.fromkeys([*inherited, *own]))
            cls._record_defaults = {
                **{k: v for base in bases for k, v in getattr(base, "_record_defaults", {}).items()},
                **defaults,
            }
            cls._record_wire = tuple((n, camel_case(n)) for n in cls._record_fields if n not in cls._wire_skip)
            cls._record_plan = tuple(
                (n, cls._record_defaults.get(n, _MISSING), n in cls._json_fields) for n in cls._record_fields
            )
            cls._record_position = {n: index for index, n in enumerate(cls._record_fields)}
            cls._record_new = _generated_new(cls)
            cls._record_set = _generated_set(cls)
            inherited_set = getattr(cls.set, "_dsh_generated", False) or cls.set is _GENERIC_SET
            if "set" not in namespace and inherited_set and _GENERIC_SET is not None:
                cls.set = cls._record_set  # no hand-written set on the way: the generated one is it
            inherited_new = getattr(cls.__new__, "_dsh_generated", False) or cls.__new__ is _GENERIC_NEW
            if "__new__" not in namespace and inherited_new and _GENERIC_NEW is not None:
                cls.__new__ = cls._record_new  # no hand-written __new__ on the way: the generated one is it
            return cls


@dataclass_transform(frozen_default=True, eq_default=False)
class Record(PClass, metaclass=_RecordMeta):
    """Base of every immutable record; see the module docstring."""

    _json_fields: ClassVar[frozenset[str]] = frozenset()
    _wire_tag: ClassVar[tuple[str, str] | None] = None
    _wire_skip: ClassVar[frozenset[str]] = frozenset()
    _record_fields: ClassVar[tuple[str, ...]] = ()
    _record_defaults: ClassVar[dict[str, object]] = {}
    _record_wire: ClassVar[tuple[tuple[str, str], ...]] = ()
    _record_plan: ClassVar[tuple[tuple[str, object, bool], ...]] = ()
    _record_position: ClassVar[dict[str, int]] = {}
    _record_new: ClassVar[Callable[..., Any]]
    _record_set: ClassVar[Callable[..., Any]]

    @classmethod
    def _carrying(cls: type[_R], carried: Mapping[str, object], /, *args: object, **kwargs: object) -> _R:
        """``cls(*args, **kwargs, **carried)``, the ``carried`` JSON fields taken as they are (internal):
        only for values held frozen by construction (another record's JSON field, a freeze's result)."""
        names = carried.keys()
        if not names <= cls._json_fields:
            raise TypeError(f"{cls.__name__}: only JSON fields are carried, not {sorted(names - cls._json_fields)}")
        if cls.__new__ is cls._record_new:  # no hand-written constructor on the way: call the generated one
            return cast(_R, cls._record_new(cls, *args, **kwargs, **carried, _carried=names))
        made: _R = cast(Any, cls)(*args, **kwargs, **carried, _carried=names)
        return made

    if not TYPE_CHECKING:

        def __new__(cls, *args: object, **kwargs: object):
            # A class with a hand-written __new__ reaches here through super().__new__: its generated
            # constructor (_generated_new) does the work.
            return cls._record_new(cls, *args, **kwargs)

        def set(self, *args: object, **kwargs: object):
            """A copy with some fields replaced (``r.set(x=1)`` or ``r.set("x", 1)``), as pyrsistent's.

            The fields kept are copied as they are (already frozen); only the
            replaced JSON fields are frozen. pyrsistent's own ``set`` rebuilds
            the whole record through ``__new__`` instead. Each class's is
            generated (:func:`_generated_set`); a hand-written ``set`` that
            calls ``super().set`` reaches its class's through here.
            """
            return type(self)._record_set(self, *args, **kwargs)

    def to_json(self) -> dict[str, Any]:
        """The wire shape: camelCase keys, absent optionals omitted, payloads thawed."""
        out: dict[str, Any] = {}
        if self._wire_tag is not None:
            out[self._wire_tag[0]] = self._wire_tag[1]
        defaults = self._record_defaults
        for name, wire in self._record_wire:
            value = getattr(self, name)
            if value is None and name in defaults and defaults[name] is None:
                continue
            out[wire] = wire_value(value)
        return out


_GENERIC_NEW = Record.__new__
_GENERIC_SET = Record.set


def wire_value(value: object) -> Any:
    """Render one field value for ``to_json`` (records nest, frozen data thaws)."""
    if isinstance(value, Record):
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [wire_value(item) for item in value]
    if isinstance(value, Mapping):
        return thaw_json(value)  # a frozen payload: plain dict, keys in their order
    return value
