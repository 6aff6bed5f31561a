"""The one writer behind the compiled checkers and freezers: its source is inspectable, its marks true.

A generated function's source is registered with :mod:`linecache` for as long
as the function lives, so a traceback through it and ``inspect.getsource``
show the code. A freezer marks each object it builds as the walks would
(the recount of ``value_shapes``), so the pipeline never walks it again.
"""

from __future__ import annotations

import gc
import inspect
import linecache
import random
import traceback
from typing import Any

from dsh_tools.definitions.output_schema import compile_value_freezer
from dsh_tools.definitions.shape_code import UNSURE, compile_fast_validator
from dsh_tools.definitions.validation import PYTHON_TYPES, Shape, compile_shape, compile_validator
from value_mutations import mutate
from value_shapes import assert_marks_true

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
                "required": ["n"],
                "additionalProperties": False,
            },
        },
        "meta": {"type": "object", "properties": {"deep": {"type": "object", "properties": {"x": {"type": "number"}}}}},
    },
    "required": ["path", "rows"],
}
VALID: dict[str, Any] = {"path": "é", "rows": [{"n": 1, "tags": ["a"]}, {"n": 2}], "meta": {"deep": {"x": 0.5}}}
SHAPE = Shape(("object",), properties=(("name", Shape(("string",))),), required=frozenset({"name"}))


def test_a_generated_function_shows_its_source() -> None:
    validator = compile_validator(SHAPE)
    source = inspect.getsource(validator)
    assert source.startswith("def validate") and "o['name']" in source and "return []" in source
    freezer = compile_value_freezer(SCHEMA)
    assert freezer is not None
    assert "def freeze_valid(o):" in inspect.getsource(freezer)


def test_a_traceback_through_a_generated_function_shows_the_generated_line() -> None:
    def slow(value: object) -> list[str]:
        raise LookupError("from the slow path")

    validator = compile_fast_validator(
        SHAPE, slow=slow, fallback=compile_shape, objects=PYTHON_TYPES["object"], arrays=PYTHON_TYPES["array"]
    )
    try:
        validator({"name": 1})  # not a str: the generated code hands the value to ``slow``
    except LookupError as error:
        frames = traceback.extract_tb(error.__traceback__)
    else:
        raise AssertionError("slow was not called")
    generated = [frame for frame in frames if frame.filename.startswith("<dsh_tools shape code")]
    assert generated and generated[-1].line == "return C0(o)"  # the source line that called ``slow``


def test_the_source_leaves_linecache_with_its_function() -> None:
    validator = compile_validator(SHAPE)
    filename = validator.__code__.co_filename
    assert filename in linecache.cache
    del validator
    gc.collect()
    assert filename not in linecache.cache


def test_a_freezer_marks_each_object_it_builds_as_the_walks_would() -> None:
    freezer = compile_value_freezer(SCHEMA)
    assert freezer is not None
    rng = random.Random(22)
    vouched = 0
    for _ in range(1500):
        value = mutate(VALID, rng)
        frozen = freezer(value)
        if frozen is not UNSURE:
            vouched += 1
            assert_marks_true(frozen)
    assert_marks_true(freezer(VALID))
    assert vouched > 50, vouched
