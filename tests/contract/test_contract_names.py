"""API.md: every public name is importable as listed, with the listed signature.

"Names below are importable from ``dsh_tools`` (the codegen names from
``dsh_tools_codegen``) unless a module is given."
"""

from __future__ import annotations

import importlib
import inspect
import logging
from typing import Any

import pytest

import dsh_tools
import dsh_tools_codegen
from dsh_tools import (
    APPROVAL,
    CODE_RUNTIME,
    KEEP,
    RUN_CODE_NAME,
    SYSTEM_PROMPT,
    TOOL_ORDER_REST,
    TOOLS,
    AbortController,
    AbortSignal,
    Agent,
    Context,
    DenoCodeRuntime,
    HarnessError,
    Prop,
    SystemPrompt,
    ToolRegistry,
    boot,
    define_tool,
)
from dsh_tools_codegen import json_schema_to_ts, render_tools_sdk

TOP_LEVEL = [
    # Host
    "Context", "Agent", "scope_of", "ScopeKey", "SessionLog", "Disposer",
    "TOOLS", "SYSTEM_PROMPT", "APPROVAL", "CODE_RUNTIME",
    "AbortController", "AbortSignal",
    # Records
    "ToolExecutionInput", "ToolExecution", "ToolExecutionToken", "ToolErrorInfo",
    "ToolExecutionResult", "HookContext", "MessageSource", "UserSource", "PluginSource",
    "ToolOutput", "ToolSchema", "ContentBlock", "text_block", "JsonValue",
    # Decisions
    "Allow", "Deny", "Ask", "Accept", "Block", "PreToolDecision", "PostToolDecision",
    # Errors
    "HarnessError", "ToolNotFoundError", "ToolArgsError", "CodeRunFailedError",
    "ToolTimeoutError", "OutputSchemaError",
    # Definitions
    "ToolDefinition", "define_tool", "Prop", "SchemaSpec", "schema_spec_to_json_schema",
    "validate_args",
    # Presentation
    "GenericCallView", "TerminalCallView", "DiffCallView", "GenericResultView",
    "TerminalResultView", "DiffResultView", "FileDiff", "FileLocation", "ToolResult",
    "ToolCallKind",
    # Structured output
    "assert_supported_output_schema", "validate_structured_value",
    # Registry
    "ToolRegistry", "boot", "KEEP",
    # Approval
    "ApprovalService", "ApprovalRequest",
    # System prompt
    "SystemPrompt", "PromptSection", "AssembleContext", "ToolProviderResult",
    "PromptAssembly", "AssembledSection", "render_prompt", "TOOL_ORDER_REST",
    # Code Mode
    "RUN_CODE_NAME", "CodeRuntime", "CodeRunRequest", "CodeBindingNamespace",
    "CodeRunResult", "CodeLogEntry", "CodeRunFailure", "DenoCodeRuntime",
    # Timeout policy
    "TimeoutPolicy",
]


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_name_importable_from_dsh_tools(name: str) -> None:
    assert hasattr(dsh_tools, name), f"dsh_tools.{name} is missing"
    ns: dict[str, Any] = {}
    exec(f"from dsh_tools import {name}", ns)  # noqa: S102 - the import statement itself is the contract
    assert name in ns


@pytest.mark.parametrize("name", ["json_schema_to_ts", "render_tools_sdk"])
def test_codegen_names_importable(name: str) -> None:
    assert callable(getattr(dsh_tools_codegen, name))


def test_pipeline_module_is_public() -> None:
    """"The pipeline is public: its stages are importable, typed functions"."""
    pipeline = importlib.import_module("dsh_tools.pipeline")
    stages = [n for n in getattr(pipeline, "__all__", []) if callable(getattr(pipeline, n))]
    assert stages, "dsh_tools.pipeline exports no callable stages"


def test_constants() -> None:
    assert RUN_CODE_NAME == "run_code"
    assert TOOL_ORDER_REST == "<unlisted-tools>"
    assert KEEP is not None


def test_service_keys_are_distinct_and_typed() -> None:
    keys = [TOOLS, SYSTEM_PROMPT, APPROVAL, CODE_RUNTIME]
    assert len({id(k) for k in keys}) == 4


# -- error classes, codes, attributes -----------------------------------------


@pytest.mark.parametrize(
    ("cls_name", "code", "args"),
    [
        ("ToolNotFoundError", "UNKNOWN_TOOL", ("t",)),
        ("ToolArgsError", "INVALID_ARGS", (["a: missing required property"],)),
        ("CodeRunFailedError", "CODE_RUN_FAILED", ("boom",)),
        ("ToolTimeoutError", "TOOL_TIMEOUT", ("late",)),
        ("OutputSchemaError", "UNSUPPORTED_SCHEMA", (["(root): bad"],)),
    ],
)
def test_error_classes_and_codes(cls_name: str, code: str, args: tuple[object, ...]) -> None:
    cls = getattr(dsh_tools, cls_name)
    assert issubclass(cls, HarnessError)
    error = cls(*args)
    assert error.code == code


def test_harness_error_message_and_code() -> None:
    error = HarnessError("something broke", "SOME_CODE")
    assert str(error) == "something broke"
    assert error.code == "SOME_CODE"
    assert isinstance(error, Exception)


def test_error_attributes() -> None:
    from dsh_tools import CodeRunFailedError, OutputSchemaError, ToolArgsError, ToolNotFoundError

    assert ToolNotFoundError("grep").tool_name == "grep"
    args_error = ToolArgsError(["path: missing required property", "mode: expected string, got number"])
    assert args_error.violations == ("path: missing required property", "mode: expected string, got number")
    assert type(args_error.violations) is tuple
    # "ToolArgsError(violations) joins them into its message."
    assert "path: missing required property" in str(args_error)
    assert "mode: expected string, got number" in str(args_error)
    schema_error = OutputSchemaError(["(root): x", "(root): y"])
    assert schema_error.violations == ("(root): x", "(root): y")
    # "CodeRunFailedError(message)."
    assert str(CodeRunFailedError("the message")) == "the message"


# -- signatures -----------------------------------------------------------------


def _params(fn: Any) -> list[tuple[str, Any, Any]]:
    sig = inspect.signature(fn)
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


KW = inspect.Parameter.KEYWORD_ONLY
POS = inspect.Parameter.POSITIONAL_OR_KEYWORD
EMPTY = inspect.Parameter.empty


def test_tool_registry_constructor() -> None:
    params = dict((n, (k, d)) for n, k, d in _params(ToolRegistry))
    assert params["mode"] == (KW, "native")
    ctx = Context()
    SystemPrompt(ctx)
    assert ToolRegistry(ctx).mode == "native"


def test_boot_signature() -> None:
    params = {n: d for n, _, d in _params(boot)}
    assert params["timeouts"] is True
    assert params["mode"] == "native"
    assert params["tool_order"] is None
    ctx = boot(mode="native", tool_order=None, timeouts=True)
    assert isinstance(ctx, Context)


def test_registry_method_signatures() -> None:
    tools = boot().tools
    assert [(n, k) for n, k, _ in _params(tools.register)] == [("definition", POS)]
    assert _params(tools.restrict) == [("allow", KW, None), ("deny", KW, None)]
    assert [n for n, _, _ in _params(tools.guard)] == ["fn"]
    assert [(n, d) for n, _, d in _params(tools.get)] == [("name", EMPTY), ("scope", None)]
    methods: list[Any] = [tools.visible, tools.known_names, tools.schemas]
    for method in methods:
        assert [(n, d) for n, _, d in _params(method)] == [("scope", None)]
    assert inspect.iscoroutinefunction(tools.execute)
    assert tools.mode in ("native", "code", "both")


def test_context_on_signature() -> None:
    ctx = Context()
    params = _params(ctx.on)
    assert [n for n, _, _ in params] == ["name", "listener", "prepend"]
    assert params[2] == ("prepend", KW, False)


def test_system_prompt_signatures() -> None:
    assert ("tool_order", KW, None) in _params(SystemPrompt)
    prompt = SystemPrompt(Context())
    assert _params(prompt.protect) == [("sections", KW, ()), ("tools", KW, ())]
    assert inspect.iscoroutinefunction(prompt.assemble)


def test_signal_constructors() -> None:
    controller = AbortController()
    assert isinstance(controller.signal, AbortSignal)
    assert ("reason", POS, None) in _params(controller.abort)
    assert [n for n, _, _ in _params(AbortSignal.timeout)][:2] == ["ms", "reason"]
    assert [n for n, _, _ in _params(AbortSignal.any)] == ["signals"]


def test_prop_signature() -> None:
    params = _params(Prop)
    names = [n for n, _, _ in params]
    expected = ["type", "required", "description", "enum", "default", "properties", "items", "additional_properties"]
    assert names[: len(expected)] == expected
    assert params[0][2] is None
    assert all(kind == KW for _, kind, _ in params[1:])
    assert {n: d for n, _, d in params}["required"] is False


def test_define_tool_is_keyword_only() -> None:
    params = _params(define_tool)
    assert all(kind == KW for _, kind, _ in params)
    names = {n for n, _, _ in params}
    assert {"name", "description", "args", "parameters", "execute", "timeout_ms", "present_call", "present_result"} <= names


def test_deno_runtime_constructor_keywords() -> None:
    params = _params(DenoCodeRuntime)
    assert params[:5] == [
        ("compute_ms", KW, 60_000),
        ("max_wall_ms", KW, 600_000),
        ("max_log_bytes", KW, 65_536),
        ("max_value_bytes", KW, 32_768),
        ("max_heap_mb", KW, 512),
    ]
    # Issue 16's per-run bounds, issue 15's pool and issue 24's cap on it, keyword-only with defaults (docs/code-mode.md).
    assert params[5:] == [
        ("max_calls", KW, 10_000),
        ("max_arg_bytes", KW, 4 << 20),
        ("max_arg_values", KW, 100_000),
        ("max_queued_bytes", KW, 16 << 20),
        ("pool_size", KW, 2),
        ("max_processes", KW, 8),
        ("max_queued_runs", KW, 64),
    ]


def test_codegen_signatures() -> None:
    assert _params(json_schema_to_ts) == [("schema", POS, EMPTY), ("indent", POS, 0)]
    assert [n for n, _, _ in _params(render_tools_sdk)] == ["schemas"]


def test_logger_is_logging_logger_child_of_dsh_tools() -> None:
    """"``ctx.logger`` is a ``logging.Logger`` ... (a child of the ``dsh_tools`` logger)"."""
    logger = Context().logger
    assert isinstance(logger, logging.Logger)
    assert logger.name == "dsh_tools" or logger.name.startswith("dsh_tools.")


def test_agent_constructor() -> None:
    ctx = Context()
    agent = Agent(ctx, name="reviewer")
    assert agent.name == "reviewer"
