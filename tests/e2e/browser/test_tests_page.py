"""The console's conversation tests in Chromium: the Tests page lists a story's tests with
the last run's verdicts, runs them, shows the difference of a failing one, and marks red
what the last edit broke as soon as its run lands; the story page's test chat saves the
conversation as a test."""

import time
from typing import Any

from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, screenshot, sign_in

ORDER = {
    "name": "Order",
    "userSays": ["i want a pizza", "a pizza please"],
    "responses": [{"type": "text", "messages": ["One pizza coming up!"]}],
}
ORDERS_A_PIZZA: dict[str, Any] = {
    "name": "orders a pizza",
    "turns": [{"query": "i want a pizza", "expect": {"interaction": "Order"}}],
}


def pizza(page: Page, stack: Stack) -> str:
    story_id = str(
        call(page, stack, "POST", "/stories", {"name": "Pizza", "description": ""})["id"]
    )
    call(page, stack, "POST", f"/stories/{story_id}/interactions", ORDER)
    return story_id


def wait_for_the_run_after_the_edit(page: Page, stack: Stack, story_id: str) -> None:
    """The page reads the last run once as it loads; the run lands after the 0.5 s debounce
    and the run itself, later on a loaded machine."""
    deadline = time.monotonic() + 30
    while not page.request.get(
        f"{stack.bot_api}/stories/{story_id}/tests/last",
        headers={"Authorization": f"Bearer {stack.tokens.developer_token}"},
    ).ok:
        assert time.monotonic() < deadline, "the run after the edit never landed"
        time.sleep(0.1)


def test_the_tests_page_runs_tests_and_marks_what_an_edit_broke(page: Page, stack: Stack) -> None:
    story_id = pizza(page, stack)
    test_id = call(page, stack, "POST", f"/stories/{story_id}/tests", ORDERS_A_PIZZA)["id"]
    wait_for_the_run_after_the_edit(page, stack, story_id)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/tests")
    loaded(page)
    item = page.locator(f'[data-test="{test_id}"]')
    expect(item.get_by_role("heading")).to_have_text("orders a pizza")
    expect(page.locator("#tests-summary")).to_have_text("Tests: 1 passed, 0 failed")

    page.get_by_role("button", name="Run the tests now").click()
    expect(item.locator(".verdict")).to_have_text("1 turn · passed")

    item.get_by_role("button", name="Edit").click()
    wrong = [{"query": "i want a pizza", "expect": {"interaction": "Drinks"}}]
    page.get_by_label("Turns (JSON)").fill(str(wrong).replace("'", '"'))
    page.get_by_role("button", name="Save test").click()
    expect(page.locator("#tests-summary")).to_have_text(
        "Tests: 0 passed, 1 failed — broken by the last edit: orders a pizza"
    )
    expect(item).to_have_class("test failed broken")
    expect(item.locator(".verdict")).to_have_text("1 turn · broken by the last edit")
    expect(item.locator('[data-role="difference"]')).to_have_text(
        'Turn 1: interaction\n  expected "Drinks"\n  got      "Order"'
    )
    screenshot(page, "console-tests")


def test_a_test_with_bad_turns_says_where(page: Page, stack: Stack) -> None:
    story_id = pizza(page, stack)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/tests")
    loaded(page)
    page.get_by_label("Name").fill("checks nothing")
    page.get_by_label("Turns (JSON)").fill('[{"query": "hi", "expect": {}}]')
    page.get_by_role("button", name="Save test").click()
    expect(page.locator(".field-error")).to_contain_text("Expect at least one of")
    assert call(page, stack, "GET", f"/stories/{story_id}/tests") == []


def test_the_test_chat_is_saved_as_a_test(page: Page, stack: Stack) -> None:
    story_id = pizza(page, stack)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    expect(page.locator("#tests-summary")).to_have_text("Tests: none run after an edit yet.")
    page.locator("#chat-input").fill("i want a pizza")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator("#chat-log")).to_contain_text("One pizza coming up!")
    page.locator("#chat-input").fill("what is the weather")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator("#chat-log .parley-user")).to_have_count(2)
    expect(page.locator("#chat-log .parley-text")).to_have_count(2)
    page.get_by_label("Save this chat as a test named").fill("from the chat")
    page.get_by_role("button", name="Save as test").click()
    expect(page.locator("#notice")).to_have_text('Saved the chat as the test "from the chat".')
    (saved,) = call(page, stack, "GET", f"/stories/{story_id}/tests")
    assert saved["name"] == "from the chat"
    assert saved["turns"] == [
        {"query": "i want a pizza", "expect": {"interaction": "Order"}},
        {"query": "what is the weather", "expect": {"fallback": True}},
    ]
    expect(page.locator("#tests-summary")).to_have_text("Tests: 1 passed, 0 failed")
