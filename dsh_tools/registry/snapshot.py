"""Registration's edge: turn any ``ToolDefinition`` into a frozen ``RegisteredTool``.

This is where a malformed definition is a *contract violation* and raises,
with a message naming the tool and the field. What comes out is detached from
the definition object: parameters are deep-frozen JSON, callbacks are captured
once (replacing ``definition.execute`` later changes nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dsh_tools.definitions.output_schema import compile_value_check, compile_value_freezer
from dsh_tools.errors import safe_str
from dsh_tools.json_values import frozen_or_raise
from dsh_tools.retry import check_retry
from dsh_tools.tool_types import (
    RegisteredTool, check_idempotent, check_max_inline_bytes, check_needs_approval, check_timeout_ms, check_tool_name,
)

__all__ = ["snapshot"]


def _attribute(definition: object, name: str, tool: str, *, required: bool) -> Any:
    """Read one attribute once; a missing or misbehaving one is a ``TypeError`` naming it."""
    try:
        return getattr(definition, name)
    except AttributeError:
        if not required:
            return None
        raise TypeError(f'tool definition "{tool}" has no {name!r}') from None
    except Exception as error:  # noqa: BLE001 - a property that raises is the definition's fault
        raise TypeError(f'tool definition "{tool}": reading {name!r} raised {type(error).__name__}: {safe_str(error)}') from None


def snapshot(definition: object) -> RegisteredTool:
    """Validate and freeze ``definition``; raises ``ValueError``/``TypeError`` naming the culprit."""
    name = check_tool_name(_attribute(definition, "name", "?", required=True))
    description = _attribute(definition, "description", name, required=True)
    if type(description) is not str:
        raise TypeError(f'tool "{name}": description must be a str, got {type(description).__name__}')
    raw = _attribute(definition, "parameters", name, required=True)
    parameters = frozen_or_raise(raw, lambda why: TypeError(f'tool "{name}": parameters are not JSON: {why}'))
    if not isinstance(parameters, Mapping):
        raise TypeError(f'tool "{name}": parameters must be a JSON Schema object')
    execute = _attribute(definition, "execute", name, required=True)
    callbacks = {
        "present_call": _attribute(definition, "present_call", name, required=False),
        "present_result": _attribute(definition, "present_result", name, required=False),
        "is_concurrency_safe": _attribute(definition, "is_concurrency_safe", name, required=False),
        "validate": _attribute(definition, "validate", name, required=False),
    }
    for label, callback in (("execute", execute), *callbacks.items()):
        if callback is not None and not callable(callback):
            raise TypeError(f'tool "{name}": {label} must be callable')
    if execute is None:
        raise TypeError(f'tool "{name}": execute must be callable')
    timeout_ms = check_timeout_ms(_attribute(definition, "timeout_ms", name, required=False), name)
    retry = check_retry(_attribute(definition, "retry", name, required=False), name)
    idempotent = _attribute(definition, "idempotent", name, required=False)
    idempotent = False if idempotent is None else check_idempotent(idempotent, name)
    needs_approval = _attribute(definition, "needs_approval", name, required=False)
    needs_approval = False if needs_approval is None else check_needs_approval(needs_approval, name)
    max_inline_bytes = check_max_inline_bytes(_attribute(definition, "max_inline_bytes", name, required=False), name)
    typed = _typed_output(definition, name)
    return RegisteredTool(
        name, description, parameters, execute, timeout_ms, **callbacks, **typed, retry=retry,
        idempotent=idempotent, needs_approval=needs_approval, max_inline_bytes=max_inline_bytes,
    )


def _typed_output(definition: object, name: str) -> dict[str, Any]:
    """``output_schema`` (frozen, in the subset, compiled once) and ``render``, or nothing.

    Raises ``OutputSchemaError`` naming the tool for a schema outside the
    subset, ``TypeError`` for a non-JSON schema or a ``render`` that is not
    callable or comes without a schema.
    """
    schema = _attribute(definition, "output_schema", name, required=False)
    render = _attribute(definition, "render", name, required=False)
    if render is not None and not callable(render):
        raise TypeError(f'tool "{name}": render must be callable')
    if schema is None:
        if render is not None:
            raise TypeError(f'tool "{name}": render needs an output_schema (it renders a typed value)')
        return {}
    output_schema = frozen_or_raise(schema, lambda why: TypeError(f'tool "{name}": output_schema is not JSON: {why}'))
    check = compile_value_check(output_schema, tool=name)
    freezer = compile_value_freezer(output_schema)
    return {"output_schema": output_schema, "render": render, "check_output": check, "freeze_output": freezer}
