"""Headless Chromium for the inspector's browser tests: Debian's ``chromium``, driven by Playwright.

Playwright's own browser download needs a network the CI machine does not
have, so the tests use the system browser (``make test`` installs Debian's
``chromium`` package). A missing browser is a clear failure, never a skip.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from playwright.async_api import Page, async_playwright

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


@asynccontextmanager
async def browser_page(**page_options: Any) -> AsyncIterator[Page]:
    """A new page (``page_options`` as ``Browser.new_page`` takes them) in a headless Chromium closed afterwards."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield await browser.new_page(**page_options)
        finally:
            await browser.close()
