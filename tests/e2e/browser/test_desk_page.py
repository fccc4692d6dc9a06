"""The agent desk in Chromium (docs/teams.md "The agent desk"): a Telegram user hands
over (updates posted to the channel's inbound URL as Telegram posts them, answers
reaching a stand-in of the Bot API); the desk names them and their channel, shows the
bot's turns before, a new message of theirs arrives without a reload, the person takes
over (still noted after a reload), answers (it reaches Telegram) and gives back (the user
is told)."""

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from support.browser import Stack, call, free_port, loaded, screenshot, serving, sign_in
from support.platforms.telegram import TelegramStandIn, message_update

BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
CHAT = 4242  # message_update's chat
WAIT_SECONDS = 15  # a turn travels integrations-api -> NATS -> bot-api -> Telegram


@pytest.fixture(scope="module")
def telegram() -> Iterator[TelegramStandIn]:
    stand_in = TelegramStandIn(BOT_TOKEN)
    with serving(stand_in.app()) as url:
        stand_in.url = url
        yield stand_in


@pytest.fixture(scope="module")
def stack_settings(telegram: TelegramStandIn) -> dict[str, Any]:
    return {"telegram_api_url": telegram.url}


def until(check: Callable[[], Any], what: str) -> Any:
    """The first truthy outcome of `check`, polled for at most WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not (outcome := check()):
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)
    return outcome


def texts_sent(telegram: TelegramStandIn) -> list[str]:
    return [str(sent["text"]) for sent in telegram.of("sendMessage")]


def handoff_story(page: Page, stack: Stack) -> str:
    """A story whose "a person please" hands the conversation to a webhook connection."""
    story_id = call(page, stack, "POST", "/stories", {"name": "Pizza", "description": ""})["id"]
    hook = {"storyId": story_id, "name": "Desk", "url": f"http://127.0.0.1:{free_port()}/desk"}
    base = f"{stack.integrations_api}/v2/integrations/webhook"
    connection_id = call(page, stack, "POST", "", hook, base=base)["id"]
    responses = [
        {"type": "text", "messages": ["Handing you over."]},
        {"type": "handoff", "connection": connection_id},
    ]
    person = {"name": "Person", "userSays": ["a person please"], "responses": responses}
    call(page, stack, "POST", f"/stories/{story_id}/interactions", person)
    return story_id


def test_the_desk_page(page: Page, stack: Stack, telegram: TelegramStandIn) -> None:
    story_id = handoff_story(page, stack)
    channel = {"storyId": story_id, "type": "telegram", "name": "Pizza bot",
               "credentials": {"botToken": BOT_TOKEN}}  # fmt: skip
    base = f"{stack.integrations_api}/v2/integrations/channels"
    channel_id = call(page, stack, "POST", "", channel, base=base)["id"]
    inbound_url = f"{stack.integrations_api}/v2/channels/{channel_id}"

    def from_telegram(update_id: int, text: str) -> None:
        secret = {SECRET_HEADER: telegram.webhook["secret_token"]}
        posted = page.request.post(
            inbound_url, data=message_update(update_id, text), headers=secret
        )
        assert posted.status == 200

    from_telegram(1, "a person please")
    until(lambda: "Handing you over." in texts_sent(telegram), "the bot's answer")

    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    page.get_by_role("link", name="Agent desk").click()
    loaded(page)
    expect(page.locator("#desk-status")).to_contain_text("Live")
    card = page.locator("[data-handoff]")
    expect(card).to_contain_text("Ada Lovelace · Telegram")
    expect(card).not_to_contain_text(channel_id)  # no raw session id
    page.get_by_role("button", name="Open the conversation with Ada Lovelace").click()
    transcript = page.locator("#desk-transcript")
    expect(transcript.locator('[data-speaker="user"]')).to_have_text(
        ["Ada Lovelacea person please"]
    )
    expect(transcript.locator('[data-speaker="bot"]')).to_contain_text(["Handing you over."])

    # The user writes again on Telegram: the line arrives on the open page, no reload.
    from_telegram(2, "my pizza is cold")
    expect(transcript.locator('[data-speaker="user"]').last).to_contain_text("my pizza is cold")

    page.get_by_role("button", name="Take over").click()
    expect(transcript.locator('[data-speaker="note"]')).to_have_text(
        ["Account owner took the conversation over"]
    )
    expect(page.locator("#desk-who")).to_contain_text("taken over by Account owner")
    page.get_by_label("Your answer").fill("Sorry! A new one is on its way.")
    page.get_by_role("button", name="Send").click()
    expect(transcript.locator('[data-speaker="person"]')).to_have_text(
        ["Account owner (owner)Sorry! A new one is on its way."]
    )
    until(lambda: "Sorry! A new one is on its way." in texts_sent(telegram), "the answer sent")
    assert telegram.of("sendMessage")[-1]["chat_id"] == CHAT

    # Loaded again, the page reads the transcript from the history: the note is still
    # there, where it happened.
    page.reload()
    loaded(page)
    page.get_by_role("button", name="Open the conversation with Ada Lovelace").click()
    expect(transcript.locator('[data-speaker="note"]')).to_have_text(
        ["Account owner took the conversation over"]
    )
    expect(transcript.locator("[data-speaker]")).to_contain_text(
        ["my pizza is cold", "Account owner took the conversation over", "Sorry! A new one"]
    )
    expect(page.locator("#desk-status")).to_contain_text("Live")
    screenshot(page, "desk")
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scroll
    page.set_viewport_size({"width": 1280, "height": 900})

    page.get_by_role("button", name="Give back to the bot").click()
    expect(transcript.locator('[data-speaker="note"]').last).to_have_text(
        "Account owner gave the conversation back to the bot"
    )
    expect(transcript.locator('[data-speaker="bot"]').last).to_contain_text(
        "You are talking to the bot again."
    )
    expect(page.locator("#handoff-list")).to_have_text("No open handoff.")
    expect(page.locator("#desk-answer")).to_be_hidden()
    until(lambda: "You are talking to the bot again." in texts_sent(telegram), "the user told")
    assert call(page, stack, "GET", f"/stories/{story_id}/handoffs") == []
    assert telegram.refused == []

    # History names the person for their messages, not "nothing".
    page.goto(f"{stack.bot_api}/console/stories/{story_id}/history")
    session_id = f"{channel_id}:{CHAT}:77"
    back = page.locator("#transcript .turn", has_text="You are talking to the bot again.")
    until(lambda: _written(page, session_id, back), "the turns in History")
    answered = page.locator("#transcript .turn", has_text="Sorry! A new one is on its way.")
    expect(answered).to_contain_text(
        "Answered by Account owner (owner). Written at the agent desk."
    )
    expect(back).to_contain_text("Given back to the bot")
    taken = page.locator("#transcript .turn", has_text="Taken over by")
    expect(taken).to_contain_text("Taken over by Account owner (owner) at the agent desk")


def _written(page: Page, session_id: str, last: Any) -> bool:
    """Whether History's transcript of the session shows `last`: a turn is there once its
    batch is written (up to 2 s), so the page is read again until it is."""
    page.reload()
    loaded(page)
    listed = page.locator(f'[data-session="{session_id}"] button')
    if not listed.count():
        return False
    listed.click()
    page.locator("#transcript .turn").first.wait_for()
    return bool(last.count())
