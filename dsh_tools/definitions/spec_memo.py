"""``validate_args(spec, value)``: validation against a ``SchemaSpec`` compiled once per spec object.

Compiling a spec costs far more than validating with it, and callers that
validate in a loop pass the same spec each time. So compiled validators are
memoised here by the spec object's identity, with enough of a snapshot to
notice a ``dict`` spec edited in place (see :func:`spec_validator`).
"""

from __future__ import annotations

from typing import Final

from dsh_tools.definitions.fast_path import Validator
from dsh_tools.definitions.validation import compile_spec
from dsh_tools.frozen_dict import FrozenDict
from dsh_tools.json_walk import PMAP_TYPE

__all__ = ["SPEC_MEMO_SIZE", "spec_validator", "validate_args"]

SPEC_MEMO_SIZE: Final = 256
"""How many specs :func:`validate_args` keeps compiled (the oldest is dropped first)."""

_SpecEntry = tuple[object, "dict[object, object] | None", Validator]
_spec_memo: dict[int, _SpecEntry] = {}
_IMMUTABLE_SPECS: Final[frozenset[type]] = frozenset({PMAP_TYPE, FrozenDict})
"""Spec mapping types that cannot change after construction: identity alone proves a memo hit."""


def _spec_snapshot(spec: object) -> dict[object, object] | None:
    """What a memo hit must still find in a mutable spec: a private copy of its ``name → Prop`` pairs.

    Props are immutable all the way down, so a spec equal to the copy (the
    same names, the same or equal Props: one C-level dict comparison, by
    identity first) compiles to the same validator.
    """
    return None if type(spec) in _IMMUTABLE_SPECS else dict(spec)  # type: ignore[call-overload]


def spec_validator(spec: object) -> Validator:
    """The compiled validator of ``spec``, memoised by the spec object's identity.

    Calling :func:`validate_args` again with the same spec object reuses the
    validator instead of compiling it again. A ``dict`` spec edited in place
    since (a key added, a Prop replaced) is noticed and recompiled: the memo
    keeps the spec object itself (so its id cannot be reused by another
    object while the entry lives) and a snapshot of its pairs. Only exact
    ``dict`` specs and immutable mappings are memoised; any other mapping
    type might compute its items, so it is compiled each time. Raises
    ``ValueError`` for a malformed spec (never memoised).
    """
    key = id(spec)
    entry = _spec_memo.get(key)
    if entry is not None and entry[0] is spec:
        snapshot = entry[1]
        if snapshot is None or snapshot == spec:
            return entry[2]
    validator = compile_spec(spec)
    if type(spec) is dict or type(spec) in _IMMUTABLE_SPECS:
        if len(_spec_memo) >= SPEC_MEMO_SIZE:
            _spec_memo.pop(next(iter(_spec_memo)), None)
        _spec_memo[key] = (spec, _spec_snapshot(spec), validator)
    return validator


def validate_args(spec: object, value: object) -> list[str]:
    """Every violation of ``value`` against ``spec`` as path-qualified messages (empty = valid).

    Total: never raises. A malformed ``spec`` is reported as a violation too.
    Extra keys are allowed, defaults are not applied, ``None`` is a violation
    for a non-nullable property, and a bool is not a number. The compiled
    validator is memoised by the spec object (:func:`spec_validator`), so
    calling this in a loop with one spec costs a validation, not a compile.
    """
    try:
        validator = spec_validator(spec)
    except Exception as error:  # noqa: BLE001 - total by contract
        return [f"(root): cannot validate against a malformed schema spec: {error}"]
    return validator(value)
