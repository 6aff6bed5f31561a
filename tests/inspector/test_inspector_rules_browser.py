"""The inspector in a real headless Chromium: remember a decision for the agent, see and forget the rule, filters that apply on change."""

from __future__ import annotations

import subprocess

from playwright.async_api import expect

from browser import browser_page
from inspector_processes import inspector_url, parked_agent, store_url  # noqa: F401 - fixtures


async def test_remember_list_and_forget_a_rule_and_filter_as_you_change_the_filters(
    parked_agent: subprocess.Popen[str], inspector_url: str
) -> None:
    async with browser_page(viewport={"width": 1200, "height": 900}) as page:
        await page.goto(inspector_url)
        rules = page.locator("#rules li")
        await expect(page.locator("#no-rules")).to_be_visible()
        await expect(rules).to_have_count(0)

        card = page.locator("li.card")
        await card.get_by_label("Remember for this agent").check()
        await card.get_by_role("button", name="Approve", exact=True).click()
        await expect(card).to_have_count(0)
        await expect(rules).to_have_count(1)  # the rule came back with the decision
        await expect(rules.first).to_contain_text("write_file · agent editor-1 · allowed-once · by inspector")
        await expect(page.locator("#rule-count")).to_have_text("1")

        ran = page.locator('tr[data-call="call-1"][data-outcome="ok"]')
        await expect(ran).to_have_count(1, timeout=20_000)
        await ran.get_by_role("button", name="write_file").click()
        await expect(page.locator("tr.detail .decision")).to_contain_text("decided by inspector by rule")

        rows = page.locator("#journal-rows tr[data-call]")
        await expect(rows).to_have_count(2)  # the parked call and its run
        await page.get_by_label("errors only").check()  # applies at once: no button
        await expect(rows).to_have_count(1)
        await expect(rows.first).to_have_attribute("data-outcome", "approval-pending")
        await page.get_by_label("errors only").uncheck()
        await page.get_by_label("Outcome").select_option("ok")
        await expect(rows).to_have_count(1)
        await expect(rows.first).to_have_attribute("data-outcome", "ok")
        await page.get_by_label("Outcome").select_option("")
        await page.get_by_label("Agent").fill("nobody")  # typed: applies once the typing pauses
        await expect(rows).to_have_count(0)
        await page.get_by_label("Agent").fill("editor-1")
        await expect(rows).to_have_count(2)

        await rules.first.get_by_role("button", name="Forget").click()
        await expect(rules).to_have_count(0)
        await expect(page.locator("#no-rules")).to_be_visible()
    assert parked_agent.stdout is not None
    assert parked_agent.stdout.readline().startswith("ran ok")
