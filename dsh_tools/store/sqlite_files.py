"""The one spelling of SQLite URLs and files: the store's ``sqlite:///FILE`` and its DBOS sibling ``FILE.dbos``.

``open_store`` reads the URL, the SQLite store looks for the sibling (a
queued call's run may be held there), and the DBOS layer opens it: all three
ask here.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SQLITE_PREFIX", "sqlite_file", "sqlite_url", "system_file"]

SQLITE_PREFIX: Final = "sqlite:///"


def sqlite_file(url: str) -> str | None:
    """The file a ``sqlite:///FILE`` URL names; ``None`` for any other URL (PostgreSQL's)."""
    return url[len(SQLITE_PREFIX) :] if url.startswith(SQLITE_PREFIX) and len(url) > len(SQLITE_PREFIX) else None


def sqlite_url(file: str) -> str:
    """The ``sqlite:///FILE`` URL of ``file``."""
    return f"{SQLITE_PREFIX}{file}"


def system_file(store_file: str) -> str:
    """DBOS's system database file for the SQLite store in ``store_file``: the sibling ``<store_file>.dbos``."""
    return f"{store_file}.dbos"
