"""The story page's Versions section in Chromium: freeze with a note, the diff with the
draft, publish (the public key then answers from the version) and unpublish, restore
(docs/versions.md)."""

from typing import Any

from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, sign_in


def story_with_order(page: Page, stack: Stack) -> tuple[str, str]:
    story_id = str(
        call(page, stack, "POST", "/stories", {"name": "Versioned", "description": ""})["id"]
    )
    order = {
        "name": "Order",
        "userSays": ["a pizza please"],
        "responses": [{"type": "text", "messages": ["Pizza is coming"]}],
    }
    order_id = str(call(page, stack, "POST", f"/stories/{story_id}/interactions", order)["id"])
    return story_id, order_id


def public_answer(page: Page, stack: Stack, story_id: str) -> list[str]:
    response = page.request.post(
        f"{stack.bot_api}/query",
        data={"storyId": story_id, "sessionId": "browser", "query": "a pizza please"},
        headers={"Authorization": f"Bearer {stack.tokens.public_key}"},
    )
    result: dict[str, Any] = response.json()["result"]
    return [item["message"] for item in result["fulfillment"] if item["type"] == "text"]


def test_freeze_diff_publish_unpublish_and_restore(page: Page, stack: Stack) -> None:
    story_id, order_id = story_with_order(page, stack)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    expect(page.locator("#versions-empty")).to_be_visible()

    page.get_by_label("Note").fill("first menu")
    page.get_by_role("button", name="Freeze a version").click()
    row = page.locator("#versions li").first
    expect(row).to_contain_text("Version 1")
    expect(row).to_contain_text("first menu")
    expect(page.locator("#versions-empty")).to_be_hidden()

    changed = {
        "responses": [{"type": "text", "messages": ["Sold out"]}],
        "userSays": ["a pizza please", "pizza now"],
    }
    call(page, stack, "PUT", f"/stories/{story_id}/interactions/{order_id}", changed)
    page.get_by_role("button", name="Diff Version 1 with the draft").click()
    diff = page.locator("#version-diff")
    expect(diff.get_by_role("heading", name="Version 1 → the draft")).to_be_visible()
    expect(diff).to_contain_text("Order: userSays, responses (+ “pizza now”)")
    responses = diff.get_by_role("table", name="responses")
    expect(responses.get_by_role("cell").first).to_contain_text("Pizza is coming")
    expect(responses.get_by_role("cell").last).to_contain_text("Sold out")

    page.get_by_role("button", name="Publish Version 1", exact=True).click()
    expect(row.locator(".badge")).to_have_text("published")
    assert public_answer(page, stack, story_id) == ["Pizza is coming"]

    page.get_by_role("button", name="Unpublish Version 1").click()
    expect(page.get_by_role("button", name="Publish Version 1", exact=True)).to_be_visible()
    assert public_answer(page, stack, story_id) == ["Sold out"]

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Restore Version 1").click()
    expect(page.locator("#notice")).to_have_text("The draft is Version 1 again.")
    assert public_answer(page, stack, story_id) == ["Pizza is coming"]
