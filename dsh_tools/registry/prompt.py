"""How the registry presents its tools to the model, per scope's effective ``mode``.

* ``native``: the scope's visible tools as wire function definitions.
* ``code``: only the reserved ``run_code`` transport, plus the ``tools:sdk``
  section describing the scope's tools as a TypeScript API.
* ``both``: the visible tools, ``run_code`` and the SDK section.

The mode is the registry's, or the one an agent chose with ``present_as``.
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
    """Wire ``registry`` into ``prompt``, each scope as its effective mode says.

    Code Mode (``run_code``, the SDK section, protections, preflight) is
    installed now for a non-native registry, else on the first agent that
    asks for it with ``present_as`` (tied to the registry's context either way).
    """

    def provide(context: AssembleContext) -> ToolProviderResult:
        scope = context.scope
        mode = registry.mode_for(scope)
        schemas = registry.schemas(scope)  # the transport, when the mode has it, comes last
        if mode == "native":
            return ToolProviderResult(schemas, registry.known_names(scope))
        if mode == "code":
            return ToolProviderResult(schemas[-1:], [RUN_CODE_NAME])
        return ToolProviderResult(schemas, [*registry.known_names(scope), RUN_CODE_NAME])

    prompt.tools(provide)

    def install() -> None:
        from dsh_tools.code_mode.install import install_code_mode

        install_code_mode(registry, prompt)

    registry.offer_code_mode(install)
    if registry.mode != "native":
        install()
