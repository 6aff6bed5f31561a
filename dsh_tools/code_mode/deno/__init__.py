"""The Deno backend of Code Mode: ``from dsh_tools.code_mode.deno import DenoCodeRuntime``."""

from dsh_tools.code_mode.deno.runtime import DenoCodeRuntime

__all__ = ["DenoCodeRuntime"]
