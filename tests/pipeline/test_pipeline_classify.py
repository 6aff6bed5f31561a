"""Classification: ``is_concurrency_safe`` and ``execution_mode``; only an exact ``True`` is parallel."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Coroutine, Mapping
from typing import Any, NotRequired, TypedDict

import pytest

from dsh_tools import (
    Agent,
    ContentBlock,
    JsonValue,
    Prop,
    ToolExecution,
    ToolExecutionInput,
    boot,
    define_tool,
)
from dsh_tools.context.context import Context
from dsh_tools.testing import ScriptedCodeRuntime


class Raw:
    """A raw definition with an optional classifier attribute."""

    description = "raw"
    parameters: dict[str, Any] = {"type": "object"}

    def __init__(self, name: str, classifier: Any = None) -> None:
        self.name = name
        if classifier is not None:
            self.is_concurrency_safe = classifier

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []


def mode(ctx: Context, name: str, arguments: Any = None, agent: Agent | None = None) -> str:
    return ctx.tools.execution_mode(ToolExecutionInput("c", name, {} if arguments is None else arguments, agent=agent))


@pytest.fixture
def ctx() -> Context:
    return boot(timeouts=False)


def test_without_a_classifier_a_tool_is_exclusive(ctx: Context) -> None:
    ctx.tools.register(Raw("plain"))
    assert mode(ctx, "plain") == "exclusive"


def test_only_an_exact_true_is_parallel(ctx: Context) -> None:
    answers: dict[str, object] = {"true": True, "one": 1, "yes": "yes", "list": [1], "false": False, "none": None}
    for label, answer in answers.items():
        ctx.tools.register(Raw(label, lambda args, answer=answer: answer))
    assert {label: mode(ctx, label) for label in answers} == {
        "true": "parallel", "one": "exclusive", "yes": "exclusive", "list": "exclusive",
        "false": "exclusive", "none": "exclusive",
    }


def test_a_classifier_that_raises_is_exclusive_and_logged(ctx: Context, caplog: pytest.LogCaptureFixture) -> None:
    def broken(args: object) -> bool:
        raise RuntimeError("cannot tell")

    ctx.tools.register(Raw("broken", broken))
    with caplog.at_level(logging.WARNING, logger="dsh_tools"):
        assert mode(ctx, "broken") == "exclusive"
    assert "is_concurrency_safe" in caplog.text and "cannot tell" in caplog.text


def test_a_classifier_raising_a_base_exception_is_exclusive(ctx: Context) -> None:
    class Odd(BaseException):
        pass

    def odd(args: object) -> bool:
        raise Odd()

    ctx.tools.register(Raw("odd", odd))
    assert mode(ctx, "odd") == "exclusive"


def test_an_async_classifier_is_exclusive_and_its_coroutine_is_closed(ctx: Context) -> None:
    made: list[Coroutine[Any, Any, bool]] = []

    async def asynchronous() -> bool:
        return True

    def classifier(args: object) -> Coroutine[Any, Any, bool]:
        made.append(asynchronous())
        return made[-1]

    ctx.tools.register(Raw("async", classifier))
    assert mode(ctx, "async") == "exclusive"
    assert inspect.getcoroutinestate(made[0]) == inspect.CORO_CLOSED, "no 'never awaited' warning later"


def test_the_classifier_receives_the_frozen_arguments(ctx: Context) -> None:
    seen: list[object] = []

    def classifier(args: object) -> bool:
        seen.append(args)
        return True

    ctx.tools.register(Raw("r", classifier))
    assert mode(ctx, "r", {"path": "a", "tags": ["x"]}) == "parallel"
    (args,) = seen
    assert isinstance(args, Mapping) and args["path"] == "a" and tuple(args["tags"]) == ("x",)
    with pytest.raises(TypeError):
        args["path"] = "b"  # type: ignore[index]


def test_unknown_tools_invalid_input_and_non_json_arguments_are_exclusive(ctx: Context) -> None:
    ctx.tools.register(Raw("safe", lambda args: True))
    assert mode(ctx, "missing") == "exclusive"
    assert mode(ctx, "safe", {"x": {1}}) == "exclusive"
    assert ctx.tools.execution_mode("not an input") == "exclusive"  # type: ignore[arg-type]
    assert ctx.tools.execution_mode(ToolExecutionInput(3, "safe", {})) == "exclusive"  # type: ignore[arg-type]


def test_run_code_is_exclusive() -> None:
    ctx = boot(mode="both", code_runtime=ScriptedCodeRuntime({}))
    assert mode(ctx, "run_code", {"code": "return 1"}) == "exclusive"


def test_the_definition_the_agent_resolves_decides(ctx: Context) -> None:
    ctx.tools.register(Raw("t", lambda args: True))
    agent = Agent(ctx, name="a")
    agent.ctx.tools.register(Raw("t"))  # the agent's own variant declares nothing
    assert mode(ctx, "t") == "parallel"
    assert mode(ctx, "t", agent=agent) == "exclusive"
    other = Agent(ctx, name="b")
    other.ctx.tools.restrict(deny=["t"])
    assert mode(ctx, "t", agent=other) == "exclusive", "a tool restricted away is unknown to that agent"


def test_a_non_callable_classifier_is_refused_at_registration(ctx: Context) -> None:
    with pytest.raises(TypeError, match="is_concurrency_safe must be callable"):
        ctx.tools.register(Raw("bad", "yes"))


class ReadArgs(TypedDict):
    path: str
    limit: NotRequired[int]


def test_define_tool_classifier_gets_validated_typed_args(ctx: Context) -> None:
    seen: list[ReadArgs] = []

    def safe(args: ReadArgs) -> bool:
        seen.append(args)
        return not args["path"].startswith("/dev/")

    async def read(args: ReadArgs, exec: ToolExecution) -> list[ContentBlock]:
        return []

    tool = define_tool(name="read", description="Read.", args=ReadArgs, execute=read, is_concurrency_safe=safe)
    ctx.tools.register(tool)
    assert mode(ctx, "read", {"path": "/etc/hosts"}) == "parallel"
    assert type(seen[0]) is dict and seen[0] == {"path": "/etc/hosts"}, "plain typed args, as the body gets them"
    assert mode(ctx, "read", {"path": "/dev/zero"}) == "exclusive"
    calls = len(seen)
    assert mode(ctx, "read", {"path": 3}) == "exclusive"
    assert mode(ctx, "read", {}) == "exclusive"
    assert len(seen) == calls, "invalid arguments never reach the classifier"
    assert tool.is_concurrency_safe({"path": "x"}) is True


def test_define_tool_with_a_spec_and_without_a_classifier(ctx: Context) -> None:
    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
        return []

    plain = define_tool(name="plain", description="d", parameters={"q": Prop("string")}, execute=body)
    assert plain.is_concurrency_safe({"q": "x"}) is False
    spec = define_tool(
        name="spec", description="d", parameters={"q": Prop("string")}, execute=body,
        is_concurrency_safe=lambda args: args.get("q") != "write",
    )
    ctx.tools.register(spec)
    assert mode(ctx, "spec", {"q": "read"}) == "parallel"
    assert mode(ctx, "spec", {"q": "write"}) == "exclusive"


def test_define_tool_refuses_a_non_callable_classifier() -> None:
    async def body(args: Mapping[str, JsonValue], exec: ToolExecution) -> list[ContentBlock]:
        return []

    with pytest.raises(TypeError, match="is_concurrency_safe"):
        define_tool(name="x", description="d", parameters={}, execute=body, is_concurrency_safe=True)  # type: ignore[call-overload]


def test_classification_is_never_on_the_wire(ctx: Context) -> None:
    ctx.tools.register(Raw("r", lambda args: True))
    (schema,) = ctx.tools.schemas()
    assert "is_concurrency_safe" not in str(schema.to_json())
    tool = ctx.tools.get("r")
    assert tool is not None and "is_concurrency_safe" not in tool.to_json()
