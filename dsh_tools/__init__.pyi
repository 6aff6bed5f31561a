"""What ``dsh_tools`` exports: the one list, read by type checkers and by the package itself.

Each line is ``from dsh_tools.x import Name as Name`` (an explicit re-export).
Type checkers read this stub instead of ``__init__.py`` (PEP 561); at run time
``dsh_tools.__getattr__`` reads the same lines to learn which module defines
which name, and loads that module on first use. Adding an export is one line here.
"""

def _export_table() -> dict[str, str]: ...  # the run time's reading of the lines below

from dsh_tools.approval import (
    ApprovalDecision as ApprovalDecision,
    ApprovalOutcome as ApprovalOutcome,
    ApprovalRequest as ApprovalRequest,
    ApprovalService as ApprovalService,
    ApprovalVerdict as ApprovalVerdict,
    DeferringApprovalService as DeferringApprovalService,
    PendingApproval as PendingApproval,
    Remember as Remember,
)
from dsh_tools.boot import (
    boot as boot,
)
from dsh_tools.code_mode import (
    READ_RESULT_NAME as READ_RESULT_NAME,
    RUN_CODE_NAME as RUN_CODE_NAME,
)
from dsh_tools.code_mode.install import (
    SDK_SECTION as SDK_SECTION,
    SDK_SECTION_ORDER as SDK_SECTION_ORDER,
)
from dsh_tools.code_mode.plugin import (
    Catalog as Catalog,
    ToolMode as ToolMode,
)
from dsh_tools.code_mode.runtime import (
    CodeBindingNamespace as CodeBindingNamespace,
    CodeLogEntry as CodeLogEntry,
    CodeRunFailure as CodeRunFailure,
    CodeRunRequest as CodeRunRequest,
    CodeRunResult as CodeRunResult,
    CodeRuntime as CodeRuntime,
)
from dsh_tools.content import (
    ContentBlock as ContentBlock,
    HookContext as HookContext,
    MessageSource as MessageSource,
    PluginSource as PluginSource,
    UserSource as UserSource,
    ToolOutput as ToolOutput,
    image_block as image_block,
    text_block as text_block,
)
from dsh_tools.decisions import (
    Accept as Accept,
    Allow as Allow,
    Ask as Ask,
    Block as Block,
    Deny as Deny,
    PostToolDecision as PostToolDecision,
    PreToolDecision as PreToolDecision,
)
from dsh_tools.definitions import (
    DefinedTool as DefinedTool,
    FunctionTool as FunctionTool,
    Prop as Prop,
    SchemaSpec as SchemaSpec,
    assert_supported_output_schema as assert_supported_output_schema,
    define_tool as define_tool,
    schema_spec_to_json_schema as schema_spec_to_json_schema,
    tool as tool,
    validate_args as validate_args,
    validate_structured_value as validate_structured_value,
)
from dsh_tools.disposer import (
    Disposer as Disposer,
)
from dsh_tools.outcome import (
    OUTCOME_BY_CODE as OUTCOME_BY_CODE,
    OUTCOMES as OUTCOMES,
    Outcome as Outcome,
)
from dsh_tools.errors import (
    ApprovalExpiredError as ApprovalExpiredError,
    ApprovalPendingError as ApprovalPendingError,
    ApprovalStaleError as ApprovalStaleError,
    ApprovalUnavailableError as ApprovalUnavailableError,
    ReplayDivergedError as ReplayDivergedError,
    CodeRunFailedError as CodeRunFailedError,
    CodeRuntimeBusyError as CodeRuntimeBusyError,
    HarnessError as HarnessError,
    OutputSchemaError as OutputSchemaError,
    PayloadTooLargeError as PayloadTooLargeError,
    QueueUnavailableError as QueueUnavailableError,
    RecordTamperedError as RecordTamperedError,
    ToolAbortedError as ToolAbortedError,
    ToolArgsError as ToolArgsError,
    ToolMismatchError as ToolMismatchError,
    ToolNotFoundError as ToolNotFoundError,
    ToolOutcomeUnknownError as ToolOutcomeUnknownError,
    ToolOutputError as ToolOutputError,
    ToolTimeoutError as ToolTimeoutError,
)
from dsh_tools.execution import (
    ToolErrorInfo as ToolErrorInfo,
    ToolExecution as ToolExecution,
    ToolExecutionInput as ToolExecutionInput,
    ToolExecutionResult as ToolExecutionResult,
    ToolExecutionToken as ToolExecutionToken,
    UnparsedArguments as UnparsedArguments,
)
from dsh_tools.hooks import (
    KEEP as KEEP,
    AssembleListener as AssembleListener,
    AssembleNext as AssembleNext,
    ChangeListener as ChangeListener,
    DecidedListener as DecidedListener,
    ExecuteListener as ExecuteListener,
    ExecuteNext as ExecuteNext,
    Keep as Keep,
    ParkedListener as ParkedListener,
    PostExecuteListener as PostExecuteListener,
    PostNext as PostNext,
    PreExecuteListener as PreExecuteListener,
    PreNext as PreNext,
    ProgressListener as ProgressListener,
    ResultListener as ResultListener,
)
from dsh_tools.context import (
    APPROVAL as APPROVAL,
    CODE_RUNTIME as CODE_RUNTIME,
    SYSTEM_PROMPT as SYSTEM_PROMPT,
    TOOLS as TOOLS,
    Agent as Agent,
    Context as Context,
    ScopeKey as ScopeKey,
    ServiceKey as ServiceKey,
    SessionLog as SessionLog,
    SystemPromptPort as SystemPromptPort,
    ToolsPort as ToolsPort,
    scope_of as scope_of,
)
from dsh_tools.json_values import (
    FrozenDict as FrozenDict,
    FrozenJson as FrozenJson,
    JsonValue as JsonValue,
    freeze_json as freeze_json,
    is_json as is_json,
    thaw_json as thaw_json,
)
from dsh_tools.presentation import (
    DiffCallView as DiffCallView,
    DiffResultView as DiffResultView,
    FileDiff as FileDiff,
    FileLocation as FileLocation,
    GenericCallView as GenericCallView,
    GenericResultView as GenericResultView,
    TerminalCallView as TerminalCallView,
    TerminalResultView as TerminalResultView,
    ToolCallKind as ToolCallKind,
    ToolCallView as ToolCallView,
    ToolResult as ToolResult,
    ToolResultView as ToolResultView,
)
from dsh_tools.pipeline.classify import (
    ExecutionMode as ExecutionMode,
)
from dsh_tools.registry.registry import (
    ToolRegistry as ToolRegistry,
)
from dsh_tools.tool_types import (
    RegisteredTool as RegisteredTool,
    ToolDefinition as ToolDefinition,
    ToolSchema as ToolSchema,
)
from dsh_tools.signals import (
    AbortController as AbortController,
    AbortError as AbortError,
    AbortSignal as AbortSignal,
)
from dsh_tools.system_prompt import (
    TOOL_ORDER_REST as TOOL_ORDER_REST,
    AssembleContext as AssembleContext,
    AssembledSection as AssembledSection,
    PromptAssembly as PromptAssembly,
    PromptSection as PromptSection,
    SystemPrompt as SystemPrompt,
    ToolProviderResult as ToolProviderResult,
    render_prompt as render_prompt,
)
from dsh_tools.timeout_policy import (
    TimeoutPolicy as TimeoutPolicy,
)
from dsh_tools.retry import (
    Retry as Retry,
)
from dsh_tools.retry_policy import (
    RetryPolicy as RetryPolicy,
)
from dsh_tools.progress import (
    ToolProgress as ToolProgress,
)
from dsh_tools.code_mode.deno import (
    DenoCodeRuntime as DenoCodeRuntime,
)
from dsh_tools.code_mode.monty import (
    MontyCodeRuntime as MontyCodeRuntime,
)
from dsh_tools.tracing import (
    instrument as instrument,
)
