"""Code Mode's heavy half: the ``run_code`` transport, and the SDK section, protections and preflight of the prompt.

:class:`~dsh_tools.code_mode.plugin.CodeMode` loads and calls this once, when
the first scope's mode is not native: it imports the SDK renderers and the
bridge, which native-mode code never needs. Everything is registered on the
registry's own context, so disposing it takes Code Mode away with the
registry. A native scope's SDK section is empty (and so left out of the prompt).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from dsh_tools.code_mode import DIRECT_NAMES, RUN_CODE_NAME
from dsh_tools.code_mode.runtime import CodeLanguage, code_runtime, language_label
from dsh_tools.code_mode.transport import make_run_code
from dsh_tools.system_prompt.records import TOOL_ORDER_REST, AssembleContext, PromptSection
from dsh_tools_codegen import render_frozen_tools_sdk, render_tools_sdk_python

if TYPE_CHECKING:
    from dsh_tools.context.context import Agent
    from dsh_tools.context.ports import ToolsPort
    from dsh_tools.tool_types import RegisteredTool
    from dsh_tools.context.ports import SystemPromptPort

__all__ = ["SDK_SECTION", "SDK_SECTION_ORDER", "install_code_mode", "sdk_section_text"]

SDK_SECTION: Final = "tools:sdk"
SDK_SECTION_ORDER: Final = 150


def install_code_mode(registry: ToolsPort, code_language: CodeLanguage) -> RegisteredTool:
    """Add the lazy ``tools:sdk`` section, its protections and preflight; the ``run_code`` transport to serve."""
    prompt = registry.context.system_prompt

    def sdk_text(context: AssembleContext) -> str:
        return sdk_section_text(registry, context.scope)

    prompt.section(PromptSection(SDK_SECTION, SDK_SECTION_ORDER, sdk_text))
    prompt.protect(sections=[SDK_SECTION], tools=[RUN_CODE_NAME])
    prompt.preflight(lambda context: _preflight(registry, prompt, context))
    return make_run_code(registry, code_language)


def sdk_section_text(registry: ToolsPort, scope: Agent | None) -> str:
    """The ``tools:sdk`` text for ``scope`` (what the section renders; ``serve_mcp`` serves it too).

    Empty for a scope whose effective mode is native; in the registry's
    ``code_language`` (the TypeScript or the Python SDK). Memoised on the scope's
    view: an unchanged tool set is never rendered twice. Rendered from the
    snapshots, not the wire schemas: a typed tool's output schema is its
    return type.
    """
    if registry.mode_for(scope) == "native":
        return ""
    if registry.code_mode.catalog == "search":
        from dsh_tools.code_mode.search.builtins import search_section  # first need: native code never loads it

        return search_section(registry, scope)[0]
    view = registry.scope_view(scope)
    text = view.memo.get(SDK_SECTION)
    if not isinstance(text, str):
        if registry.code_language == "python":
            text = render_tools_sdk_python(view.tools)
        else:  # the snapshots' schemas are deep-frozen: the renderer's memo may trust them by identity
            text = render_frozen_tools_sdk(view.tools)
        view.memo[SDK_SECTION] = text
    return text


def _preflight(registry: ToolsPort, prompt: SystemPromptPort, context: AssembleContext) -> None:
    mode = registry.mode_for(context.scope)
    if mode == "native":
        return
    language = registry.code_language
    runtime = code_runtime(registry.context, language)
    if isinstance(runtime, str):
        raise RuntimeError(f"tools mode {mode!r} needs a {language_label(language)} code runtime: {runtime}")
    if mode == "code" and prompt.tool_order is not None and registry.code_mode.catalog != "search":
        wire = {*DIRECT_NAMES, TOOL_ORDER_REST}
        stale = [name for name in prompt.tool_order if name not in wire]
        if stale:
            raise ValueError(
                f"tool_order names {', '.join(stale)}, which mode 'code' no longer sends as wire tools "
                f"(only {RUN_CODE_NAME!r}); drop them from tool_order, use mode 'both', or catalog='search' "
                "(where tool_order orders the SDK's declarations)"
            )
