"""The console's History page in Chromium: the conversations of a story, and a
transcript that says why each turn matched."""

import time

from playwright.sync_api import Page, expect

from support import languages
from support.browser import Stack, call, loaded, screenshot, sign_in


def test_the_history_lists_conversations_and_explains_each_turn(page: Page, stack: Stack) -> None:
    story_id = call(page, stack, "POST", "/stories", {"name": "Pizzeria", "description": ""})["id"]
    order = {
        "name": "Order",
        "userSays": ["I want a pizza", "order a pizza please"],
        "responses": [{"type": "text", "messages": ["One pizza coming."]}],
    }
    call(page, stack, "POST", f"/stories/{story_id}/interactions", order)
    tried = {"sessionId": "tried", "storyId": story_id, "query": "I want a pizza"}
    call(page, stack, "POST", "/query", {**tried, "parameters": {"default_source": "console"}})
    for session, message in (("visitor-1", "I want a pizza"), ("visitor-2", "is the moon round")):
        turn = {"sessionId": session, "storyId": story_id, "query": message}
        call(page, stack, "POST", "/query", turn)
    deadline = time.monotonic() + 15  # turns are written behind /query
    path = f"/stories/{story_id}/conversations"
    while len(call(page, stack, "GET", path)["items"]) < 3 and time.monotonic() < deadline:
        page.wait_for_timeout(200)

    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    page.get_by_role("link", name="History").click()
    loaded(page)
    conversations = page.locator("#conversation-list li")
    expect(conversations).to_have_count(3)
    expect(conversations.first).to_contain_text("visitor-2")
    expect(conversations.first).to_contain_text("1 fell back")

    page.get_by_role("button", name="visitor-1").click()
    turn = page.locator("#transcript .turn").first
    expect(turn).to_contain_text("I want a pizza")
    expect(turn).to_contain_text("Answered by Order (standard). Score 1.00 ≥ threshold 0.50.")
    expect(turn).to_contain_text("One pizza coming.")
    turn.get_by_text("Candidates").click()
    expect(turn.locator(".candidates li").first).to_have_text("Order: 1.00")
    screenshot(page, "history")

    page.get_by_label("Test chat").select_option("true")
    page.get_by_role("button", name="Filter").click()
    expect(conversations).to_have_count(1)
    page.get_by_role("button", name="tried").click()
    expect(page.locator("#transcript .turn").first).to_contain_text("console, test chat")
    page.get_by_label("Test chat").select_option("false")

    page.get_by_label("Outcome").select_option("fallback")
    page.get_by_role("button", name="Filter").click()
    expect(conversations).to_have_count(1)
    expect(conversations.first).to_contain_text("visitor-2")
    conversations.first.get_by_role("button").click()
    expect(page.locator("#transcript .turn").first).to_contain_text("threshold 0.50")
    expect(page.locator("#transcript .turn").first).to_have_attribute("data-outcome", "fallback")

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete this conversation").click()
    expect(page.locator("#notice")).to_have_text("Deleted.")
    expect(conversations).to_have_text(["No conversation yet."])
    listed = [c["sessionId"] for c in call(page, stack, "GET", path)["items"]]
    assert listed == ["visitor-1", "tried"]


def recorded(page: Page, stack: Stack, story_id: str, count: int) -> None:
    """Waits until the story lists `count` conversations (turns are written behind /query)."""
    deadline = time.monotonic() + 15
    path = f"/stories/{story_id}/conversations"
    while len(call(page, stack, "GET", path)["items"]) < count and time.monotonic() < deadline:
        page.wait_for_timeout(200)


def test_a_story_of_several_languages_tags_each_turn_and_filters_by_language(
    page: Page, stack: Stack
) -> None:
    body = {"name": "Shop", "description": "", "settings": {"languages": ["de", "fr"]}}
    story_id = call(page, stack, "POST", "/stories", body)["id"]
    call(page, stack, "POST", f"/stories/{story_id}/interactions", languages.HOURS)
    plain = call(page, stack, "POST", "/stories", {"name": "Plain", "description": ""})["id"]
    for story, session, query, language in (
        (story_id, "anna", "wann habt ihr geöffnet", "de"),
        (story_id, "chloe", "quand êtes-vous ouverts", "fr"),
        (story_id, "bert", "when are you open", "en"),
        (plain, "dora", "when are you open", "en"),
    ):
        turn = {"sessionId": session, "storyId": story, "query": query}
        call(page, stack, "POST", "/query", {**turn, "parameters": {"default_language": language}})
    recorded(page, stack, story_id, 3)
    recorded(page, stack, plain, 1)

    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/history")
    loaded(page)
    conversations = page.locator("#conversation-list li")
    expect(conversations).to_have_count(3)
    page.get_by_role("button", name="anna").click()
    german = page.locator("#transcript .turn").first
    expect(german.locator("[data-language]")).to_have_text("de")
    expect(german.locator("[data-language]")).to_have_attribute("title", "German (de)")
    expect(german.locator(".said")).to_have_attribute("lang", "de")
    expect(german).to_contain_text("9 bis 17 Uhr.")
    page.get_by_role("button", name="chloe").click()
    expect(page.locator("#transcript .turn [data-language]")).to_have_text("fr → answered in en")

    language = page.get_by_label("Language")
    expect(language.locator("option")).to_have_text(
        ["Any", "English (en)", "German (de)", "French (fr)"]
    )
    language.select_option("de")
    page.get_by_role("button", name="Filter").click()
    expect(conversations).to_have_count(1)
    expect(conversations.first).to_contain_text("anna")
    language.select_option("en")
    page.get_by_label("Outcome").select_option("fallback")
    page.get_by_role("button", name="Filter").click()
    expect(conversations).to_have_text(["No conversation yet."])
    page.get_by_label("Outcome").select_option("")
    page.get_by_role("button", name="Filter").click()
    expect(conversations).to_have_count(1)
    expect(conversations.first).to_contain_text("bert")

    page.goto(f"{stack.bot_api}/console/stories/{plain}/history")
    loaded(page)
    filter_box = page.locator("#history-filter [data-languages]")
    expect(filter_box).to_have_count(1)
    expect(filter_box).to_be_hidden()
    page.get_by_role("button", name="dora").click()
    expect(page.locator("#transcript .turn")).to_contain_text("when are you open")
    expect(page.locator("#transcript [data-language]")).to_have_count(0)
