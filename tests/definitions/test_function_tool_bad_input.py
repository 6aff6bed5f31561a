"""``@tool`` refuses, at decoration time and by name, every function it cannot faithfully expose."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict

import pytest

from dsh_tools import Prop, ToolExecution, tool


async def _plain(a: int) -> str:
    """Plain."""
    return str(a)


class _Callable:
    async def __call__(self, a: int) -> str:
        return str(a)


class _Owner:
    async def method(self, a: int) -> str:
        """A method."""
        return str(a)

    @staticmethod
    async def static(a: int) -> str:
        """A static method."""
        return str(a)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (lambda a: str(a), "lambda"),
        (_Owner().method, "method"),
        (_Owner.__dict__["static"], "method"),
        (_Callable(), "def or async def, got _Callable"),
        (functools.partial(_plain, 1), "def or async def, got partial"),
        (len, "def or async def"),
    ],
    ids=["lambda", "bound-method", "staticmethod-object", "callable-object", "partial", "builtin"],
)
def test_only_plain_functions_are_tools(target: Any, message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        tool(target)


def test_a_function_defined_in_a_class_body_is_a_method() -> None:
    with pytest.raises(TypeError, match=r"defined in class .*_Owner.*method"):
        tool(_Owner.method)
    with pytest.raises(TypeError, match="method"):

        class Inline:
            @tool
            async def act(self, a: int) -> str:
                """Act."""
                return str(a)


def test_generators_are_refused() -> None:
    def numbers(n: int) -> Iterator[int]:
        """Numbers."""
        yield n

    with pytest.raises(TypeError, match="generator"):
        tool(numbers)


def test_star_args_and_star_kwargs_are_refused_by_name() -> None:
    async def star(*items: int) -> str:
        """Star."""
        return ""

    async def double_star(a: int, **options: str) -> str:
        """Double star."""
        return ""

    with pytest.raises(TypeError, match=re.escape('parameter "*items"')):
        tool(star)
    with pytest.raises(TypeError, match=re.escape('parameter "**options"')):
        tool(double_star)


def test_a_missing_annotation_names_the_parameter() -> None:
    async def bare(a: int, b) -> str:  # type: ignore[no-untyped-def]
        """Bare."""
        return ""

    with pytest.raises(TypeError, match=re.escape('parameter "b" has no annotation')):
        tool(bare)


def test_a_missing_return_annotation_is_refused() -> None:
    async def silent(a: int):  # type: ignore[no-untyped-def]
        """Silent."""
        return ""

    with pytest.raises(TypeError, match="return annotation is missing"):
        tool(silent)


def test_exec_must_be_a_tool_execution_passed_by_name_without_a_default() -> None:
    async def wrong_type(a: int, *, exec: str) -> str:
        """Wrong."""
        return ""

    async def positional(exec: ToolExecution, /) -> str:
        """Positional."""
        return ""

    async def defaulted(*, exec: ToolExecution | None = None) -> str:
        """Defaulted."""
        return ""

    async def misnamed(a: int, execution: ToolExecution) -> str:
        """Misnamed."""
        return ""

    with pytest.raises(TypeError, match=r'parameter "exec" .*must be annotated ToolExecution, got <class .str.>'):
        tool(wrong_type)
    with pytest.raises(TypeError, match="positional-only"):
        tool(positional)
    with pytest.raises(TypeError, match='parameter "exec"'):
        tool(defaulted)
    with pytest.raises(TypeError, match=re.escape('parameter "execution" is annotated ToolExecution; name it "exec"')):
        tool(misnamed)


class _Inner(TypedDict):
    port: set[int]


@pytest.mark.parametrize(
    ("annotation", "where"),
    [
        (Any, '"value"'),
        (object, '"value"'),
        (bytes, '"value"'),
        (set[str], '"value"'),
        (tuple[int, int], '"value"'),
        (dict[int, str], '"value"'),
        (Literal[1.5], '"value"'),
        (list, '"value"'),
        (int | set[str], '"value"'),
        (_Inner, '"value.port"'),
        (list[_Inner], '"value[].port"'),
    ],
)
def test_an_unsupported_annotation_names_the_parameter(annotation: object, where: str) -> None:
    async def body(value: int) -> str:
        """Body."""
        return ""

    body.__annotations__ = {"value": annotation, "return": str}
    with pytest.raises(TypeError, match=re.escape(f"@tool body: parameter {where}")):
        tool(body)


def test_required_markers_and_prop_defaults_belong_to_the_signature() -> None:
    async def marked(value: Required[int]) -> str:  # type: ignore[valid-type]
        """Marked."""
        return ""

    async def not_required(value: NotRequired[int]) -> str:  # type: ignore[valid-type]
        """Not required."""
        return ""

    async def prop_default(value: Annotated[int, Prop(default=3)]) -> str:
        """Prop default."""
        return ""

    async def prop_required(value: Annotated[int, Prop(required=True)] = 1) -> str:
        """Prop required."""
        return ""

    for function in (marked, not_required):
        with pytest.raises(TypeError, match="give the parameter a default"):
            tool(function)
    for function in (prop_default, prop_required):
        with pytest.raises(TypeError, match="come from the signature"):
            tool(function)


def test_a_default_must_match_its_annotation() -> None:
    async def wrong(count: int = "three") -> str:  # type: ignore[assignment]
        """Wrong."""
        return ""

    async def not_json(count: int = object()) -> str:  # type: ignore[assignment]
        """Not JSON."""
        return ""

    with pytest.raises(TypeError, match=re.escape('parameter "count": the default \'three\' does not match')):
        tool(wrong)
    with pytest.raises(TypeError, match=re.escape("got non-JSON object")):
        tool(not_json)


@pytest.mark.parametrize(
    "doc",
    [
        "Scale.\n\nArgs:\n    value: The value.\n    factor: Not a parameter.\n    other: Neither.\n",
        "Scale.\n\n:param value: The value.\n:param factor: Not a parameter.\n:param other: Neither.\n",
    ],
    ids=["google", "rest"],
)
def test_a_docstring_documenting_missing_parameters_is_refused(doc: str) -> None:
    async def scale(value: int) -> str:
        return ""

    scale.__doc__ = doc
    with pytest.raises(ValueError, match=re.escape('documents "factor", "other", which the signature does not have')):
        tool(scale)


def test_no_docstring_and_no_description_is_refused() -> None:
    async def mute(a: int) -> str:
        return ""

    with pytest.raises(ValueError, match="no description"):
        tool(mute)
    assert tool(description="Say nothing.")(mute).description == "Say nothing."


def test_name_and_timeout_are_checked_as_define_tool_checks_them() -> None:
    with pytest.raises(ValueError, match="tool name"):
        tool(name="")(_plain)
    with pytest.raises(ValueError, match="timeout_ms"):
        tool(timeout_ms=-1)(_plain)


def test_unresolvable_annotations_are_a_type_error() -> None:
    async def forward(a: "NoSuchType") -> str:  # type: ignore[name-defined]  # noqa: F821
        """Forward."""
        return ""

    with pytest.raises(TypeError, match="cannot resolve the annotations"):
        tool(forward)


@pytest.mark.parametrize(("attribute", "value"), [("__signature__", "hostile"), ("__wrapped__", 5)])
def test_an_unreadable_signature_is_a_type_error_naming_the_function(attribute: str, value: object) -> None:
    async def masked(a: int) -> str:
        """Masked."""
        return str(a)

    setattr(masked, attribute, value)
    with pytest.raises(TypeError, match="^@tool masked: cannot read the signature: "):
        tool(masked)


@pytest.mark.parametrize("loop", ["self", "pair"])
def test_a_wrapped_chain_that_loops_is_a_type_error_naming_the_function(loop: str) -> None:
    # issue 24 #16: typing.get_type_hints follows __wrapped__ without a cycle check and spun for ever.
    async def looped(a: int) -> str:
        """Looped."""
        return str(a)

    async def partner(a: int) -> str:
        """Partner."""
        return str(a)

    if loop == "self":
        looped.__wrapped__ = looped  # type: ignore[attr-defined]
    else:
        looped.__wrapped__ = partner  # type: ignore[attr-defined]
        partner.__wrapped__ = looped  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="^@tool looped: .*__wrapped__ chain loops"):
        tool(looped)
