"""The inspector (issue 27) in a real headless Chromium, over a SQLite store of 100k journal records.

* first paint: from navigation to the journal and approvals rendered
  (the page marks ``data-ready``), target ≤ 300 ms;
* live update: from a record committed by another writer to its row on the
  page, without a reload, target ≤ 500 ms.

Run standalone: ``python -m benchmarks.bench_inspector``.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dsh_tools.store import CallRecord, SqliteStore

from benchmarks._common import Row

RECORDS = 100_000


async def _fill(path: Path) -> None:
    store = SqliteStore(path)
    now = time.time()
    for start in range(0, RECORDS, 10_000):
        await store.write(
            [CallRecord(f"r{n}", f"c{n}", f"a{n % 50}", f"tool{n % 20}", {"n": n}, "ok", now, ended_at=now)
             for n in range(start, start + 10_000)],
            [],
        )
    await store.aclose()


async def _measure(path: Path) -> tuple[float, float]:
    from playwright.async_api import async_playwright

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "inspector"))  # the suite's browser settings
    from browser import CHROMIUM_ARGS, chromium_path

    server = subprocess.Popen(
        [sys.executable, "-m", "dsh_tools.cli", "inspect", "--store", f"sqlite:///{path}", "--port", "0"],
        stdout=subprocess.PIPE, text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().split(": ", 1)[1].strip()
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            page = await browser.new_page()
            await page.goto(url)  # warm: the session path, the caches of a browser that was just started
            paints = []
            for _ in range(5):
                await page.reload()
                await page.wait_for_selector("body[data-ready='1']")
                paints.append(float(await page.evaluate("document.body.dataset.readyMs")))  # stamped by the page itself
            await page.wait_for_selector("#live:text('live')")
            store = SqliteStore(path)
            lags = []
            for n in range(5):
                started = time.perf_counter()
                await store.write([CallRecord(f"live{n}", f"live{n}", "a1", "fresh", {}, "ok", time.time(), ended_at=time.time())], [])
                await page.wait_for_selector(f"tr[data-call='live{n}']", timeout=10_000)
                lags.append(time.perf_counter() - started)
            await store.aclose()
            await browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return sorted(paints)[len(paints) // 2], 1000 * sorted(lags)[len(lags) // 2]


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calls.db"
        asyncio.run(_fill(path))
        paint_ms, live_ms = asyncio.run(_measure(path))
    return [
        ("inspector: first paint over 100k records (ms, median)", paint_ms, "<= 300", paint_ms <= 300),
        ("inspector: live update after a call settles (ms, median)", live_ms, "<= 500", live_ms <= 500),
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
