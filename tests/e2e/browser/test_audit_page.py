"""The console's Audit log page in Chromium (docs/teams.md "Audit log"): the account's
changes newest first, narrowed by the filters, the next page, and the export as JSON
lines."""

import json
from pathlib import Path

from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, sign_in

PAGE = 50  # console/static/console/audit.js


def test_the_audit_page_lists_filters_pages_and_exports(page: Page, stack: Stack) -> None:
    story_id = str(
        call(page, stack, "POST", "/stories", {"name": "Audited", "description": ""})["id"]
    )
    call(page, stack, "PUT", f"/stories/{story_id}", {"name": "Audited too", "description": ""})
    for n in range(PAGE):
        call(page, stack, "POST", f"/stories/{story_id}/interactions", {"name": f"I{n}"})
    sign_in(page, stack)
    page.get_by_role("link", name="Audit log").click()
    loaded(page)

    page.get_by_label("Story id").fill(story_id)
    page.get_by_role("button", name="Show").click()
    rows = page.locator("#audit-rows tr")
    expect(rows).to_have_count(PAGE)
    expect(rows.first).to_contain_text("interaction.create")
    expect(rows.first).to_contain_text("Developer token (developer token)")
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(PAGE + 2)
    expect(rows.nth(PAGE)).to_contain_text('name: "Audited" -> "Audited too"')
    expect(rows.last).to_contain_text("story.create")
    expect(page.get_by_role("button", name="Next page")).to_be_hidden()

    page.get_by_label("Kind (e.g. story.update)").fill("story.update")
    page.get_by_role("button", name="Show").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("story.update")

    with page.expect_download() as download:
        page.get_by_role("button", name="Export as JSON lines").click()
    assert download.value.suggested_filename == "audit.jsonl"
    lines = Path(download.value.path()).read_text().splitlines()
    exported = [json.loads(line) for line in lines]
    assert [(item["kind"], item["storyId"]) for item in exported] == [("story.update", story_id)]

    page.get_by_label("Kind (e.g. story.update)").fill("no.such-kind")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#audit-empty")).to_be_visible()
    expect(rows).to_have_count(0)
