"""The console in headless Chromium: sign in, build a story, chat with it, see errors."""

import re

from playwright.sync_api import Page, expect

from support.browser import Stack, screenshot, sign_in


def test_sign_in_build_a_story_and_chat_in_the_test_panel(page: Page, stack: Stack) -> None:
    sign_in(page, stack)
    assert stack.tokens.developer_token not in page.url
    screenshot(page, "stories")

    page.get_by_role("link", name="Entities").click()
    page.get_by_label("Name (letters, digits, _ and -)").fill("size")
    page.get_by_label("Values (comma-separated)").fill("small, large")
    page.get_by_role("button", name="Create entity").click()
    expect(page.get_by_role("link", name="size")).to_be_visible()

    page.get_by_role("link", name="Stories").click()
    page.locator("#new-story-name").fill("Pizza")
    page.get_by_role("button", name="Create story").click()
    expect(page.locator("#story-title")).to_have_text("Pizza")
    story_url = page.url

    # A root interaction with an entity parameter, a text and a quick reply.
    page.get_by_label("New interaction").fill("Order")
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.locator("#interaction-title")).to_have_text("Order (standard)")
    page.get_by_label("User says").fill("I want a {{size:size}} pizza")
    expect(page.locator("#usersays-preview mark")).to_have_text("{{size:size}}")
    page.get_by_label("Add a response").select_option("text")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator('[data-field="responses.0.messages"]').fill("One {{size}} pizza coming up!")
    page.get_by_label("Add a response").select_option("quickReply")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator('[data-field="responses.1.title"]').fill("Something to drink?")
    page.locator('[data-field="responses.1.replies"]').fill("Drinks")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#notice")).to_have_text("Saved.")
    expect(page.locator('[data-field="parameters.0.entity"]')).to_have_value("size")
    screenshot(page, "interaction-editor")

    # A child interaction that follows Order.
    page.goto(story_url)
    page.get_by_label("New interaction").fill("Drinks")
    page.locator("#new-interaction-parent").select_option(label="Order")
    page.get_by_role("button", name="Create", exact=True).click()
    page.get_by_label("User says").fill("drinks")
    page.get_by_label("Add a response").select_option("text")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator('[data-field="responses.0.messages"]').fill("Cola or water?")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#notice")).to_have_text("Saved.")

    page.goto(story_url)
    order = page.locator("#tree > li", has_text="Order")
    expect(order.locator("ul li")).to_contain_text("Drinks")

    page.get_by_label("Message").fill("I want a large pizza")
    page.get_by_role("button", name="Send", exact=True).click()
    log = page.locator("#chat-log")
    expect(log).to_contain_text("One large pizza coming up!")
    expect(page.locator("#chat-debug")).to_contain_text("Matched: Order")
    expect(page.locator(".candidates")).to_contain_text("Order")
    expect(page.locator("#chat-parameters")).to_contain_text("large")
    expect(page.locator("#chat-contexts")).to_contain_text("Order")
    log.get_by_role("button", name="Drinks").click()
    expect(log).to_contain_text("Cola or water?")
    expect(page.locator("#chat-debug")).to_contain_text("Matched: Drinks")
    screenshot(page, "story")

    page.get_by_role("button", name="Reset").click()
    expect(log).to_be_empty()

    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r"/console/$"))
    assert page.evaluate("sessionStorage.length") == 0
    page.goto(story_url)
    page.wait_for_url(re.compile(r"/console/$"))
