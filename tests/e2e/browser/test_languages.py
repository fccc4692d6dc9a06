"""A story in several languages in the console (docs/console.md "Languages"): its further
languages in the settings, a variant per language in the interaction and entity editors
with what is missing marked, the test chat and the widget answering in the language
chosen."""

from typing import Any

from playwright.sync_api import Locator, Page, expect

from support.browser import Stack, call, loaded, screenshot, sign_in

SIZE = {
    "name": "pizzasize",
    "entries": [
        {"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]},
        {"value": "small", "synonyms": [{"value": "small"}]},
    ],
}
ORDER = {
    "name": "Order",
    "userSays": ["I want a {{pizzasize:size}} pizza"],
    "parameters": [{"alias": "size", "entity": "pizzasize", "prompts": ["Which size?"]}],
    "responses": [{"type": "text", "messages": ["One {{size}} pizza coming."]}],
}


def story_in(page: Page, stack: Stack, languages: list[str]) -> str:
    story = {"name": "Pizza", "description": "", "settings": {"languages": languages}}
    return str(call(page, stack, "POST", "/stories", story)["id"])


def entity(page: Page, stack: Stack, body: dict[str, Any]) -> str:
    """The account's entity of that name, made or written over with `body`."""
    known = {e["name"]: e["id"] for e in call(page, stack, "GET", "/entities?limit=200")}
    if body["name"] in known:
        return str(call(page, stack, "PUT", f"/entities/{known[body['name']]}", body)["id"])
    return str(call(page, stack, "POST", "/entities", body)["id"])


def open_editor(page: Page, stack: Stack, story_id: str, interaction_id: str) -> None:
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/interactions/{interaction_id}")
    loaded(page)


def save(page: Page) -> None:
    with page.expect_response(lambda response: response.request.method == "PUT") as saved:
        page.get_by_role("button", name="Save", exact=True).click()
    assert saved.value.ok, saved.value.text()
    expect(page.locator("#notice")).to_have_text("Saved.")


def missing_badge(tab: Locator) -> Locator:
    return tab.locator(".badge.missing")


def test_a_german_variant_is_edited_in_its_tab_saved_and_read_again(
    page: Page, stack: Stack
) -> None:
    entity(page, stack, SIZE)
    story_id = story_in(page, stack, ["de"])
    path = f"/stories/{story_id}/interactions"
    order_id = call(page, stack, "POST", path, ORDER)["id"]
    before = call(page, stack, "GET", f"{path}/{order_id}")
    sign_in(page, stack)
    open_editor(page, stack, story_id, order_id)

    tabs = page.get_by_role("tablist", name="Languages")
    default = tabs.get_by_role("tab", name="English (en), default")
    german = tabs.get_by_role("tab", name="German (de)")
    expect(default).to_have_attribute("aria-selected", "true")
    expect(missing_badge(german)).to_be_visible()
    german.click()
    panel = page.get_by_role("tabpanel", name="German (de)")
    expect(panel).to_be_visible()
    expect(page.locator("#default-language")).to_be_hidden()
    for note in ("phrases are read", "size is asked for", "responses are said"):
        expect(panel.locator(".missing-note", has_text=note)).to_be_visible()

    phrases = panel.get_by_label("User says in German (de)")
    expect(phrases).to_have_attribute("lang", "de")
    phrases.fill("Ich möchte eine {{pizzasize:size}} Pizza")
    expect(panel.locator(".phrases mark")).to_have_text("{{pizzasize:size}}")
    expect(panel.locator(".missing-note", has_text="phrases are read")).to_be_hidden()
    expect(missing_badge(german)).to_be_visible()  # the prompts and responses still lack
    prompts = panel.get_by_role("group", name="Prompts for size")
    prompts.get_by_role("button", name="Add a prompt").click()
    prompts.get_by_label("Prompt 1", exact=True).fill("Welche Größe?")
    panel.get_by_label("Add a response").select_option("text")
    panel.get_by_role("button", name="Add", exact=True).click()
    panel.get_by_label("Message 1", exact=True).fill("Eine {{size}} Pizza kommt.")
    panel.get_by_label("Add a response").select_option("quickReply")
    panel.get_by_role("button", name="Add", exact=True).click()
    panel.locator('[data-field="translations.de.responses.1.title"]').fill("Noch etwas?")
    panel.get_by_label("Reply 1", exact=True).fill("Getränke")
    panel.get_by_label("Add a response").select_option("card")
    panel.get_by_role("button", name="Add", exact=True).click()
    card = panel.locator('[data-field="translations.de.responses.2"]')
    card.locator('[data-field="translations.de.responses.2.title"]').fill("Speisekarte")
    card.get_by_role("button", name="Add a button").click()
    card.get_by_label("Button 1 title").fill("Öffnen")
    card.get_by_label("Button 1 postback or URL").fill("https://example.com/karte")
    expect(missing_badge(german)).to_be_hidden()
    save(page)
    screenshot(page, "interaction-editor-german")

    saved = call(page, stack, "GET", f"{path}/{order_id}")
    assert saved["translations"] == {
        "de": {
            "userSays": ["Ich möchte eine {{pizzasize:size}} Pizza"],
            "parameters": [{"alias": "size", "prompts": ["Welche Größe?"]}],
            "responses": [
                {"type": "text", "messages": ["Eine {{size}} Pizza kommt."]},
                {"type": "quickReply", "title": "Noch etwas?", "replies": ["Getränke"]},
                {
                    "type": "card",
                    "title": "Speisekarte",
                    "subtitle": "",
                    "imageUrl": "",
                    "buttons": [{"title": "Öffnen", "postback": "https://example.com/karte"}],
                },
            ],
        }
    }
    assert {k: v for k, v in saved.items() if k != "translations"} == before

    page.reload()
    loaded(page)
    expect(missing_badge(german)).to_be_hidden()
    german.click()
    expect(phrases).to_have_value("Ich möchte eine {{pizzasize:size}} Pizza")
    expect(panel.get_by_label("Message 1", exact=True)).to_have_value("Eine {{size}} Pizza kommt.")
    expect(prompts.get_by_label("Prompt 1", exact=True)).to_have_value("Welche Größe?")

    # Emptied, the tab removes the German variant: the badge is back, the read has none.
    phrases.fill("")
    expect(missing_badge(german)).to_be_visible()
    prompts.get_by_role("button", name="Remove prompt 1").click()
    for _ in range(3):
        panel.get_by_role("button", name="Remove response 1").click()
    save(page)
    assert "translations" not in call(page, stack, "GET", f"{path}/{order_id}")
    expect(missing_badge(german)).to_be_visible()


def test_a_story_of_one_language_has_no_language_tabs(page: Page, stack: Stack) -> None:
    story_id = story_in(page, stack, [])
    order_id = call(page, stack, "POST", f"/stories/{story_id}/interactions", ORDER)["id"]
    sign_in(page, stack)
    open_editor(page, stack, story_id, order_id)
    expect(page.get_by_role("tablist")).to_have_count(0)
    expect(page.locator("#default-language")).to_be_visible()
    expect(page.locator("#default-language")).not_to_have_attribute("role", "tabpanel")
    expect(page.locator("#translations")).to_be_empty()
    before = call(page, stack, "GET", f"/stories/{story_id}/interactions/{order_id}")
    with page.expect_request(lambda request: request.method == "PUT") as sent:
        page.get_by_role("button", name="Save", exact=True).click()
    assert "translations" not in sent.value.post_data_json
    expect(page.locator("#notice")).to_have_text("Saved.")
    assert call(page, stack, "GET", f"/stories/{story_id}/interactions/{order_id}") == before
