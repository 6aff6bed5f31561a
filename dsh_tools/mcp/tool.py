"""One server tool as a raw ``ToolDefinition``: checked arguments in, mapped result out.

The definition is what the registry snapshots, so everything the pipeline
needs is plain data on it (``name``, ``description``, ``parameters`` = the
server's ``inputSchema``, ``timeout_ms``). ``execute`` validates the arguments
against that schema first (``ToolArgsError``: ``INVALID_ARGS``, the same
message format as our own tools), forwards the thawed arguments with the
call's signal, and maps what comes back: content blocks (see
:mod:`dsh_tools.mcp.content`), ``isError`` as :class:`McpToolError`, and,
when the server's ``outputSchema`` is in the supported subset (the tool's
``output_schema``, so it is a *typed* tool), ``structuredContent`` as the
value: the registry checks it against that schema and sets
``result.value``, and a Code Mode binding resolves to it. The server's
progress notifications for the call become the call's own progress
(``exec.report_progress``, so ``tools/progress`` listeners hear them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import mcp_types as mt

from dsh_tools.content import ContentBlock, ToolOutput
from dsh_tools.definitions.output_schema import output_schema_violations
from dsh_tools.errors import ToolArgsError, ToolOutputError
from dsh_tools.execution import ToolExecution, content_text
from dsh_tools.json_values import JsonValue, frozen_or_raise, thaw_json
from dsh_tools.mcp.connection import Connection
from dsh_tools.mcp.content import MalformedContent, from_mcp_content
from dsh_tools.mcp.errors import McpProtocolError, McpToolError
from dsh_tools.mcp.input_schema import input_validator
from dsh_tools.tool_types import NeedsApproval

__all__ = ["McpTool", "supported_output_schema"]


def supported_output_schema(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The server's ``outputSchema`` when it is in the supported subset (else ``None``: a content tool)."""
    if schema is None or output_schema_violations(schema):
        return None
    return schema


class McpTool:
    """The raw definition of one server tool, registered under ``name`` (``remote_name`` on the wire)."""

    __slots__ = (
        "_connection", "_validate", "description", "idempotent", "name", "needs_approval", "output_schema", "parameters",
        "remote_name", "timeout_ms",
    )

    def __init__(
        self,
        tool: mt.Tool,
        *,
        name: str,
        connection: Connection,
        timeout_ms: float | None,
        needs_approval: NeedsApproval = False,
        trust_hints: bool = False,
    ) -> None:
        self.name = name
        self.remote_name = tool.name
        self.description = tool.description or tool.title or tool.name
        self.parameters: Mapping[str, Any] = tool.input_schema
        self.output_schema = supported_output_schema(tool.output_schema)
        self.timeout_ms = timeout_ms
        self.needs_approval = needs_approval
        # A server's idempotentHint is its own claim: a call runs again on the strength of it only when trusted.
        hints = tool.annotations
        self.idempotent = trust_hints and hints is not None and hints.idempotent_hint is True
        self._connection = connection
        self._validate = input_validator(tool.input_schema)

    def validate(self, args: object) -> list[str]:
        """The violations of ``args`` against the server's ``inputSchema`` (a call that needs approval is checked first)."""
        violations = self._validate(thaw_json(args))
        if not violations and not isinstance(args, Mapping):
            violations = [f"(root): expected object, got {type(args).__name__}"]
        return violations

    async def execute(self, args: JsonValue, exec: ToolExecution) -> Sequence[ContentBlock] | ToolOutput:  # noqa: A002
        violations = self.validate(args)
        if violations:
            raise ToolArgsError(violations)
        arguments = thaw_json(args)
        assert isinstance(arguments, dict)
        result = await self._connection.call(self.remote_name, arguments, exec.signal, _ProgressRelay(exec))
        try:
            content = from_mcp_content(result.content)
        except MalformedContent as error:
            raise McpProtocolError(f'MCP tool "{self.remote_name}": the server sent a malformed result: {error}') from None
        if result.is_error:
            raise McpToolError(content_text(content) or f'MCP tool "{self.remote_name}" reported an error')
        if self.output_schema is not None:
            # A typed tool: the server sent both halves, so its content is kept as is
            # and its structuredContent is the value the registry checks and freezes.
            # Python's JSON reader takes NaN and integers beyond 64 bits; the boundary
            # does not, and says so as it does for any typed value that is not JSON.
            structured = result.structured_content
            value = frozen_or_raise(structured, lambda why: ToolOutputError([f"not JSON: {why}"], tool=self.name))
            return ToolOutput(content, value=value)
        return content


class _ProgressRelay:
    """The SDK's progress callback for one call: the server's report becomes this call's progress."""

    __slots__ = ("_execution",)

    def __init__(self, execution: ToolExecution) -> None:
        self._execution = execution

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        try:
            await self._execution.report_progress(progress, total, message)
        except ValueError:  # a server's NaN or infinity is not progress; the call goes on
            pass
