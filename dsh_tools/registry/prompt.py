"""How the registry presents its tools to the model, per ``mode``.

* ``native``: the scope's visible tools as wire function definitions.
* ``code``: only the reserved ``run_code`` transport, plus the ``tools:sdk``
  section describing the scope's tools as a TypeScript API.
* ``both``: the visible tools, ``run_code`` and the SDK section.

In the non-native modes both halves of the transport are protected (assembly
listeners cannot drop them) and a preflight rejects any assembly that could not
work: no TypeScript runtime mounted, or a ``tool_order`` naming tools the mode
no longer sends as wire tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh_tools.system_prompt.records import AssembleContext, ToolProviderResult

from dsh_tools.registry.registry import RUN_CODE_NAME

if TYPE_CHECKING:
    from dsh_tools.registry.registry import ToolRegistry
    from dsh_tools.system_prompt.service import SystemPrompt

__all__ = ["contribute_to_prompt"]


def contribute_to_prompt(registry: ToolRegistry, prompt: SystemPrompt) -> None:
    """Wire ``registry`` into ``prompt`` for its mode (tied to the registry's context)."""
    mode = registry.mode

    def provide(context: AssembleContext) -> ToolProviderResult:
        scope = context.scope
        schemas = registry.schemas(scope)  # the transport, when there is one, comes last
        if mode == "native":
            return ToolProviderResult(schemas, registry.known_names(scope))
        if mode == "code":
            return ToolProviderResult(schemas[-1:], [RUN_CODE_NAME])
        return ToolProviderResult(schemas, [*registry.known_names(scope), RUN_CODE_NAME])

    prompt.tools(provide)
    if mode != "native":
        from dsh_tools.code_mode.install import install_code_mode

        install_code_mode(registry, prompt)
