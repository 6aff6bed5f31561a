"""Seeded random edits of valid values, for suites that prove a fast path agrees with an exact one."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pyrsistent import pmap, pvector


class Weird:
    """A hostile value: equality raises, and its hash collides with the property name "path"."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        return hash("path")  # collides with a property name on purpose


REPLACEMENTS: list[object] = [
    None, True, False, 0, 1, -1, 2**70, 1.0, 1.5, float("nan"), float("inf"), -float("inf"), "", "text", "bytes",
    [], [1], ["a"], (), ("a",), {}, {"host": "h"}, {1: "x"}, pmap({"host": "h"}), pvector(["a"]), Weird(), b"x",
    {"count": 1}, [[1]], [{"host": 1}], {"a": 1}, {"count": True}, "\ud800", 2**64, -(2**63) - 1,
]
"""What an edit puts in place: every JSON type, near misses, and values that are not JSON."""

NEW_KEYS: tuple[object, ...] = ("new", "a", 7, "count")


def mutate(value: Any, rng: random.Random, new_keys: Sequence[object] = NEW_KEYS) -> Any:
    """One random edit somewhere inside ``value``: replace, delete or add (one of ``new_keys``) a member."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(list(value))
        copy = dict(value)
        roll = rng.random()
        if roll < 0.15:
            del copy[key]
        elif roll < 0.25:
            copy[rng.choice(list(new_keys))] = rng.choice(REPLACEMENTS)
        elif roll < 0.6:
            copy[key] = rng.choice(REPLACEMENTS)
        else:
            copy[key] = mutate(copy[key], rng, new_keys)
        return copy
    if isinstance(value, list) and value and rng.random() < 0.8:
        copy_list = list(value)
        index = rng.randrange(len(copy_list))
        copy_list[index] = mutate(copy_list[index], rng, new_keys) if rng.random() < 0.5 else rng.choice(REPLACEMENTS)
        return copy_list
    return rng.choice(REPLACEMENTS)
