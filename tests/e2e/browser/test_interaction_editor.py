"""The interaction editor in Chromium changes nothing the user did not touch: every
interaction of the shared sample bots (imported through the API), and one holding every
response type, saved unchanged reads back the same; an added block leaves the others
as they were."""

import re
import time
from typing import Any

from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, screenshot, sign_in
from support.samples import SAMPLE_BOTS, zipped

SIX_LINES = (
    "What can I help you with?\n- Pay off my credit card\n- Make a transfer\n"
    "- Check my balance\n- Search transactions\n- Talk to a human"
)


def imported(page: Page, stack: Stack, data: bytes) -> dict[str, Any]:
    response = page.request.post(
        f"{stack.bot_api}/stories/import",
        data=data,
        headers={
            "Authorization": f"Bearer {stack.tokens.developer_token}",
            "Content-Type": "application/zip",
        },
    )
    assert response.ok, (response.status, response.text())
    return dict(response.json())


def features(interaction: dict[str, Any]) -> set[str]:
    """What an interaction holds that the editor must keep: each response type, texts of
    several lines, several variants, buttons, parameters, prompts and their replies, a
    webhook."""
    found = {f"response {block['type']}" for block in interaction["responses"]}
    for block in interaction["responses"]:
        messages = block.get("messages", [])
        found |= {"multi-line text"} if any("\n" in m for m in messages) else set()
        found |= {"text variants"} if len(messages) > 1 else set()
        found |= {"buttons"} if block.get("buttons") else set()
    prompts = [p for parameter in interaction["parameters"] for p in parameter["prompts"]]
    found |= {"parameters"} if interaction["parameters"] else set()
    found |= {"prompts"} if prompts else set()
    found |= {"multi-line prompt"} if any("\n" in p for p in prompts) else set()
    found |= (
        {"prompt replies"}
        if any(p.get("promptReplies") for p in interaction["parameters"])
        else set()
    )
    found |= {"webhook"} if interaction["webhook"] else set()
    found |= {"phrases"} if interaction["userSays"] else set()
    return found


def save(page: Page) -> None:
    """Clicks Save and waits for its answer: the notice still says "Saved." from the save
    before, so it alone cannot tell that this one landed."""
    with page.expect_response(lambda response: response.request.method == "PUT") as saved:
        page.get_by_role("button", name="Save", exact=True).click()
    assert saved.value.ok, saved.value.text()
    expect(page.locator("#notice")).to_have_text("Saved.")


def saved_unchanged(page: Page, stack: Stack, story_id: str, interaction_id: str) -> None:
    """Opens the interaction in the editor, saves it untouched, and reads it back."""
    path = f"/stories/{story_id}/interactions/{interaction_id}"
    before = call(page, stack, "GET", path)
    page.goto(f"{stack.bot_api}/console{path}")
    loaded(page)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#notice")).to_have_text("Saved.")
    assert call(page, stack, "GET", path) == before, before["name"]


def test_every_sample_interaction_saved_unchanged_reads_back_the_same(
    page: Page, stack: Stack
) -> None:
    """Each sample's interactions that hold something not yet seen in that sample (each
    importer writes its own shapes): 14 of the 55. Opening all 55 passed too, in 160 s
    on a loaded machine, too slow for the suite."""
    sign_in(page, stack)
    kinds: set[str] = set()
    opened = total = 0
    for folder in SAMPLE_BOTS.values():
        story_id = imported(page, stack, zipped(folder))["id"]
        covered: set[str] = set()
        for summary in call(page, stack, "GET", f"/stories/{story_id}/interactions"):
            path = f"/stories/{story_id}/interactions/{summary['id']}"
            held = features(call(page, stack, "GET", path))
            total += 1
            if held <= covered:
                continue  # nothing this interaction holds is left to cover
            covered |= held
            saved_unchanged(page, stack, story_id, summary["id"])
            opened += 1
        kinds |= covered
    print(f"saved {opened} of {total} sample interactions unchanged: {sorted(kinds)}")
    assert {
        "response text",
        "multi-line text",
        "response image",
        "prompts",
        "prompt replies",
    } <= kinds


def every_type(connection: str) -> dict[str, Any]:
    """An interaction holding every stored response type, with texts of several lines,
    spaces at their ends and characters the old one-a-line fields split on."""
    return {
        "name": "Help",
        "userSays": ["help me", "what can you do for {{sys.number:amount}}"],
        "parameters": [
            {
                "alias": "amount",
                "entity": "sys.number",
                "prompts": ["How much?\nIn euros.", "Amount?"],
                "promptReplies": ["10", " 20 euros ", "a | b"],
            }
        ],
        "responses": [
            {"type": "text", "messages": [SIX_LINES, "  a variant with spaces  ", "a | b"]},
            {"type": "quickReply", "title": "Pick one", "replies": ["yes | no", " maybe "]},
            {"type": "image", "imageUrl": "https://example.com/a.png"},
            {
                "type": "card",
                "title": "A card",
                "subtitle": "",
                "imageUrl": "",
                "buttons": [
                    {"title": "Open", "postback": "https://example.com/x"},
                    {"title": "Say hi", "postback": "Say hi"},
                ],
            },
            {
                "type": "buttonTemplate",
                "title": "Choose\nwell",
                "buttons": [{"title": "A | B", "postback": "a|b"}],
            },
            {"type": "handoff", "connection": connection},
        ],
        "webhook": connection,
    }


def test_every_response_type_saved_unchanged_and_an_added_block_leaves_the_rest(
    page: Page, stack: Stack
) -> None:
    story_id = call(page, stack, "POST", "/stories", {"name": "Bank", "description": ""})["id"]
    desk = {"storyId": story_id, "name": "Desk", "url": "http://127.0.0.1:9/desk"}
    base = f"{stack.integrations_api}/v2/integrations/webhook"
    connection = call(page, stack, "POST", "", desk, base=base)["id"]
    interactions = f"/stories/{story_id}/interactions"
    help_id = call(page, stack, "POST", interactions, every_type(connection))["id"]
    hooked = {"name": "Hooked", "responses": [{"type": "text", "messages": ["Fine."]}],
              "webhook": "http://127.0.0.1:9/hook"}  # fmt: skip
    hooked_id = call(page, stack, "POST", interactions, hooked)["id"]
    sign_in(page, stack)
    saved_unchanged(page, stack, story_id, hooked_id)
    saved_unchanged(page, stack, story_id, help_id)

    # The steps: a button template added to an interaction with a six-line text.
    expect(page.get_by_label("Message 1", exact=True)).to_have_value(SIX_LINES)
    handoff = page.get_by_label("Webhook connection (the person's side)")
    expect(handoff.locator("option:checked")).to_have_text("Desk (http://127.0.0.1:9/desk)")
    before = call(page, stack, "GET", f"{interactions}/{help_id}")
    page.get_by_label("Add a response").select_option("buttonTemplate")
    page.get_by_role("button", name="Add", exact=True).click()
    added = page.locator('[data-field="responses.6"]')
    added.locator('[data-field="responses.6.title"]').fill("Or tell me more")
    for title in ("Pay my card", "Talk to a human"):
        added.get_by_role("button", name="Add a button").click()
        added.locator(".item").last.get_by_label(re.compile("title$")).fill(title)
    human = "https://example.com/talk-to-a-human"  # longer than a title: no limit broken
    added.get_by_label("Button 2 postback or URL").fill(human)
    expect(added.locator(".items > .inline .counter")).to_have_text("2/3 buttons")
    expect(added.locator(".counter.over")).to_have_count(0)
    save(page)
    after = call(page, stack, "GET", f"{interactions}/{help_id}")
    assert after["responses"][:6] == before["responses"]
    buttons = [
        {"title": "Pay my card", "postback": "Pay my card"},
        {"title": "Talk to a human", "postback": human},
    ]
    assert after["responses"][6] == {
        "type": "buttonTemplate",
        "title": "Or tell me more",
        "buttons": buttons,
    }
    assert {**after, "responses": before["responses"]} == before

    # A prompt reply added item by item; the prompts and the other replies stay.
    replies = page.get_by_role("group", name="Prompt replies (buttons shown with each prompt)")
    expect(replies.locator(":scope > .inline .counter")).to_have_text("3/11 prompt replies")
    replies.get_by_role("button", name="Add a prompt reply").click()
    replies.get_by_label("Prompt reply 4", exact=True).fill("{{default_name}}'s")
    save(page)
    parameter = call(page, stack, "GET", f"{interactions}/{help_id}")["parameters"][0]
    assert parameter == {
        **before["parameters"][0],
        "promptReplies": ["10", " 20 euros ", "a | b", "{{default_name}}'s"],
    }
    screenshot(page, "interaction-editor-every-type")


def test_a_save_names_the_tests_it_broke(page: Page, stack: Stack) -> None:
    story_id = call(page, stack, "POST", "/stories", {"name": "Shop", "description": ""})["id"]
    hours = {"name": "Hours", "userSays": ["when are you open"], "responses": [
        {"type": "text", "messages": ["9 to 5."]}]}  # fmt: skip
    hours_id = call(page, stack, "POST", f"/stories/{story_id}/interactions", hours)["id"]
    asks = {"name": "asks the hours", "turns": [
        {"query": "when are you open", "expect": {"interaction": "Hours"}}]}  # fmt: skip
    call(page, stack, "POST", f"/stories/{story_id}/tests", asks)
    last = f"{stack.bot_api}/stories/{story_id}/tests/last"
    authorized = {"Authorization": f"Bearer {stack.tokens.developer_token}"}
    deadline = time.monotonic() + 30  # the run after the test's creation, on a loaded machine
    while not page.request.get(last, headers=authorized).ok:
        assert time.monotonic() < deadline, "the run after creating the test never landed"
        time.sleep(0.1)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/interactions/{hours_id}")
    loaded(page)
    summary = page.locator("#tests-summary")
    expect(summary).to_have_text("Tests: 1 passed, 0 failed")

    page.get_by_label("User says").fill("pizza delivery")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#notice")).to_have_text("Saved.")
    expect(summary).to_have_text(
        "Tests: 0 passed, 1 failed — broken by the last edit: asks the hours"
    )
    expect(summary).to_have_attribute("data-kind", "failed")
