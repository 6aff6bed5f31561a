"""Orphaned bodies, as the pipeline has always named them: :mod:`dsh_tools.orphans` keeps them (``ctx.tools.orphans`` is typed by it)."""

from dsh_tools.orphans import DEFAULT_GRACE_MS as DEFAULT_GRACE_MS, Orphans as Orphans, check_grace_ms as check_grace_ms

__all__ = ["DEFAULT_GRACE_MS", "Orphans", "check_grace_ms"]
