"""Turning an assembly into the one system-prompt string a model receives."""

from __future__ import annotations

from dsh_tools.system_prompt.records import PromptAssembly

__all__ = ["render_prompt"]

SECTION_SEPARATOR = "\n\n"


def render_prompt(assembly: PromptAssembly) -> str:
    """Join the non-empty section texts with one blank line, in the order given.

    The order is the assembly's own (a listener may have reordered it on
    purpose), so this never re-sorts; empty sections vanish instead of leaving
    stray blank lines.
    """
    return SECTION_SEPARATOR.join(section.text for section in assembly.sections if section.text)
