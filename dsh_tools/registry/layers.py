"""The registry's layers, as it has always named them: :mod:`dsh_tools.tool_layers` keeps them (``ctx.tools.layers`` is typed by it)."""

from dsh_tools.tool_layers import Restriction as Restriction, ScopeView as ScopeView, ToolLayers as ToolLayers

__all__ = ["Restriction", "ScopeView", "ToolLayers"]
