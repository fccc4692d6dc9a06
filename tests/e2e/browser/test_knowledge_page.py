"""The console's Knowledge page in Chromium: a Markdown file uploaded, listed with its
passages, answering in the test chat with its source, deleted; FAQ pairs written in the
editor answering, then edited; the widget naming the source under an answer. A title that
holds markup is shown as text everywhere (docs/console.md "Knowledge")."""

from collections.abc import Iterator
from urllib.parse import quote

import pytest
from aiohttp import web
from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, screenshot, serving, sign_in

SHOP = """# Opening hours

The shop on Main Street opens at nine in the morning and closes at six in the evening.
On Sundays it stays closed all day.

## Returns

Goods bought in the shop may be returned within thirty days with their receipt. A refund is
paid to the card the goods were bought with.
"""
PARKING_PAGE = """<!doctype html><html lang="en"><head><title>Parking</title></head><body>
<main><h1>Parking</h1><p>Customers of the shop park their car free of charge in the yard behind
the shop for up to two hours. The gate is on Mill Lane, next to the bakery.</p></main></body></html>
"""
HOSTILE_TITLE = 'Shop <img src=x onerror="window.injected=1"> guide'
RETURNS = "how many days do I have to return goods?"
UNDER = " \u203a "  # between the headings of a path (a single right-pointing angle quote)
RETURNS_HEADING = f"Opening hours{UNDER}Returns"
SOURCE = f"Source: Shop guide · {RETURNS_HEADING}"
DROPPED = """(text) => {
  const files = new DataTransfer();
  files.items.add(new File([text], "shop.md"));
  return files;
}"""
SOURCE_LINKS = """() => ["https://example.com/faq", "javascript:alert(1)"].map((url) =>
  window.ParleyFulfillment.source({ title: "FAQ", url }).querySelector("a")?.href ?? null)"""


def new_story(page: Page, stack: Stack, name: str) -> str:
    return str(call(page, stack, "POST", "/stories", {"name": name, "description": ""})["id"])


def open_knowledge(page: Page, stack: Stack, story_id: str) -> None:
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    page.get_by_role("link", name="Knowledge").click()
    loaded(page)


def nothing_injected(page: Page) -> None:
    assert page.evaluate("window.injected") is None
    expect(page.locator("img")).to_have_count(0)


def test_a_markdown_file_is_uploaded_listed_answers_with_its_source_and_is_deleted(
    page: Page, stack: Stack
) -> None:
    story_id = new_story(page, stack, "Shop")
    sign_in(page, stack)
    open_knowledge(page, stack, story_id)
    documents = page.locator("#document-list > li")
    expect(documents).to_have_text(["No document yet."])

    page.get_by_label("File", exact=True).set_input_files(
        files=[{"name": "logo.gif", "mimeType": "image/gif", "buffer": b"GIF89a"}]
    )
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#notice")).to_have_attribute("data-kind", "error")
    expect(page.locator("#notice")).to_contain_text("image/gif")  # the API's 415, as it says it

    dropped = page.evaluate_handle(DROPPED, SHOP)  # dropped on the box, no type given
    page.locator("#drop-zone").dispatch_event("drop", {"dataTransfer": dropped})
    expect(page.locator("#notice")).to_contain_text("Chosen: shop.md.")
    expect(page.get_by_label("File title")).to_have_value("shop")  # from the file's name
    page.get_by_label("File title").fill("Shop guide")
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("#notice")).to_have_text("Saved.")
    card = documents.first
    expect(card.locator("h3")).to_have_text("Shop guide")
    expect(card.locator(".kind")).to_contain_text("Markdown · 2 passages")
    # The page reads the list again every 5 s while meaning is pending; the model's
    # first load and two passages take seconds on a loaded machine.
    expect(card.locator(".meaning")).to_have_text("Meaning: ready", timeout=60_000)

    page.get_by_role("button", name="Open Shop guide").click()
    passages = page.locator("#passage-list > li")
    expect(passages).to_have_count(2)
    expect(passages.nth(1).locator(".heading-path")).to_have_text(RETURNS_HEADING)
    expect(passages.nth(1).locator(".passage-text")).to_contain_text("within thirty days")

    page.get_by_label("Question", exact=True).fill(RETURNS)
    page.get_by_role("button", name="Ask").click()
    tried = page.locator("#try-result")
    expect(tried.locator(".try-answer")).to_contain_text("thirty days")
    expect(tried.locator(".parley-source")).to_have_text(SOURCE)
    ranked = tried.locator("table.ranked tbody tr")
    expect(ranked.first).to_have_class("answering")
    expect(ranked.first.locator("td").nth(1)).to_have_text("Shop guide")
    screenshot(page, "knowledge")

    page.get_by_role("link", name="← Back to the story").click()
    loaded(page)
    page.get_by_label("Message", exact=True).fill(RETURNS)
    page.get_by_role("button", name="Send", exact=True).click()
    log = page.locator("#chat-log")
    expect(log.locator(".parley-text")).to_contain_text("thirty days")
    expect(log.locator(".parley-source")).to_have_text(SOURCE)
    expect(page.locator("#chat-debug")).to_contain_text("Answered from the document “Shop guide”")

    page.get_by_role("link", name="Knowledge").click()
    loaded(page)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete Shop guide").click()
    expect(page.locator("#notice")).to_have_text("Deleted.")
    expect(documents).to_have_text(["No document yet."])
    assert call(page, stack, "GET", f"/stories/{story_id}/knowledge") == []


def test_the_faq_editor_saves_pairs_that_answer_and_edits_them(page: Page, stack: Stack) -> None:
    story_id = new_story(page, stack, "Delivery")
    sign_in(page, stack)
    open_knowledge(page, stack, story_id)

    page.get_by_label("FAQ title").fill(HOSTILE_TITLE)
    page.get_by_label("Question 1", exact=True).fill("Do you deliver on Saturdays?")
    page.get_by_label("Alternatives of question 1 (one a line)").fill(
        "weekend delivery\n\nsaturday drop"
    )
    page.get_by_role("button", name="Add a pair").click()
    page.get_by_label("Question 2", exact=True).fill("Can I pay by card?")
    page.get_by_role("button", name="Save FAQ").click()  # pair 2 has no answer: refused
    expect(page.get_by_label("Answer 2", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(page.locator('#faq-form [data-error-path="faq.1.answer"]')).to_be_visible()
    page.get_by_role("button", name="Remove pair 2").click()
    page.get_by_label("Answer 1", exact=True).fill("Yes, every Saturday morning.")
    page.get_by_role("button", name="Save FAQ").click()
    expect(page.locator("#notice")).to_have_text(f'Saved the FAQ "{HOSTILE_TITLE}".')
    card = page.locator("#document-list > li")
    expect(card.locator("h3")).to_have_text([HOSTILE_TITLE])
    expect(card.locator(".kind")).to_have_text("FAQ · 1 pair")

    page.get_by_label("Question", exact=True).fill("do you deliver on saturday")
    page.get_by_role("button", name="Ask").click()
    tried = page.locator("#try-result")
    expect(tried.locator(".try-answer")).to_have_text("Yes, every Saturday morning.")
    expect(tried).to_contain_text("Matched the FAQ question “Do you deliver on Saturdays?”.")
    expect(tried.locator(".parley-source")).to_have_text(f"Source: {HOSTILE_TITLE}")
    nothing_injected(page)

    page.get_by_role("button", name=f"Edit {HOSTILE_TITLE}").click()
    expect(page.get_by_label("Alternatives of question 1 (one a line)")).to_have_value(
        "weekend delivery\nsaturday drop"
    )
    expect(page.locator("#faq-heading")).to_have_text(f"Edit {HOSTILE_TITLE}")
    page.get_by_label("Answer 1", exact=True).fill("Only on the first Saturday of the month.")
    page.get_by_role("button", name="Save FAQ").click()
    expect(page.locator("#faq-heading")).to_have_text("New FAQ")  # saved, the editor emptied
    page.get_by_role("button", name="Ask").click()
    expect(tried.locator(".try-answer")).to_have_text("Only on the first Saturday of the month.")
    listed = call(page, stack, "GET", f"/stories/{story_id}/knowledge")
    assert [(d["title"], len(d["faq"])) for d in listed] == [(HOSTILE_TITLE, 1)]  # PUT: still one

    page.get_by_label("Text title").fill("Hours")
    page.get_by_role("button", name="Add text").click()  # no text: refused beside its field
    expect(page.get_by_label("Text", exact=True)).to_have_attribute("aria-invalid", "true")
    page.get_by_label("Text", exact=True).fill("The shop opens at nine in the morning.")
    page.get_by_role("button", name="Add text").click()
    expect(card.locator(".kind")).to_have_text(["FAQ · 1 pair", "Text · 1 passage · 38 characters"])
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scrolling


@pytest.fixture
def parking_site() -> Iterator[str]:
    """A web site on loopback (the stack's address guard allows 127.0.0.0/8) with one page."""

    async def parking(request: web.Request) -> web.Response:
        return web.Response(text=PARKING_PAGE, content_type="text/html")

    app = web.Application()
    app.router.add_get("/parking.html", parking)
    with serving(app) as address:
        yield address


def test_the_widget_names_the_source_under_an_answer_linked_for_a_web_page(
    page: Page, stack: Stack, parking_site: str
) -> None:
    story_id = new_story(page, stack, "Shop")
    uploaded = page.request.post(
        f"{stack.bot_api}/stories/{story_id}/knowledge?title={quote(HOSTILE_TITLE)}",
        data=SHOP.encode(),
        headers={
            "Authorization": f"Bearer {stack.tokens.developer_token}",
            "Content-Type": "text/markdown",
        },
    )
    assert uploaded.ok, uploaded.text()
    sign_in(page, stack)
    open_knowledge(page, stack, story_id)
    parking_url = f"{parking_site}/parking.html"
    page.get_by_label("Page title").fill("Parking")
    page.get_by_label("Address").fill(parking_url)
    page.get_by_role("button", name="Add the page").click()
    expect(page.locator("#notice")).to_have_text("Saved.")
    card = page.locator("#document-list > li", has_text="Parking")
    expect(card.get_by_role("link", name=parking_url)).to_have_attribute("href", parking_url)
    card.get_by_role("button", name="Fetch Parking again").click()
    expect(page.locator("#notice")).to_have_text('"Parking" is unchanged.')

    page.goto(f"{stack.bot_api}/chat/{story_id}?key={stack.tokens.public_key}")
    page.get_by_role("button", name="Chat").click()
    log = page.locator(".parley-log")
    page.get_by_label("Your message").fill(RETURNS)
    page.get_by_role("button", name="Send").click()
    expect(log.locator(".parley-text").last).to_contain_text("thirty days")
    expect(log.locator(".parley-source")).to_have_text(SOURCE.replace("Shop guide", HOSTILE_TITLE))
    expect(log.locator(".parley-source a")).to_have_count(0)  # a file: no address, no link
    nothing_injected(page)
    page.get_by_label("Your message").fill("where can I park my car?")
    page.get_by_role("button", name="Send").click()
    expect(log.locator(".parley-text").last).to_contain_text("free of charge")
    link = log.locator(".parley-source").last.get_by_role("link", name="Parking")
    expect(link).to_have_attribute("href", parking_url)
    # The API takes only http(s) addresses: the renderer's own refusal of any other.
    assert page.evaluate(SOURCE_LINKS) == ["https://example.com/faq", None]
