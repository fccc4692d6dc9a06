"""The console in headless Chromium: sign in, build a story, chat with it, see errors."""

import re
import time

from playwright.sync_api import Page, expect

from support.browser import Stack, call, free_port, loaded, screenshot, sign_in


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
    expect(page.get_by_label("Language (its welcome greets and answers in it)")).to_have_value(
        "english"
    )
    page.get_by_role("button", name="Create story").click()
    expect(page.locator("#story-title")).to_have_text("Pizza")
    story_url = page.url

    # A root interaction with an entity parameter, a text and a quick reply.
    page.get_by_label("New interaction").fill("Order")
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.locator("#interaction-title")).to_have_text("Order (standard)")
    loaded(page)
    page.get_by_label("User says").fill("I want a {{size:size}} pizza")
    expect(page.locator("#usersays-preview mark")).to_have_text("{{size:size}}")
    page.get_by_label("Add a response").select_option("text")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_label("Message 1", exact=True).fill("One {{size}} pizza coming up!")
    page.get_by_label("Add a response").select_option("quickReply")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator('[data-field="responses.1.title"]').fill("Something to drink?")
    page.get_by_label("Reply 1", exact=True).fill("Drinks")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#notice")).to_have_text("Saved.")
    expect(page.locator('[data-field="parameters.0.entity"]')).to_have_value("size")
    screenshot(page, "interaction-editor")

    # A child interaction that follows Order.
    page.goto(story_url)
    loaded(page)
    page.get_by_label("New interaction").fill("Drinks")
    page.locator("#new-interaction-parent").select_option(label="Order")
    page.get_by_role("button", name="Create", exact=True).click()
    expect(page.locator("#interaction-title")).to_have_text("Drinks (standard)")
    loaded(page)
    page.get_by_label("User says").fill("drinks")
    page.get_by_label("Add a response").select_option("text")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_label("Message 1", exact=True).fill("Cola or water?")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#notice")).to_have_text("Saved.")

    page.goto(story_url)
    loaded(page)
    order = page.locator("#tree > li", has_text="Order")
    expect(order.locator("ul li")).to_contain_text("Drinks")

    page.get_by_label("Message", exact=True).fill("I want a large pizza")
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
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scrolling
    screenshot(page, "story-360px")

    page.get_by_role("button", name="Reset").click()
    expect(log).to_be_empty()

    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r"/console/$"))
    assert page.evaluate("sessionStorage.length") == 0
    page.goto(story_url)
    page.wait_for_url(re.compile(r"/console/$"))


def test_a_validation_error_appears_next_to_its_field(page: Page, stack: Stack) -> None:
    story_id = call(page, stack, "POST", "/stories", {"name": "Limits", "description": ""})["id"]
    created = call(page, stack, "POST", f"/stories/{story_id}/interactions", {"name": "Ask"})
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/interactions/{created['id']}")
    loaded(page)
    page.get_by_label("Add a response").select_option("quickReply")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator('[data-field="responses.0.title"]').fill("Pick one")
    page.get_by_label("Reply 1", exact=True).fill("yes")
    for number, text in ((2, "no"), (3, "a reply of twenty-five ch")):
        page.get_by_role("button", name="Add a reply").click()
        page.get_by_label(f"Reply {number}", exact=True).fill(text)
    replies = page.get_by_role("group", name="Replies")
    expect(replies.locator(".inline .counter")).to_have_text("3/11 replies")
    third = page.get_by_label("Reply 3", exact=True)
    expect(third.locator("xpath=following-sibling::span[1]")).to_have_class("counter over")
    page.get_by_role("button", name="Save", exact=True).click()

    error = page.locator('.field-error[data-error-path="responses.0.replies.2"]')
    expect(error).to_contain_text("20")
    expect(third).to_have_attribute("aria-invalid", "true")
    expect(third).to_have_attribute("aria-describedby", error.get_attribute("id") or "")
    assert error.evaluate("e => e.previousElementSibling.contains(document.querySelector("
                          "'[data-field=\"responses.0.replies.2\"]'))")  # fmt: skip
    screenshot(page, "validation-error")


def test_a_connection_shows_its_last_delivery_error(page: Page, stack: Stack) -> None:
    story_id = call(page, stack, "POST", "/stories", {"name": "Hooks", "description": ""})["id"]
    closed = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens there
    connection = {"storyId": story_id, "name": "Orders backend", "url": closed}
    connection_id = call(page, stack, "POST", "", connection, base=connections_api(stack))["id"]
    hooked = {"name": "Status", "userSays": ["status"], "webhook": connection_id}
    call(page, stack, "POST", f"/stories/{story_id}/interactions", hooked)
    call(page, stack, "POST", "/query", {"sessionId": "s", "storyId": story_id, "query": "status"})

    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/connections")
    card = page.locator(f'[data-connection="{connection_id}"]')
    expect(card).to_contain_text("Orders backend")
    deadline = time.monotonic() + 30  # the failure travels bot-api -> NATS -> integrations-api
    while not card.locator(".delivery-error").count() and time.monotonic() < deadline:
        page.wait_for_timeout(500)
        page.reload()
        expect(card).to_be_visible()
    expect(card.locator(".delivery-error")).to_contain_text("Last delivery failed")
    screenshot(page, "connections")
    # The console pages through connections across origins: it must read the total.
    token = stack.tokens.developer_token
    total = page.evaluate(CROSS_ORIGIN_TOTAL, [connections_api(stack), token])
    assert total is not None and int(total) >= 1


CROSS_ORIGIN_TOTAL = """async ([url, token]) => {
  const headers = {Authorization: "Bearer " + token};
  return (await fetch(url + "?limit=1", {headers})).headers.get("X-Total-Count");
}"""


def connections_api(stack: Stack) -> str:
    return f"{stack.integrations_api}/v2/integrations/webhook"


def test_the_interaction_editor_at_360px(page: Page, stack: Stack) -> None:
    """Usable on a phone: wide fields, the story's language, a parameter marked by
    selecting its word, the notice in view after a save, the test chat a tap away."""
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    call(page, stack, "POST", "/entities", {"name": "vessel", "entries": [
        {"value": "vase", "synonyms": [{"value": "vase"}]}]})  # fmt: skip
    settings = {"language": "spanish"}
    story = {"name": "Flores", "description": "", "settings": settings}
    story_id = call(page, stack, "POST", "/stories", story)["id"]
    send = {"name": "Send", "responses": [{"type": "text", "messages": ["Vale."]}]}
    created = call(page, stack, "POST", f"/stories/{story_id}/interactions", send)["id"]
    page.set_viewport_size({"width": 360, "height": 800})
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/interactions/{created}")
    loaded(page)

    messages = page.get_by_label("Message 1", exact=True)
    assert messages.bounding_box()["width"] >= 300  # type: ignore[index]
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    expect(messages).to_have_attribute("lang", "es")
    phrases = page.get_by_label("User says")
    expect(phrases).to_have_attribute("lang", "es")

    phrases.fill("quiero un vase")
    phrases.evaluate("area => area.setSelectionRange(10, 14)")  # "vase"
    page.get_by_label("Selected words are a value of").select_option("vessel")
    page.get_by_role("button", name="Mark as parameter").click()
    expect(phrases).to_have_value("quiero un {{vessel:vessel}}")
    expect(page.locator('[data-field="parameters.0.entity"]')).to_have_value("vessel")
    expect(page.locator("#usersays-preview mark")).to_have_text("{{vessel:vessel}}")

    page.get_by_role("button", name="Save", exact=True).click()
    notice = page.locator("#notice")
    expect(notice).to_have_text("Saved.")
    expect(notice).to_be_in_viewport()
    screenshot(page, "interaction-editor-360px")
    saved = call(page, stack, "GET", f"/stories/{story_id}/interactions/{created}")
    assert saved["userSays"] == ["quiero un {{vessel:vessel}}"]

    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    expect(page.get_by_label("Language", exact=True)).to_have_value("spanish")
    page.get_by_role("link", name="Test chat").click()
    expect(page.get_by_label("Message", exact=True)).to_be_in_viewport()
    assert not missing, missing
    favicon = page.request.get(f"{stack.bot_api}/favicon.ico")
    assert (favicon.status, favicon.headers["content-type"]) == (200, "image/svg+xml")


def test_lists_are_shown_a_page_at_a_time(page: Page, stack: Stack) -> None:
    total = len(call(page, stack, "GET", "/entities"))
    for n in range(51 - total if total < 51 else 0):
        entity = {"name": f"paged{n}", "entries": [{"value": "x", "synonyms": [{"value": "x"}]}]}
        call(page, stack, "POST", "/entities", entity)
    total = max(total, 51)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/entities")
    loaded(page)
    cards = page.locator("#entity-list > li")
    expect(cards).to_have_count(50)
    pages = page.get_by_role("navigation", name="Pages")
    expect(pages).to_contain_text(f"1\N{EN DASH}50 of {total}")
    pages.get_by_role("button", name="Next page").click()
    expect(pages).to_contain_text(f"51\N{EN DASH}{total} of {total}")
    expect(cards).to_have_count(total - 50)


def open_a_new_story(page: Page, stack: Stack) -> str:
    """A new story's page, signed in; the story's id."""
    story_id = call(page, stack, "POST", "/stories", {"name": "Desk", "description": ""})["id"]
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    return str(story_id)


def test_the_story_settings_form_sets_the_timezone_and_the_history(
    page: Page, stack: Stack
) -> None:
    story_id = open_a_new_story(page, stack)
    expect(page.get_by_label("Timezone")).to_have_value("UTC")
    expect(page.get_by_label("Keep a history of conversations")).to_be_checked()
    expect(page.get_by_label("Misses inbox: review matches scoring below")).to_have_value("")
    any_language = page.get_by_label("Understand messages in any language")
    expect(any_language).not_to_be_checked()
    expect(any_language).to_have_accessible_description(re.compile("multilingual model"))

    page.get_by_label("Timezone").fill("Europe/Berlin")
    any_language.check()
    page.get_by_label("Keep a history of conversations").uncheck()
    page.get_by_label("Keep turns for").fill("7")
    page.get_by_label("Misses inbox: review matches scoring below").fill("0.7")
    generating = page.get_by_label("Write knowledge answers with the LLM")
    expect(generating).not_to_be_checked()
    generating.check()
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator("#notice")).to_contain_text("Saved")

    settings = call(page, stack, "GET", f"/stories/{story_id}")["settings"]
    assert (settings["timezone"], settings["history"], settings["historyDays"]) == (
        "Europe/Berlin",
        False,
        7,
    )
    assert (settings["redact"], settings["reviewBelow"]) == (True, 0.7)
    assert settings["answerAnyLanguage"] is True
    assert settings["generateKnowledgeAnswers"] is True
    page.reload()
    loaded(page)
    expect(any_language).to_be_checked()
    expect(generating).to_be_checked()

    page.get_by_label("Timezone").fill("Mars/Olympus")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator('.field-error[data-error-path="settings.timezone"]')).to_contain_text(
        "IANA"
    )


def test_the_story_settings_form_sets_what_the_user_is_told_back_from_the_desk(
    page: Page, stack: Stack
) -> None:
    story_id = open_a_new_story(page, stack)
    told = page.get_by_label("Message when a conversation goes back to the bot")
    expect(told).to_have_value("You are talking to the bot again.")
    expect(told).to_have_accessible_description(re.compile("agent desk gives the conversation"))

    told.fill("The bot is back. Type 'menu'.")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator("#notice")).to_contain_text("Saved")
    page.reload()
    loaded(page)
    expect(told).to_have_value("The bot is back. Type 'menu'.")
    settings = call(page, stack, "GET", f"/stories/{story_id}")["settings"]
    assert settings["handoffReturnMessage"] == "The bot is back. Type 'menu'."

    told.fill("")
    page.get_by_role("button", name="Save settings").click()
    error = page.locator('.field-error[data-error-path="settings.handoffReturnMessage"]')
    expect(error).to_contain_text("Length must be between 1 and 4096")
    expect(told).to_have_attribute("aria-invalid", "true")
    settings = call(page, stack, "GET", f"/stories/{story_id}")["settings"]
    assert settings["handoffReturnMessage"] == "The bot is back. Type 'menu'."
