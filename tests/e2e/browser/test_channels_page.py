"""The console's Channels page in Chromium: a Telegram channel created against a stand-in
of Telegram's Bot API (tests/support/platforms/telegram.py), a Slack channel refused
with the missing credential named, an edit, the way to the agent desk, a delete;
and never a secret on the page."""

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, screenshot, serving, sign_in
from support.platforms.telegram import Failure, TelegramStandIn

BOT_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
SLACK_TOKEN = "xoxb-17-not-a-real-slack-token"
WRONG_TOKEN = "654321:not-this-bot"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


@pytest.fixture(scope="module")
def telegram() -> Iterator[TelegramStandIn]:
    stand_in = TelegramStandIn(BOT_TOKEN)
    with serving(stand_in.app()) as url:
        stand_in.url = url
        yield stand_in


@pytest.fixture(scope="module")
def stack_settings(telegram: TelegramStandIn) -> dict[str, Any]:
    return {"telegram_api_url": telegram.url}


def test_channels_page(page: Page, stack: Stack, telegram: TelegramStandIn) -> None:
    story_id = call(page, stack, "POST", "/stories", {"name": "Pizza", "description": ""})["id"]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    page.get_by_role("link", name="Channels").click()
    loaded(page)

    # A Telegram channel: its webhook registered with the stand-in, its inbound URL shown.
    expect(page.locator("#channel-type-step")).to_contain_text("Nothing to do in Telegram")
    page.get_by_label("Name").fill("Pizza on Telegram")
    page.get_by_label("Bot token (from @BotFather)").fill(BOT_TOKEN)
    page.get_by_role("button", name="Save channel").click()
    card = page.locator("[data-channel]")
    expect(card).to_contain_text("Pizza on Telegram")
    expect(card.locator(".channel-status")).to_have_text("Telegram · active")
    channel_id = card.get_attribute("data-channel") or ""
    inbound_url = f"{stack.integrations_api}/v2/channels/{channel_id}"
    expect(card.locator(".inbound-url")).to_have_text(inbound_url)
    assert telegram.webhook["url"] == inbound_url
    expect(page.get_by_label("Bot token (from @BotFather)")).to_have_value("")
    page.get_by_role("button", name="Copy the inbound URL of Pizza on Telegram").click()
    expect(page.locator("#notice")).to_have_text("Inbound URL copied.")
    assert page.evaluate("navigator.clipboard.readText()") == inbound_url

    # A Slack channel without its signing secret: refused, the field named beside it.
    page.get_by_label("Platform").select_option("slack")
    expect(page.locator("#channel-type-step")).to_contain_text("Interactivity & Shortcuts")
    page.get_by_label("Name").fill("Pizza on Slack")
    page.get_by_label("Bot User OAuth Token (xoxb-…)").fill(SLACK_TOKEN)
    page.get_by_role("button", name="Save channel").click()
    error = page.locator('.field-error[data-error-path="credentials.signingSecret"]')
    expect(error).to_have_text("credentials.signingSecret: Missing data for required field.")
    expect(page.get_by_label("Signing secret")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-channel]")).to_have_count(1)
    page.get_by_role("button", name="New instead").click()

    # Edits: a wrong token is Telegram's refusal on the card; the right one mends it.
    page.get_by_role("button", name="Edit Pizza on Telegram").click()
    expect(page.get_by_label("Platform")).to_be_disabled()
    page.get_by_label("Name").fill("Pizza bot")
    page.get_by_label("Bot token (from @BotFather)").fill(WRONG_TOKEN)
    page.get_by_role("button", name="Save channel").click()
    expect(card.locator(".channel-status")).to_have_text("Telegram · error")
    expect(card.locator(".delivery-error")).to_contain_text("Unauthorized")
    expect(card.locator(".channel-help")).to_contain_text("set INTEGRATIONS_PUBLIC_URL")
    expect(card.locator(".channel-help")).to_contain_text("A wrong token: edit the channel")
    page.get_by_role("button", name="Edit Pizza bot").click()
    page.get_by_label("Bot token (from @BotFather)").fill(BOT_TOKEN)
    page.get_by_role("button", name="Save channel").click()
    expect(card.locator(".channel-status")).to_have_text("Telegram · active")
    expect(card.locator(".delivery-error")).to_have_count(0)
    registrations = telegram.of("setWebhook")
    assert len(registrations) == 2  # the first and the mended one; the wrong token's refused
    expect(card.locator(".channel-help")).to_have_count(0)

    # Telegram refuses a registration once (an address it cannot call): the card says
    # what to do, and "Register again" registers with the stored token.
    https_needed = "Bad Request: bad webhook: HTTPS url must be provided for webhook"
    telegram.fail("setWebhook", Failure(400, https_needed))
    page.get_by_role("button", name="Edit Pizza bot").click()
    page.get_by_role("button", name="Save channel").click()
    expect(card.locator(".delivery-error")).to_contain_text("HTTPS url must be provided")
    expect(card.locator(".channel-help")).to_contain_text("(on a laptop, a tunnel")
    page.get_by_role("button", name="Register Pizza bot again").click()
    expect(page.locator("#notice")).to_have_text("Registered.")
    expect(card.locator(".channel-status")).to_have_text("Telegram · active")
    assert len(telegram.of("setWebhook")) == 3

    # The handed-over conversations are the agent desk's (test_desk_page.py).
    secret = telegram.webhook["secret_token"]
    desk = page.get_by_role("link", name="agent desk")
    expect(desk).to_have_attribute("href", f"/console/stories/{story_id}/desk")
    screenshot(page, "channels")
    page.set_viewport_size({"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scroll
    page.set_viewport_size({"width": 1280, "height": 900})

    # No secret on the page: not in its markup, not in a field.
    values = page.locator("input").evaluate_all("inputs => inputs.map(input => input.value)")
    shown = page.content() + " ".join(values)
    for secret_value in (BOT_TOKEN, WRONG_TOKEN, SLACK_TOKEN, secret):
        assert secret_value not in shown
    assert telegram.refused == []

    # Delete asks first.
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete Pizza bot").click()
    expect(page.locator("#channel-list")).to_have_text("No channel yet.")
    missing = page.request.get(
        f"{stack.integrations_api}/v2/integrations/channels/{channel_id}",
        headers={"Authorization": f"Bearer {stack.tokens.developer_token}"},
    )
    assert missing.status == 404
