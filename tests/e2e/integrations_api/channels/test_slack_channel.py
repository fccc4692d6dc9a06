"""A Slack channel end to end: Events API and interactivity calls signed as Slack signs
them, posted to the channel's inbound URL, and the answers reaching a stand-in of
Slack's chat.postMessage (tests/support/platforms/slack.py) that checks each call's
documented shape."""

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from shared.config import Config
from shared.events import ChannelTurn
from support.api import Api, Tenant
from support.channel_e2e import (
    CHANNELS,
    arrived,
    create_channel,
    integrations_api,
    pizza_story,
    serve,
    turns_heard,
)
from support.platforms.slack import (
    CHANNEL,
    USER,
    SlackStandIn,
    click,
    message_event,
    signed_headers,
)

CREDENTIALS = {"botToken": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
               "signingSecret": "8f742231b10e8888abcd99yyyzzz85a5"}  # fmt: skip


@pytest.fixture
async def slack(aiohttp_server: Any) -> SlackStandIn:
    return await serve(aiohttp_server, SlackStandIn(CREDENTIALS["botToken"]))


@pytest.fixture
async def integrations(
    aiohttp_client: Any, config: Config, bot_api: TestClient, slack: SlackStandIn
) -> TestClient:
    return await integrations_api(aiohttp_client, config, slack_api_url=slack.url)


@pytest.fixture
async def turns(config: Config, bot_api: TestClient) -> AsyncIterator[list[ChannelTurn]]:
    async with turns_heard(config) as asked:
        yield asked


@pytest.fixture
async def story(alice: Tenant) -> dict[str, str]:
    return await pizza_story(alice)


@pytest.fixture
async def channel_id(integrations: TestClient, alice: Tenant, story: dict[str, str]) -> str:
    api = Api(integrations, alice.tokens.developer_token)
    return await create_channel(api, story["story"], "slack", CREDENTIALS)


async def deliver(
    integrations: TestClient, channel_id: str, body: bytes, headers: dict[str, str] | None = None
) -> int:
    """Post `body` as Slack does, signed now with the channel's signing secret unless
    `headers` says otherwise; the status of the answer."""
    return (await call(integrations, channel_id, body, headers))[0]


async def call(
    integrations: TestClient, channel_id: str, body: bytes, headers: dict[str, str] | None
) -> tuple[int, str]:
    sent = signed_headers(CREDENTIALS["signingSecret"], body) if headers is None else headers
    form = body.startswith(b"payload=")
    media = "application/x-www-form-urlencoded" if form else "application/json"
    path = f"/v2/channels/{channel_id}"
    headers = {"Content-Type": media, **sent}
    async with integrations.post(path, data=body, headers=headers) as response:
        return response.status, await response.text()


async def test_slacks_url_verification_is_answered_only_when_signed(
    integrations: TestClient, channel_id: str, slack: SlackStandIn
) -> None:
    verification = json.dumps(
        {
            "token": "Jhj5dZrVaK7ZwHHjRyZWjbDl",
            "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
            "type": "url_verification",
        }
    ).encode()

    assert await call(integrations, channel_id, verification, None) == (
        200, "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    )  # fmt: skip
    assert await deliver(integrations, channel_id, verification, headers={}) == 401


async def test_a_message_in_brings_the_answer_out_as_slack_blocks(
    integrations: TestClient, channel_id: str, slack: SlackStandIn, turns: list[ChannelTurn]
) -> None:
    assert await deliver(integrations, channel_id, message_event("Ev1", "show me the menu")) == 200

    await arrived(slack.accepted, 5)
    text, quick, card, template, image = slack.bodies()
    (turn,) = await arrived(turns, 1)
    assert turn.session_id == f"{channel_id}:{CHANNEL}:{USER}"
    assert (turn.source, turn.query, turn.parameters) == (
        "slack", "show me the menu", {"default_source": "slack"}
    )  # fmt: skip
    assert text == {"channel": CHANNEL, "text": "Hello! Our menu:"}
    assert [e["value"] for e in quick["blocks"][1]["elements"]] == ["q:Small", "q:Large"]
    assert card["blocks"][0]["accessory"]["image_url"] == "https://img.test/margherita.jpg"
    assert card["blocks"][1]["elements"][1]["url"] == "https://recipes.test/margherita"
    assert template["blocks"][1]["elements"][0]["value"] == "q:No"
    assert image["blocks"][0] == {
        "type": "image",
        "image_url": "https://img.test/oven.jpg",
        "alt_text": "image",
    }
    assert {call.headers["Authorization"] for call in slack.accepted} == {
        f"Bearer {CREDENTIALS['botToken']}"
    }
    assert slack.refused == []


async def test_a_click_says_its_value_or_goes_to_its_interaction(
    integrations: TestClient, channel_id: str, slack: SlackStandIn, story: dict[str, str],
    turns: list[ChannelTurn],
) -> None:  # fmt: skip
    said = click("13345224609.738474920.8088930838d88f008e0", value="q:large")
    jumped = click("13345224609.738474920.0000000000000000000", value="g:" + story["sizes"])
    assert await deliver(integrations, channel_id, said) == 200
    assert await deliver(integrations, channel_id, jumped) == 200

    await arrived(slack.accepted, 2)
    assert {(t.query, t.goto) for t in await arrived(turns, 2)} == {
        ("large", None),
        (None, story["sizes"]),
    }
    assert [body["text"] for body in slack.bodies()] == ["Large it is."] * 2


async def test_an_event_slack_sends_again_is_answered_once(
    integrations: TestClient, channel_id: str, slack: SlackStandIn, turns: list[ChannelTurn]
) -> None:
    body = message_event("Ev2", "large")
    assert await deliver(integrations, channel_id, body) == 200
    for retry in ("1", "2"):
        headers = {**signed_headers(CREDENTIALS["signingSecret"], body), "X-Slack-Retry-Num": retry,
                   "X-Slack-Retry-Reason": "http_timeout"}  # fmt: skip
        assert await deliver(integrations, channel_id, body, headers) == 200
    assert await deliver(integrations, channel_id, message_event("Ev3", "large")) == 200

    await arrived(slack.accepted, 2)
    assert [t.query for t in await arrived(turns, 2)] == ["large", "large"]
    assert len(slack.accepted) == 2


@pytest.mark.parametrize(
    "headers",
    [
        {},
        signed_headers("not-the-secret", message_event("Ev4", "large")),
        signed_headers(
            CREDENTIALS["signingSecret"], message_event("Ev4", "large"), int(time.time()) - 301
        ),
    ],
    ids=["unsigned", "another secret", "six minutes old"],
)
async def test_a_call_not_signed_by_slack_is_refused_and_nothing_is_sent(
    integrations: TestClient, channel_id: str, slack: SlackStandIn, turns: list[ChannelTurn],
    headers: dict[str, str],
) -> None:  # fmt: skip
    assert await deliver(integrations, channel_id, message_event("Ev4", "large"), headers) == 401
    assert await deliver(integrations, channel_id, message_event("Ev5", "show me the menu")) == 200

    await arrived(slack.accepted, 5)
    assert [t.query for t in await arrived(turns, 1)] == ["show me the menu"]
    assert "Large it is." not in [body["text"] for body in slack.bodies()]


async def test_a_429_is_retried_after_slacks_retry_after(
    integrations: TestClient, alice: Tenant, channel_id: str, slack: SlackStandIn,
    turns: list[ChannelTurn],
) -> None:  # fmt: skip
    slack.rate_limit(calls=1, retry_after_seconds=1)

    assert await deliver(integrations, channel_id, message_event("Ev6", "large")) == 200

    await arrived(slack.accepted, 1)
    assert (slack.busy_calls, slack.bodies()) == (0, [{"channel": CHANNEL, "text": "Large it is."}])
    api = Api(integrations, alice.tokens.developer_token)
    assert (await api.ok("GET", f"{CHANNELS}/{channel_id}"))["error"] is None
