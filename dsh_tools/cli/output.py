"""Writing command output: stdout, or a file named by ``-o`` (errors as ``CliError``)."""

from __future__ import annotations

import sys
from pathlib import Path

from dsh_tools.cli.errors import CliError

__all__ = ["emit"]


def emit(text: str, path: str | None = None) -> None:
    """Write ``text`` (newline-terminated) to ``path``, or to stdout when ``path`` is ``None``/``-``."""
    if not text.endswith("\n"):
        text += "\n"
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise CliError(f"cannot write {path}: {error.strerror or error}") from None
