"""dsh-tools: a tool registry and policy pipeline for agent harnesses.

Register tools (typed with :func:`define_tool`), shape policy with listeners and
guards, and run every model tool call through one pipeline::

    tools/pre-execute → approval → guards → tools/execute → tools/post-execute → tools/result

Records are immutable pyrsistent values, policy decisions are values, and every
misbehaviour becomes an ``is_error`` result rather than an exception. Code Mode
presents the tools as a TypeScript SDK and runs the model's programs in a
sandboxed Deno process, each sub-call re-entering the full pipeline.

Start with :func:`boot`; the pipeline's stages live in :mod:`dsh_tools.pipeline`.

Stages and pure rules answer with ``returns`` results, tested one way:
``type(r) is Failure``, then ``r.failure()`` or ``r.unwrap()``. The containers
are ABCs, so ``isinstance`` and ``match`` cost several identity tests and
``is_successful`` raises on a ``Failure``, a dozen times per tool call.
Combinators (``.map``, ``.alt``, ``.bind``, ``.lash``) chain steps where that reads better.

Every name here loads on first use (PEP 562): ``import dsh_tools`` costs
almost nothing, and a command or program pays only for what it touches (the
Deno plumbing, the CLI and the demo are never loaded by native-mode code).

Adding an export takes two lines, which ``tests/foundation/test_exports.py``
keeps in step: ``from dsh_tools.x import Name as Name`` in the
``TYPE_CHECKING`` block (what mypy and editors read) and ``"Name":
"dsh_tools.x"`` in ``_EXPORTS`` (what the runtime loads). ``__all__`` is the
table's keys.
"""


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name)

if TYPE_CHECKING:
    from dsh_tools.approval import (
        ApprovalOutcome as ApprovalOutcome,
        ApprovalRequest as ApprovalRequest,
        ApprovalService as ApprovalService,
        ApprovalVerdict as ApprovalVerdict,
        PendingApproval as PendingApproval,
    )
    from dsh_tools.boot import (
        boot as boot,
    )
    from dsh_tools.code_mode import (
        RUN_CODE_NAME as RUN_CODE_NAME,
    )
    from dsh_tools.code_mode.install import (
        SDK_SECTION as SDK_SECTION,
        SDK_SECTION_ORDER as SDK_SECTION_ORDER,
    )
    from dsh_tools.code_mode.plugin import (
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
        ApprovalPendingError as ApprovalPendingError,
        ApprovalStaleError as ApprovalStaleError,
        ApprovalUnavailableError as ApprovalUnavailableError,
        ReplayDivergedError as ReplayDivergedError,
        CodeRunFailedError as CodeRunFailedError,
        CodeRuntimeBusyError as CodeRuntimeBusyError,
        HarnessError as HarnessError,
        OutputSchemaError as OutputSchemaError,
        ToolAbortedError as ToolAbortedError,
        ToolArgsError as ToolArgsError,
        ToolNotFoundError as ToolNotFoundError,
        ToolOutputError as ToolOutputError,
        ToolTimeoutError as ToolTimeoutError,
    )
    from dsh_tools.execution import (
        HookContext as HookContext,
        MessageSource as MessageSource,
        PluginSource as PluginSource,
        ToolErrorInfo as ToolErrorInfo,
        ToolExecution as ToolExecution,
        ToolExecutionInput as ToolExecutionInput,
        ToolExecutionResult as ToolExecutionResult,
        ToolExecutionToken as ToolExecutionToken,
        UnparsedArguments as UnparsedArguments,
        UserSource as UserSource,
    )
    from dsh_tools.hooks import (
        KEEP as KEEP,
        AssembleListener as AssembleListener,
        AssembleNext as AssembleNext,
        ChangeListener as ChangeListener,
        ExecuteListener as ExecuteListener,
        ExecuteNext as ExecuteNext,
        Keep as Keep,
        PostExecuteListener as PostExecuteListener,
        PostNext as PostNext,
        PreExecuteListener as PreExecuteListener,
        PreNext as PreNext,
        ProgressListener as ProgressListener,
        ResultListener as ResultListener,
    )
    from dsh_tools.host import (
        APPROVAL as APPROVAL,
        CODE_RUNTIME as CODE_RUNTIME,
        SYSTEM_PROMPT as SYSTEM_PROMPT,
        TOOLS as TOOLS,
        Agent as Agent,
        Context as Context,
        ScopeKey as ScopeKey,
        ServiceKey as ServiceKey,
        SessionLog as SessionLog,
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
    from dsh_tools.schema import (
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

_EXPORTS: dict[str, str] = {
    # name -> the module that defines it, loaded by __getattr__ on first use
    "ApprovalOutcome": "dsh_tools.approval",
    "ApprovalRequest": "dsh_tools.approval",
    "ApprovalService": "dsh_tools.approval",
    "ApprovalVerdict": "dsh_tools.approval",
    "PendingApproval": "dsh_tools.approval",
    "boot": "dsh_tools.boot",
    "RUN_CODE_NAME": "dsh_tools.code_mode",
    "SDK_SECTION": "dsh_tools.code_mode.install",
    "SDK_SECTION_ORDER": "dsh_tools.code_mode.install",
    "ToolMode": "dsh_tools.code_mode.plugin",
    "CodeBindingNamespace": "dsh_tools.code_mode.runtime",
    "CodeLogEntry": "dsh_tools.code_mode.runtime",
    "CodeRunFailure": "dsh_tools.code_mode.runtime",
    "CodeRunRequest": "dsh_tools.code_mode.runtime",
    "CodeRunResult": "dsh_tools.code_mode.runtime",
    "CodeRuntime": "dsh_tools.code_mode.runtime",
    "ContentBlock": "dsh_tools.content",
    "ToolOutput": "dsh_tools.content",
    "image_block": "dsh_tools.content",
    "text_block": "dsh_tools.content",
    "Accept": "dsh_tools.decisions",
    "Allow": "dsh_tools.decisions",
    "Ask": "dsh_tools.decisions",
    "Block": "dsh_tools.decisions",
    "Deny": "dsh_tools.decisions",
    "PostToolDecision": "dsh_tools.decisions",
    "PreToolDecision": "dsh_tools.decisions",
    "DefinedTool": "dsh_tools.definitions",
    "FunctionTool": "dsh_tools.definitions",
    "Prop": "dsh_tools.definitions",
    "SchemaSpec": "dsh_tools.definitions",
    "assert_supported_output_schema": "dsh_tools.definitions",
    "define_tool": "dsh_tools.definitions",
    "tool": "dsh_tools.definitions",
    "schema_spec_to_json_schema": "dsh_tools.definitions",
    "validate_args": "dsh_tools.definitions",
    "validate_structured_value": "dsh_tools.definitions",
    "Disposer": "dsh_tools.disposer",
    "CodeRunFailedError": "dsh_tools.errors",
    "CodeRuntimeBusyError": "dsh_tools.errors",
    "ApprovalPendingError": "dsh_tools.errors",
    "ApprovalStaleError": "dsh_tools.errors",
    "ApprovalUnavailableError": "dsh_tools.errors",
    "ReplayDivergedError": "dsh_tools.errors",
    "HarnessError": "dsh_tools.errors",
    "OutputSchemaError": "dsh_tools.errors",
    "ToolAbortedError": "dsh_tools.errors",
    "ToolArgsError": "dsh_tools.errors",
    "ToolNotFoundError": "dsh_tools.errors",
    "ToolOutputError": "dsh_tools.errors",
    "ToolTimeoutError": "dsh_tools.errors",
    "HookContext": "dsh_tools.execution",
    "MessageSource": "dsh_tools.execution",
    "PluginSource": "dsh_tools.execution",
    "ToolErrorInfo": "dsh_tools.execution",
    "ToolExecution": "dsh_tools.execution",
    "ToolExecutionInput": "dsh_tools.execution",
    "ToolExecutionResult": "dsh_tools.execution",
    "ToolExecutionToken": "dsh_tools.execution",
    "UnparsedArguments": "dsh_tools.execution",
    "UserSource": "dsh_tools.execution",
    "KEEP": "dsh_tools.hooks",
    "AssembleListener": "dsh_tools.hooks",
    "AssembleNext": "dsh_tools.hooks",
    "ChangeListener": "dsh_tools.hooks",
    "ExecuteListener": "dsh_tools.hooks",
    "ExecuteNext": "dsh_tools.hooks",
    "Keep": "dsh_tools.hooks",
    "PostExecuteListener": "dsh_tools.hooks",
    "PostNext": "dsh_tools.hooks",
    "PreExecuteListener": "dsh_tools.hooks",
    "PreNext": "dsh_tools.hooks",
    "ProgressListener": "dsh_tools.hooks",
    "ResultListener": "dsh_tools.hooks",
    "APPROVAL": "dsh_tools.host",
    "CODE_RUNTIME": "dsh_tools.host",
    "SYSTEM_PROMPT": "dsh_tools.host",
    "TOOLS": "dsh_tools.host",
    "Agent": "dsh_tools.host",
    "Context": "dsh_tools.host",
    "ScopeKey": "dsh_tools.host",
    "ServiceKey": "dsh_tools.host",
    "SessionLog": "dsh_tools.host",
    "scope_of": "dsh_tools.host",
    "FrozenDict": "dsh_tools.json_values",
    "FrozenJson": "dsh_tools.json_values",
    "JsonValue": "dsh_tools.json_values",
    "freeze_json": "dsh_tools.json_values",
    "is_json": "dsh_tools.json_values",
    "thaw_json": "dsh_tools.json_values",
    "DiffCallView": "dsh_tools.presentation",
    "DiffResultView": "dsh_tools.presentation",
    "FileDiff": "dsh_tools.presentation",
    "FileLocation": "dsh_tools.presentation",
    "GenericCallView": "dsh_tools.presentation",
    "GenericResultView": "dsh_tools.presentation",
    "TerminalCallView": "dsh_tools.presentation",
    "TerminalResultView": "dsh_tools.presentation",
    "ToolCallKind": "dsh_tools.presentation",
    "ToolCallView": "dsh_tools.presentation",
    "ToolResult": "dsh_tools.presentation",
    "ToolResultView": "dsh_tools.presentation",
    "ExecutionMode": "dsh_tools.pipeline.classify",
    "ToolRegistry": "dsh_tools.registry.registry",
    "RegisteredTool": "dsh_tools.schema",
    "ToolDefinition": "dsh_tools.schema",
    "ToolSchema": "dsh_tools.schema",
    "AbortController": "dsh_tools.signals",
    "AbortError": "dsh_tools.signals",
    "AbortSignal": "dsh_tools.signals",
    "TOOL_ORDER_REST": "dsh_tools.system_prompt",
    "AssembleContext": "dsh_tools.system_prompt",
    "AssembledSection": "dsh_tools.system_prompt",
    "PromptAssembly": "dsh_tools.system_prompt",
    "PromptSection": "dsh_tools.system_prompt",
    "SystemPrompt": "dsh_tools.system_prompt",
    "ToolProviderResult": "dsh_tools.system_prompt",
    "render_prompt": "dsh_tools.system_prompt",
    "TimeoutPolicy": "dsh_tools.timeout_policy",
    "Retry": "dsh_tools.retry",
    "RetryPolicy": "dsh_tools.retry_policy",
    "ToolProgress": "dsh_tools.progress",
    "DenoCodeRuntime": "dsh_tools.code_mode.deno",
    "MontyCodeRuntime": "dsh_tools.code_mode.monty",
    "instrument": "dsh_tools.tracing",
    "OUTCOMES": "dsh_tools.outcome",
    "OUTCOME_BY_CODE": "dsh_tools.outcome",
    "Outcome": "dsh_tools.outcome",
}

__all__ = list(_EXPORTS)

if not TYPE_CHECKING:  # hidden from mypy, which reads the imports above and so keeps typos errors
    import importlib
    import sys
    from types import ModuleType

    def __getattr__(name: str) -> object:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'dsh_tools' has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_EXPORTS})

    class _Package(ModuleType):
        """The package module, kept from letting a submodule shadow the export it defines.

        Importing a submodule sets it as an attribute of its package, so once
        anything imports ``dsh_tools.boot`` the package's ``boot`` would be
        that module rather than the ``boot()`` function. An eager
        ``__init__`` rebinds the name right after; a lazy one refuses the
        module here and lets ``__getattr__`` answer with the function.
        """

        def __setattr__(self, name: str, value: object) -> None:
            if isinstance(value, ModuleType) and _EXPORTS.get(name) == value.__name__:
                return
            super().__setattr__(name, value)

    sys.modules[__name__].__class__ = _Package
