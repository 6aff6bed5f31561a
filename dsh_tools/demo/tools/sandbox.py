"""The one path check every demo tool uses to stay inside its workspace root."""

from __future__ import annotations

from pathlib import Path

__all__ = ["SandboxError", "resolve_inside"]


class SandboxError(ValueError):
    """A path that would leave the tools' root (or cannot be a path at all)."""


def resolve_inside(root: Path, relative: str) -> Path:
    """``root / relative`` with symlinks resolved, or ``SandboxError`` if it escapes ``root``.

    ``root`` must already be resolved. Resolving before the containment check
    is what stops ``..`` segments and symlinks pointing out of the workspace.
    """
    try:
        candidate = (root / relative).resolve()
    except (OSError, ValueError) as error:
        raise SandboxError(f"invalid path {relative!r}: {error}") from None
    if candidate != root and not candidate.is_relative_to(root):
        raise SandboxError(f"path {relative!r} is outside the workspace")
    return candidate
