"""A story in several languages in the console (docs/console.md "Languages"): its further
languages in the settings, a variant per language in the interaction and entity editors
with what is missing marked, the test chat and the widget answering in the language
chosen."""

from typing import Any

from playwright.sync_api import Locator, Page, expect

from support.browser import Stack, call, loaded, screenshot, sign_in, welcome_of

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


GERMAN_ORDER = {
    **ORDER,
    "translations": {
        "de": {
            "userSays": ["Ich möchte eine {{pizzasize:size}} Pizza"],
            "parameters": [{"alias": "size", "prompts": ["Welche Größe?"]}],
            "responses": [{"type": "text", "messages": ["Eine {{size}} Pizza kommt."]}],
        }
    },
}
GERMAN_SIZE = {
    **SIZE,
    "translations": {
        "de": [
            {"value": "large", "synonyms": [{"value": "groß"}, {"value": "große"}]},
            {"value": "small", "synonyms": [{"value": "klein"}, {"value": "kleine"}]},
        ]
    },
}


def story_in(page: Page, stack: Stack, languages: list[str]) -> str:
    story = {"name": "Pizza", "description": "", "settings": {"languages": languages}}
    return str(call(page, stack, "POST", "/stories", story)["id"])


def entity(page: Page, stack: Stack, body: dict[str, Any]) -> str:
    """The account's entity of that name, made or written over with `body`."""
    known = {e["name"]: e["id"] for e in call(page, stack, "GET", "/entities?limit=200")}
    if body["name"] in known:
        call(page, stack, "PUT", f"/entities/{known[body['name']]}", body)
        return str(known[body["name"]])
    return str(call(page, stack, "POST", "/entities", body)["id"])


def editing(page: Page, stack: Stack, story_id: str, body: dict[str, Any]) -> tuple[str, Any]:
    """The interaction `body` made in the story and opened in the editor: its API path
    and what the API read of it before."""
    path = f"/stories/{story_id}/interactions"
    interaction = f"{path}/{call(page, stack, 'POST', path, body)['id']}"
    before = call(page, stack, "GET", interaction)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console{interaction}")
    loaded(page)
    return interaction, before


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
    order, before = editing(page, stack, story_id, ORDER)
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
    screenshot(page, "interaction-editor-german")
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

    saved = call(page, stack, "GET", order)
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
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.set_viewport_size({"width": 1280, "height": 900})

    # Emptied, the tab removes the German variant: the badge is back, the read has none.
    phrases.fill("")
    expect(missing_badge(german)).to_be_visible()
    prompts.get_by_role("button", name="Remove prompt 1").click()
    for _ in range(3):
        panel.get_by_role("button", name="Remove response 1").click()
    save(page)
    assert "translations" not in call(page, stack, "GET", order)
    expect(missing_badge(german)).to_be_visible()


def test_a_story_of_one_language_has_no_language_tabs(page: Page, stack: Stack) -> None:
    story_id = story_in(page, stack, [])
    order, before = editing(page, stack, story_id, ORDER)
    expect(page.get_by_role("tablist")).to_have_count(0)
    expect(page.locator("#default-language")).to_be_visible()
    expect(page.locator("#default-language")).not_to_have_attribute("role", "tabpanel")
    expect(page.locator("#translations")).to_be_empty()
    with page.expect_request(lambda request: request.method == "PUT") as sent:
        page.get_by_role("button", name="Save", exact=True).click()
    assert "translations" not in sent.value.post_data_json
    expect(page.locator("#notice")).to_have_text("Saved.")
    assert call(page, stack, "GET", order) == before


def test_the_settings_edit_the_further_languages_and_show_what_the_api_refuses(
    page: Page, stack: Stack
) -> None:
    story_id = story_in(page, stack, [])
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    listed = page.locator("#story-languages")
    expect(page.locator("#story-languages-none")).to_be_visible()
    expect(page.locator("#chat-language-row")).to_be_hidden()
    adding = page.get_by_label("Add a language")
    adding.fill("german")
    page.get_by_role("button", name="Add language").click()
    adding.fill("xx")
    adding.press("Enter")  # adds it, saves nothing
    expect(listed.locator("li")).to_have_text(["German (de)Remove German (de)", "xxRemove xx"])
    save_settings = page.get_by_role("button", name="Save settings")
    save_settings.click()
    refused = page.locator('.field-error[data-error-path="settings.languages.1"]')
    expect(refused).to_contain_text("language 2: 'xx' is no story language")

    listed.get_by_role("button", name="Remove xx").click()
    adding.fill("de")
    adding.press("Enter")
    save_settings.click()
    twice = page.locator('.field-error[data-error-path="settings.languages"]')
    expect(twice).to_have_text("'de' is listed twice.")
    listed.get_by_role("button", name="Remove German (de)").last.click()
    adding.fill("fr")
    adding.press("Enter")
    save_settings.click()
    expect(page.locator("#notice")).to_have_text("Saved.")
    expect(twice).to_have_count(0)
    assert call(page, stack, "GET", f"/stories/{story_id}")["settings"]["languages"] == ["de", "fr"]

    page.reload()
    loaded(page)
    expect(listed.locator("li")).to_have_text(
        ["German (de)Remove German (de)", "French (fr)Remove French (fr)"]
    )
    expect(page.locator("#story-languages-none")).to_be_hidden()
    picker = page.get_by_label("Chat language")
    choices = ["As the story reads the message", "English (en), the default"]
    expect(picker.locator("option")).to_have_text([*choices, "German (de)", "French (fr)"])


def test_an_entity_translation_is_edited_with_its_missing_entries_marked(
    page: Page, stack: Stack
) -> None:
    german = [{"value": "large", "synonyms": [{"value": "groß"}]}]
    entity_id = entity(page, stack, {**SIZE, "translations": {"de": german}})
    plain_id = entity(page, stack, {**SIZE, "name": "plainsize"})
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/entities/{plain_id}")  # no language: no tabs
    loaded(page)
    expect(page.get_by_role("tablist")).to_have_count(0)
    expect(page.locator("#default-language")).not_to_have_attribute("role", "tabpanel")

    page.goto(f"{stack.bot_api}/console/entities/{entity_id}")
    loaded(page)
    tabs = page.get_by_role("tablist", name="Languages")
    german_tab = tabs.get_by_role("tab", name="German (de)")
    expect(missing_badge(german_tab)).to_be_visible()  # "small" has no German synonym
    german_tab.click()
    panel = page.get_by_role("tabpanel", name="German (de)")
    expect(panel.get_by_label("Synonyms of large in German (de)")).to_have_value("groß")
    small = panel.get_by_label("Synonyms of small in German (de)")
    expect(small).to_have_value("")
    expect(panel.locator(".missing-note")).to_contain_text("not recognised in German (de)")
    expect(panel.locator(".entry", has_text="small").locator(".badge.missing")).to_be_visible()
    small.fill("klein, kleine")
    expect(missing_badge(german_tab)).to_be_hidden()
    expect(panel.locator(".missing-note")).to_be_hidden()

    page.get_by_label("Say its entries in another language").fill("french")
    page.get_by_label("Say its entries in another language").press("Enter")
    french_tab = tabs.get_by_role("tab", name="French (fr)")
    expect(french_tab).to_have_attribute("aria-selected", "true")
    expect(missing_badge(french_tab)).to_be_visible()
    french = page.get_by_role("tabpanel", name="French (fr)")
    expect(french.locator(".missing-note")).to_contain_text("the default entries are read in it")
    save(page)
    screenshot(page, "entity-languages")

    saved = call(page, stack, "GET", f"/entities/{entity_id}")
    assert saved["entries"] == SIZE["entries"]
    assert saved["translations"] == {  # French, left empty, is no variant
        "de": [
            {"value": "large", "synonyms": [{"value": "groß"}]},
            {"value": "small", "synonyms": [{"value": "klein"}, {"value": "kleine"}]},
        ]
    }
    page.reload()
    loaded(page)
    expect(tabs.get_by_role("tab")).to_have_count(2)
    expect(french_tab).to_have_count(0)
    expect(missing_badge(german_tab)).to_be_hidden()

    # A language the API does not know is refused beside its tab.
    page.get_by_label("Say its entries in another language").fill("xx")
    page.get_by_role("button", name="Add language").click()
    page.get_by_label("Synonyms of large in xx").fill("grand")
    page.get_by_role("button", name="Save", exact=True).click()
    refused = page.locator('.field-error[data-error-path="translations.xx"]')
    expect(refused).to_contain_text("'xx' is no story language")


def test_the_test_chat_in_german_answers_in_german_and_says_so(page: Page, stack: Stack) -> None:
    entity(page, stack, GERMAN_SIZE)
    story_id = story_in(page, stack, ["de"])
    call(page, stack, "POST", f"/stories/{story_id}/interactions", GERMAN_ORDER)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    with page.expect_request(lambda request: request.url.endswith("/query")) as sent:
        page.get_by_label("Chat language").select_option("de")
        page.get_by_label("Message", exact=True).fill("Ich möchte eine große Pizza")
        page.get_by_role("button", name="Send", exact=True).click()
    assert sent.value.post_data_json["parameters"]["default_language"] == "de"
    log = page.locator("#chat-log")
    expect(log).to_contain_text("Eine large Pizza kommt.")
    tag = log.locator(".chat-languages").last
    expect(tag).to_have_text("read in deanswered in de")
    expect(page.locator("#chat-debug")).not_to_contain_text("null")  # no knowledge answered
    screenshot(page, "test-chat-german")

    page.get_by_label("Chat language").select_option("en")
    page.get_by_label("Message", exact=True).fill("I want a big pizza")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(log).to_contain_text("One large pizza coming.")
    expect(log.locator(".chat-languages").last).to_have_text("read in enanswered in en")
    page.get_by_label("Save this chat as a test named").fill("both languages")
    page.get_by_role("button", name="Save as test").click()
    expect(page.locator("#notice")).to_contain_text('Saved the chat as the test "both languages"')
    (saved,) = call(page, stack, "GET", f"/stories/{story_id}/tests")
    assert [(t["language"], t["expect"]["answeredIn"]) for t in saved["turns"]] == [
        ("de", "de"),
        ("en", "en"),
    ]
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_story_of_one_language_has_no_language_picker_nor_tags(page: Page, stack: Stack) -> None:
    entity(page, stack, SIZE)
    story_id = story_in(page, stack, [])
    call(page, stack, "POST", f"/stories/{story_id}/interactions", ORDER)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    expect(page.get_by_label("Chat language")).to_be_hidden()
    with page.expect_request(lambda request: request.url.endswith("/query")) as sent:
        page.get_by_label("Message", exact=True).fill("I want a big pizza")
        page.get_by_role("button", name="Send", exact=True).click()
    assert sent.value.post_data_json["parameters"] == {"default_source": "console"}
    log = page.locator("#chat-log")
    expect(log).to_contain_text("One large pizza coming.")
    expect(log.locator(".chat-languages")).to_have_count(0)


def test_the_widget_given_a_language_greets_and_answers_in_it(page: Page, stack: Stack) -> None:
    entity(page, stack, GERMAN_SIZE)
    story_id = story_in(page, stack, ["de"])
    welcome = {
        "responses": [{"type": "text", "messages": ["Hello!"]}],
        "translations": {"de": {"responses": [{"type": "text", "messages": ["Hallo!"]}]}},
    }
    path = f"/stories/{story_id}/interactions"
    call(page, stack, "PUT", f"{path}/{welcome_of(page, stack, story_id)}", welcome)
    call(page, stack, "POST", path, GERMAN_ORDER)
    demo = f"{stack.bot_api}/chat/{story_id}?key={stack.tokens.public_key}"

    page.goto(demo)  # Chromium's own language: English
    page.get_by_role("button", name="Chat").click()
    expect(page.locator(".parley-log")).to_contain_text("Hello!")

    page.goto(f"{demo}&language=de")
    widget = page.locator('script[src="/widget.js"]')
    expect(widget).to_have_attribute("data-language", "de")
    with page.expect_request(lambda request: request.url.endswith("/query")) as sent:
        page.get_by_role("button", name="Chat").click()
    assert sent.value.post_data_json["parameters"]["default_language"] == "de"
    log = page.locator(".parley-log")
    expect(log).to_contain_text("Hallo!")
    page.get_by_label("Your message").fill("Ich möchte eine kleine Pizza")
    page.get_by_role("button", name="Send").click()
    expect(log).to_contain_text("Eine small Pizza kommt.")


def every_type_in_german() -> dict[str, Any]:
    """A variant holding every response type but the handoff (whose connection is the
    default's concern), texts of several lines and spaces at their ends."""
    return {
        "userSays": ["hilf mir", "was kannst du für {{sys.number:amount}}"],
        "parameters": [{"alias": "amount", "prompts": ["Wie viel?\nIn Euro.", " Betrag? "]}],
        "responses": [
            {"type": "text", "messages": ["Was kann ich tun?\n- Zahlen\n- Fragen", "  Leer  "]},
            {
                "type": "quickReply",
                "title": "Eins wählen",
                "replies": ["ja | nein", " vielleicht "],
            },
            {"type": "image", "imageUrl": "https://example.com/a.png"},
            {
                "type": "card",
                "title": "Eine Karte",
                "subtitle": "Unten",
                "imageUrl": "https://example.com/b.png",
                "buttons": [{"title": "Öffnen", "postback": "https://example.com/x"}],
            },
            {
                "type": "buttonTemplate",
                "title": "Wähle\ngut",
                "buttons": [{"title": "A | B", "postback": "a|b"}],
            },
        ],
    }


def test_variants_saved_unchanged_read_back_the_same_and_an_error_opens_its_tab(
    page: Page, stack: Stack
) -> None:
    story_id = story_in(page, stack, ["de", "fr"])
    helps = {
        "name": "Help",
        "userSays": ["help me", "what can you do for {{sys.number:amount}}"],
        "parameters": [{"alias": "amount", "entity": "sys.number", "prompts": ["How much?"]}],
        "responses": [{"type": "text", "messages": ["What can I do?"]}],
        # French phrases only, and Spanish, which the story does not list: kept as they are
        "translations": {
            "de": every_type_in_german(),
            "fr": {"userSays": ["aide-moi"]},
            "es": {"userSays": ["ayúdame"]},
        },
    }
    interaction, before = editing(page, stack, story_id, helps)
    tabs = page.get_by_role("tablist", name="Languages")
    expect(missing_badge(tabs.get_by_role("tab", name="German (de)"))).to_be_hidden()
    expect(missing_badge(tabs.get_by_role("tab", name="French (fr)"))).to_be_visible()
    expect(tabs.get_by_role("tab")).to_have_count(3)
    save(page)
    assert call(page, stack, "GET", interaction) == before

    tabs.get_by_role("tab", name="German (de)").click()
    german = page.get_by_role("tabpanel", name="German (de)")
    german.get_by_label("Message 1", exact=True).fill("x" * 2049)
    tabs.get_by_role("tab", name="English (en), default").click()
    page.get_by_role("button", name="Save", exact=True).click()
    error = page.locator('.field-error[data-error-path="translations.de.responses.0.messages.0"]')
    expect(error).to_contain_text("Length must be between 1 and 2048")
    expect(german).to_be_visible()
    expect(german.get_by_label("Message 1", exact=True)).to_be_focused()
