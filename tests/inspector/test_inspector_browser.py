"""The inspector in a real headless Chromium: see a parked call, approve it, watch it run live, no reload."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from playwright.async_api import expect

from browser import browser_page
from inspector_processes import inspector_url, parked_agent, serving_inspector, store_url  # noqa: F401 - fixtures

HERE = Path(__file__).resolve().parent
SHOTS = Path(os.environ["DSH_SCREENSHOTS"]) if os.environ.get("DSH_SCREENSHOTS") else None
"""Set ``DSH_SCREENSHOTS=docs/images`` to refresh the screenshots ``docs/inspector.md`` shows."""


async def test_approve_in_the_page_and_watch_the_call_run_live(parked_agent: subprocess.Popen[str], inspector_url: str) -> None:
    async with browser_page(viewport={"width": 1200, "height": 800}) as page:
        alerts: list[str] = []
        page.on("dialog", lambda dialog: alerts.append(dialog.message))
        await page.goto(inspector_url)
        assert "token=" not in page.url and "/s/" in page.url  # traded for a session path
        card = page.locator("li.card")
        await expect(card).to_have_count(1)
        await expect(card.locator("h3")).to_have_text("write_file")
        await expect(card).to_contain_text("agent editor (editor-1)")
        await expect(card).to_contain_text("Reason: writes to the project")
        await expect(card.locator('pre[aria-label="arguments"]')).to_contain_text("<script>window.pwned = 1</script> hello")
        assert await page.evaluate("window.pwned") is None  # shown as text, never run
        pending_row = page.locator('tr[data-call="call-1"][data-outcome="approval-pending"]')
        await expect(pending_row).to_have_count(1)
        if SHOTS is not None:
            await page.screenshot(path=str(SHOTS / "inspector-approvals.png"), full_page=True)

        await card.get_by_role("button", name="Approve", exact=True).click()
        await expect(card).to_have_count(0)  # decided: the list empties live
        ran = page.locator('tr[data-call="call-1"][data-outcome="ok"]')
        await expect(ran).to_have_count(1, timeout=20_000)  # the agent's process ran it; the row arrived without a reload
        await ran.get_by_role("button", name="write_file").click()
        await expect(page.locator("tr.detail")).to_contain_text("wrote 39 bytes to notes.md")
        if SHOTS is not None:
            await page.screenshot(path=str(SHOTS / "inspector-journal.png"), full_page=True)
    assert parked_agent.stdout is not None
    assert parked_agent.stdout.readline().strip() == "ran ok wrote 39 bytes to notes.md"
    assert alerts == []


async def test_an_edit_that_breaks_the_schema_is_stopped_in_the_page(parked_agent: subprocess.Popen[str], inspector_url: str) -> None:
    async with browser_page() as page:
        await page.goto(inspector_url)
        card = page.locator("li.card")
        await card.get_by_role("button", name="Edit arguments…").click()
        editor = card.get_by_label("Edit the arguments (JSON)")
        await editor.fill('{"path": 7}')
        await card.get_by_role("button", name="Approve with these arguments").click()
        await expect(card.get_by_role("alert")).to_contain_text("(root).path: expected string")
        await expect(card).to_have_count(1)  # nothing was sent
        await editor.fill('{"path": "safe.md", "text": "ok"}')
        await card.get_by_role("button", name="Approve with these arguments").click()
        await expect(card).to_have_count(0)
    assert parked_agent.stdout is not None
    assert parked_agent.stdout.readline().strip() == "ran ok wrote 2 bytes to safe.md"


async def test_a_call_parked_while_the_page_is_open_appears_and_a_decision_elsewhere_takes_it_away(
    store_url: str, parked_agent: subprocess.Popen[str], inspector_url: str
) -> None:
    async with browser_page() as page:
        await page.goto(inspector_url)
        card = page.locator("li.card")
        await expect(card).to_have_count(1)
        await expect(page.locator("#live")).to_have_text("live")
        second = subprocess.Popen([sys.executable, str(HERE / "agent_for_inspector.py"), store_url], stdout=subprocess.PIPE, text=True)
        try:
            assert second.stdout is not None
            approval_id = second.stdout.readline().split()[1]
            await expect(card).to_have_count(2)  # arrived on the stream: no reload
            await expect(page.locator(f'li.card[data-approval="{approval_id}"]')).to_contain_text("write_file")
            decided = subprocess.run(
                [sys.executable, "-m", "dsh_tools.cli", "approvals", "--store", store_url, "reject", approval_id],
                capture_output=True, text=True, timeout=60,
            )
            assert decided.returncode == 0, decided.stderr
            await expect(card).to_have_count(1)  # decided in another process: gone from the page, live
            await expect(page.locator(f'li.card[data-approval="{approval_id}"]')).to_have_count(0)
        finally:
            second.kill()
            second.wait(timeout=30)


async def test_a_code_mode_run_shows_its_sub_calls_nested_under_it(store_url: str) -> None:
    from dsh_tools.store import CallRecord, open_store

    async def fill() -> None:
        async with open_store(store_url) as store:
            await store.write(
                [
                    CallRecord("r1", "run-1", "coder", "run_code", {"code": "..."}, "ok", 10.0, ended_at=13.0),
                    CallRecord("r2", "run-1:code:1", "coder", "lookup", {"name": "ada"}, "ok", 11.0, ended_at=11.5,
                               parent_call_id="run-1"),
                    CallRecord("r3", "run-1:code:2", "coder", "charge_card", {"amount": 5}, "denied", 12.0,
                               ended_at=12.1, is_error=True, parent_call_id="run-1"),
                    CallRecord("r4", "other", "coder", "lookup", {"name": "bob"}, "ok", 20.0, ended_at=20.1),
                ],
                [],
            )

    await fill()
    with serving_inspector(store_url) as url:
        async with browser_page() as page:
            await page.goto(url)
            rows = page.locator("#journal-rows tr")
            await expect(rows).to_have_count(4)
            calls = [await rows.nth(n).get_attribute("data-call") for n in range(4)]
            assert calls == ["other", "run-1", "run-1:code:1", "run-1:code:2"]  # newest first, sub-calls under their run
            assert [await rows.nth(n).get_attribute("class") for n in range(4)] == ["", "", "sub", "sub"]
            await page.get_by_label("Outcome").select_option("denied")  # applies on change: no button
            await expect(rows).to_have_count(1)
            await expect(rows.first).to_have_attribute("data-call", "run-1:code:2")


async def test_a_spilled_result_shows_its_size_and_pages_through_its_whole_text(store_url: str) -> None:
    from dsh_tools import Agent, ToolExecutionInput, boot, tool
    from dsh_tools.store import open_store

    whole = "".join(f"line {n:05d} é😀\n" for n in range(2000))

    @tool
    async def dump() -> str:
        """A long text."""
        return whole

    async with open_store(store_url) as store:
        ctx = boot(store=store, max_inline_bytes=2048)
        ctx.tools.register(dump)
        await ctx.tools.execute(ToolExecutionInput("big-1", "dump", {}, Agent(ctx, name="a", id="agent-1")))
    with serving_inspector(store_url) as url:
        async with browser_page() as page:
            await page.goto(url)
            row = page.locator('tr[data-call="big-1"]')
            await expect(row).to_contain_text(f"cut from {len(whole.encode()) / 1024:.1f} KB")
            await row.get_by_role("button", name="dump").click()
            reader = page.locator(".spilled-reader")
            await expect(reader).to_contain_text(f"{len(whole):,} characters")
            text = reader.locator("pre.spilled-text")
            await expect(text).to_have_text(whole[:4096], use_inner_text=False)
            await reader.get_by_role("button", name="Next ▶").click()
            await expect(reader).to_contain_text(f"characters 4,096–8,192 of {len(whole):,}")
            assert await text.text_content() == whole[4096:8192]
