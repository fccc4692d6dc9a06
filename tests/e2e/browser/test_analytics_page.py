"""The Analytics page in headless Chromium: turns counted through the analytics
listener (as the history recorder hands them over) show as totals, uPlot charts drawn
on canvases under the page's CSP, and a table of answers per interaction."""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from playwright.sync_api import Page, expect

from bot_api.analytics.counters import AnalyticsCounters
from bot_api.analytics.repository import AnalyticsRepository
from bot_api.domain.history import AnsweredBy, TurnRecord
from shared import mongo
from shared.timeutil import utcnow
from support.browser import Stack, call, loaded, screenshot, sign_in


async def count(stack: Stack, turns: list[TurnRecord]) -> None:
    client = mongo.open_client(stack.config.mongodb_url)
    try:
        counters = AnalyticsCounters(AnalyticsRepository(client[stack.config.bot_database]))
        await counters.turns_written(turns)
    finally:
        await client.close()


def test_totals_charts_and_answers_per_interaction(page: Page, stack: Stack) -> None:
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    story_id = call(page, stack, "POST", "/stories", {"name": "Counted", "description": ""})["id"]
    hours = {"name": "Opening hours", "userSays": ["when are you open"]}
    hours_id = call(page, stack, "POST", f"/stories/{story_id}/interactions", hours)["id"]
    story = call(page, stack, "GET", f"/stories/{story_id}")
    fallback_id = next(i["id"] for i in story["interactions"].values() if i["name"] == "Fallback")
    opening = AnsweredBy(hours_id, "Opening hours", "standard")
    fallback = AnsweredBy(fallback_id, "Fallback", "fallback")
    now = utcnow()
    turns = [
        TurnRecord("a", story_id, f"s{n}", now - timedelta(hours=n), "matched", interaction=opening)
        for n in range(6)
    ] + [TurnRecord("a", story_id, "s0", now, "fallback", interaction=fallback, latency_ms=12.0)]
    first_day = now - timedelta(days=20)  # out of the 7 days the page once opened on
    turns.append(TurnRecord("a", story_id, "early", first_day, "matched", interaction=opening))
    turns.append(
        TurnRecord("a", story_id, "w", now, "matched", interaction=opening, default_source="widget")
    )
    with ThreadPoolExecutor(1) as thread:  # Playwright's sync API may hold this thread's loop
        thread.submit(asyncio.run, count(stack, turns)).result()

    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    page.get_by_role("link", name="Analytics").click()
    loaded(page)
    totals = page.locator("#analytics-totals")
    expect(totals).to_contain_text("Conversations8")
    expect(totals).to_contain_text("Messages9")
    expect(totals).to_contain_text("Containment87.5 %")
    for chart in ("#chart-messages", "#chart-fallbacks"):
        expect(page.locator(f"{chart} canvas")).to_have_count(1)
        box = page.locator(f"{chart} canvas").bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100, (chart, box)
    expect(page.locator("#chart-messages .u-legend")).to_contain_text("Conversations")
    rows = page.locator("#analytics-interactions tbody tr")
    expect(rows).to_have_text(["Opening hours8", "Fallback1", "Welcome0"])
    screenshot(page, "analytics")

    page.get_by_label("by").select_option("hour")
    expect(page.locator("body")).to_have_attribute("data-charted", "first:hour")
    expect(page.locator("#chart-messages canvas")).to_have_count(1)

    page.get_by_label("Range").select_option("7")
    expect(page.locator("body")).to_have_attribute("data-charted", "7:hour")
    expect(totals).to_contain_text("Conversations7")
    page.get_by_label("Source").fill("widget")
    page.get_by_label("Source").press("Enter")
    expect(totals).to_contain_text("Conversations1")
    expect(totals).to_contain_text("Messages1")

    page.set_viewport_size({"width": 360, "height": 800})
    page.reload()
    loaded(page)
    expect(page.locator("#chart-fallbacks canvas")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "analytics-360px")
    assert problems == [], problems
