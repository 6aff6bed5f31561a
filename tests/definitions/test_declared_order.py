"""A union's members keep the order their annotation's text wrote, whatever Python's typing cache holds.

``typing`` caches ``NotRequired[...]``, ``Annotated[...]`` and friends by
``==``, and unions are equal in any order: once something in the process has
built ``NotRequired[str | float]``, writing ``NotRequired[float | str]`` hands
back that object. Schemas (and the SDKs rendered from them) must not depend
on what was imported first.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Annotated, Any, NotRequired, Optional, TypedDict, Union

import pytest

from dsh_tools import Prop, tool
from dsh_tools.definitions.declared_order import declared_of, declared_unions, in_declared_order
from dsh_tools.json_values import thaw_json


class Hit(TypedDict):
    score: float


class Window(TypedDict):
    size: NotRequired[float | str]
    pair: NotRequired[list[float | str] | None]


async def resize(window: Window, step: Annotated[float | str, Prop(description="How far.")]) -> str:
    """Resize a window."""
    return "ok"


@pytest.fixture
def polluted() -> Iterator[None]:
    """Python's typing caches holding the reversed forms, as a dependency imported first would leave them."""
    clear = typing._cleanups  # type: ignore[attr-defined]  # the caches' own reset, for a clean test
    for reset in clear:
        reset()
    reversed_forms = (NotRequired[str | float], Annotated[str | float, Prop(description="How far.")])
    assert typing.get_args(NotRequired[float | str])[0].__args__ == (str, float)  # the cache answers with its own order
    yield
    del reversed_forms
    for reset in clear:
        reset()


def _parameters() -> Any:
    """``resize``'s parameter schema, read now (a definition reads its annotations when it is made)."""
    return thaw_json(tool(resize).parameters)


def test_a_typed_dict_field_keeps_its_written_union_order_under_a_polluted_cache(polluted: None) -> None:
    properties = _parameters()["properties"]
    window = properties["window"]["properties"]
    assert window["size"] == {"anyOf": [{"type": "number"}, {"type": "string"}]}
    assert window["pair"]["items"] == {"anyOf": [{"type": "number"}, {"type": "string"}]}
    assert properties["step"] == {"anyOf": [{"type": "number"}, {"type": "string"}], "description": "How far."}


def test_without_the_written_order_the_cache_would_decide(polluted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test above can fail: read from the objects alone, the polluted order comes out."""
    from dsh_tools.definitions import typed_dict

    monkeypatch.setattr(typed_dict, "in_declared_order", lambda args, declared: tuple(args))
    properties = _parameters()["properties"]
    assert properties["window"]["properties"]["size"] == {"anyOf": [{"type": "string"}, {"type": "number"}]}


def test_the_schema_is_the_same_in_a_clean_process_and_a_polluted_one(polluted: None) -> None:
    polluted_schema = _parameters()
    for reset in typing._cleanups:  # type: ignore[attr-defined]
        reset()
    assert _parameters() == polluted_schema


NAMESPACE: dict[str, object] = {
    "Union": Union, "Optional": Optional, "Hit": Hit, "list": list, "typing": typing, "U": Union, "Maybe": Optional,
}


@pytest.mark.parametrize(
    ("text", "unions"),
    [
        ("int | str", ((int, str),)),
        ("str | int | None", ((str, int, type(None)),)),
        ("str | (int | float)", ((str, int, float),)),
        ("Union[float, int]", ((float, int),)),
        ("typing.Union[float, int]", ((float, int),)),
        ("Optional[str]", ((str, type(None)),)),
        ("'Hit' | None", ((Hit, type(None)),)),
        ("list[int | str] | None", ((list[int | str], type(None)), (int, str))),
        ("U[float, int]", ((float, int),)),  # an alias of Union: the head is evaluated, not its name read
        ("Maybe[str]", ((str, type(None)),)),
        ("int", ()),
        ("list[int]", ()),
    ],
)
def test_the_unions_a_text_writes_in_written_order(text: str, unions: tuple[tuple[object, ...], ...]) -> None:
    assert declared_unions(text, NAMESPACE) == unions


@pytest.mark.parametrize(
    "annotation",
    [
        pytest.param(int | str, id="not-text"),
        pytest.param("int |", id="syntax-error"),
        pytest.param("|".join(["int"] * 3_000), id="too-long"),
        pytest.param("Missing | int", id="unknown-member"),
        pytest.param("Union[Missing, int]", id="unknown-member-of-Union"),
        pytest.param("\x00", id="nul"),
        pytest.param("(" * 500 + "int" + ")" * 500, id="too-deep"),
    ],
)
def test_text_that_cannot_be_read_leaves_the_objects_order(annotation: object) -> None:
    assert declared_unions(annotation, NAMESPACE) == ()


def test_a_union_is_put_in_the_declared_order_only_when_it_has_the_same_members() -> None:
    declared = ((int, str), (float, bool))
    assert in_declared_order((str, int), declared) == (int, str)
    assert in_declared_order((str, float), declared) == (str, float)  # no declared union with these members
    assert in_declared_order((str, int, None), declared) == (str, int, None)
    # two unions of the same members written in both orders: each keeps its own
    both = ((int, str), (str, int))
    assert in_declared_order((str, int), both) == (str, int) and in_declared_order((int, str), both) == (int, str)


def test_a_member_whose_equality_raises_leaves_the_objects_order() -> None:
    class Hostile(type):
        def __eq__(cls, other: object) -> bool:
            raise RuntimeError("no")

        __hash__ = type.__hash__

    odd = Hostile("Odd", (), {})
    assert in_declared_order((odd, int), ((int, str),)) == (odd, int)


def test_declared_of_reads_a_field_from_the_module_that_declared_it() -> None:
    assert declared_of(Window, "size") == ((float, str),)
    assert declared_of(resize, "step") == ((float, str),)
    assert declared_of(resize, "missing") == ()
    assert declared_of(object(), "x") == ()
