"""Headless Chromium for the inspector's browser tests: Debian's ``chromium``, driven by Playwright.

Playwright's own browser download needs a network the CI machine does not
have, so the tests use the system browser (``make test`` installs Debian's
``chromium`` package). A missing browser is a clear failure, never a skip.
"""

from __future__ import annotations

import shutil

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        raise RuntimeError("the inspector's browser tests need Debian's chromium (apt-get install -y chromium; `make test` does it)")
    return found
