"""dsh-tools: a tool registry and policy pipeline for agent harnesses.

Register tools (typed with :func:`define_tool`), shape policy with listeners and
guards, and run every model tool call through one pipeline::

    tools/pre-execute → approval → guards → tools/execute → tools/post-execute → tools/result

Records are immutable pyrsistent values, policy decisions are values, and every
misbehaviour becomes an ``is_error`` result rather than an exception. Code Mode
presents the tools as a TypeScript SDK and runs the model's programs in a
sandboxed Deno process, each sub-call re-entering the full pipeline.

Start with :func:`boot`; the pipeline's stages live in :mod:`dsh_tools.pipeline`.
"""

from typing import TYPE_CHECKING

from dsh_tools.approval import ApprovalOutcome, ApprovalRequest, ApprovalService
from dsh_tools.boot import boot
from dsh_tools.code_mode.install import SDK_SECTION, SDK_SECTION_ORDER
from dsh_tools.code_mode.runtime import (
    CodeBindingNamespace,
    CodeLogEntry,
    CodeRunFailure,
    CodeRunRequest,
    CodeRunResult,
    CodeRuntime,
)
from dsh_tools.content import ContentBlock, ToolOutput, image_block, text_block
from dsh_tools.decisions import Accept, Allow, Ask, Block, Deny, PostToolDecision, PreToolDecision
from dsh_tools.definitions import (
    DefinedTool,
    Prop,
    SchemaSpec,
    assert_supported_output_schema,
    define_tool,
    schema_spec_to_json_schema,
    validate_args,
    validate_structured_value,
)
from dsh_tools.disposer import Disposer
from dsh_tools.errors import (
    CodeRunFailedError,
    HarnessError,
    OutputSchemaError,
    ToolAbortedError,
    ToolArgsError,
    ToolNotFoundError,
    ToolOutputError,
    ToolTimeoutError,
)
from dsh_tools.execution import (
    HookContext,
    MessageSource,
    PluginSource,
    ToolErrorInfo,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolExecutionToken,
    UserSource,
)
from dsh_tools.hooks import (
    KEEP,
    AssembleListener,
    AssembleNext,
    ChangeListener,
    ExecuteListener,
    ExecuteNext,
    Keep,
    PostExecuteListener,
    PostNext,
    PreExecuteListener,
    PreNext,
    ResultListener,
)
from dsh_tools.host import (
    APPROVAL,
    CODE_RUNTIME,
    SYSTEM_PROMPT,
    TOOLS,
    Agent,
    Context,
    ScopeKey,
    ServiceKey,
    SessionLog,
    scope_of,
)
from dsh_tools.json_values import FrozenJson, JsonValue, freeze_json, is_json, thaw_json
from dsh_tools.presentation import (
    DiffCallView,
    DiffResultView,
    FileDiff,
    FileLocation,
    GenericCallView,
    GenericResultView,
    TerminalCallView,
    TerminalResultView,
    ToolCallKind,
    ToolCallView,
    ToolResult,
    ToolResultView,
)
from dsh_tools.pipeline.classify import ExecutionMode
from dsh_tools.registry.registry import RUN_CODE_NAME, ToolMode, ToolRegistry
from dsh_tools.schema import RegisteredTool, ToolDefinition, ToolSchema
from dsh_tools.signals import AbortController, AbortError, AbortSignal
from dsh_tools.system_prompt import (
    TOOL_ORDER_REST,
    AssembleContext,
    AssembledSection,
    PromptAssembly,
    PromptSection,
    SystemPrompt,
    ToolProviderResult,
    render_prompt,
)
from dsh_tools.timeout_policy import TimeoutPolicy

if TYPE_CHECKING:
    from dsh_tools.code_mode.deno import DenoCodeRuntime


def __getattr__(name: str) -> object:
    # The Deno backend (subprocess management, the sandbox harness) loads on
    # first use, so importing dsh_tools for native-mode work stays light.
    if name == "DenoCodeRuntime":
        from dsh_tools.code_mode.deno import DenoCodeRuntime

        return DenoCodeRuntime
    raise AttributeError(f"module 'dsh_tools' has no attribute {name!r}")

__all__ = [
    "APPROVAL",
    "CODE_RUNTIME",
    "KEEP",
    "RUN_CODE_NAME",
    "SDK_SECTION",
    "SDK_SECTION_ORDER",
    "SYSTEM_PROMPT",
    "TOOLS",
    "TOOL_ORDER_REST",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "Accept",
    "Agent",
    "Allow",
    "ApprovalOutcome",
    "ApprovalRequest",
    "ApprovalService",
    "Ask",
    "AssembleContext",
    "AssembleListener",
    "AssembleNext",
    "AssembledSection",
    "Block",
    "ChangeListener",
    "CodeBindingNamespace",
    "CodeLogEntry",
    "CodeRunFailedError",
    "CodeRunFailure",
    "CodeRunRequest",
    "CodeRunResult",
    "CodeRuntime",
    "ContentBlock",
    "Context",
    "DefinedTool",
    "Deny",
    "DenoCodeRuntime",
    "DiffCallView",
    "DiffResultView",
    "Disposer",
    "ExecuteListener",
    "ExecuteNext",
    "ExecutionMode",
    "FileDiff",
    "FileLocation",
    "FrozenJson",
    "GenericCallView",
    "GenericResultView",
    "HarnessError",
    "HookContext",
    "Keep",
    "JsonValue",
    "MessageSource",
    "OutputSchemaError",
    "PluginSource",
    "PostExecuteListener",
    "PostNext",
    "PostToolDecision",
    "PreExecuteListener",
    "PreNext",
    "PreToolDecision",
    "PromptAssembly",
    "PromptSection",
    "Prop",
    "RegisteredTool",
    "ResultListener",
    "SchemaSpec",
    "ScopeKey",
    "ServiceKey",
    "SessionLog",
    "SystemPrompt",
    "TerminalCallView",
    "TerminalResultView",
    "TimeoutPolicy",
    "ToolAbortedError",
    "ToolArgsError",
    "ToolCallKind",
    "ToolCallView",
    "ToolDefinition",
    "ToolErrorInfo",
    "ToolExecution",
    "ToolExecutionInput",
    "ToolExecutionResult",
    "ToolExecutionToken",
    "ToolMode",
    "ToolNotFoundError",
    "ToolOutput",
    "ToolOutputError",
    "ToolProviderResult",
    "ToolRegistry",
    "ToolResult",
    "ToolResultView",
    "ToolSchema",
    "ToolTimeoutError",
    "UserSource",
    "assert_supported_output_schema",
    "boot",
    "define_tool",
    "freeze_json",
    "image_block",
    "is_json",
    "render_prompt",
    "schema_spec_to_json_schema",
    "scope_of",
    "text_block",
    "thaw_json",
    "validate_args",
    "validate_structured_value",
]
