"""The Python backend of Code Mode: ``from dsh_tools.code_mode.monty import MontyCodeRuntime`` (extra ``dsh-tools[python]``)."""

from dsh_tools.code_mode.monty.runtime import MontyCodeRuntime

__all__ = ["MontyCodeRuntime"]
