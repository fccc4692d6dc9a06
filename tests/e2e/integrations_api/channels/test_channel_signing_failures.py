"""One tenant's mistyped signing secret refuses only its own channel's calls: the
platforms call every channel from the same addresses, so failures are counted per
channel and address before any look-up (channels/failures.py); every failure also
counts against its address, whose limit refuses only calls that failed."""

from typing import Any

from aiohttp.test_utils import TestClient

from shared.config import Config
from support.api import Api, Tenant
from support.channel_e2e import create_channel, integrations_api, pizza_story, serve
from support.platforms.slack import SlackStandIn, message_event, signed_headers

BOT_TOKEN = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


async def post(integrations: TestClient, channel_id: str, event_id: str) -> int:
    """An event signed with Slack's signing secret, posted to the channel."""
    body = message_event(event_id, "hi")
    headers = {"Content-Type": "application/json", **signed_headers(SIGNING_SECRET, body)}
    async with integrations.post(f"/v2/channels/{channel_id}", data=body, headers=headers) as r:
        return r.status


async def test_a_tenants_mistyped_secret_refuses_its_own_channel_and_no_other(
    aiohttp_client: Any, aiohttp_server: Any, config: Config, bot_api: TestClient,
    alice: Tenant, bob: Tenant,
) -> None:  # fmt: skip
    slack = await serve(aiohttp_server, SlackStandIn(BOT_TOKEN))
    integrations = await integrations_api(
        aiohttp_client, config, slack_api_url=slack.url, auth_failure_rate=0.01,
        auth_failure_burst=2,
    )  # fmt: skip
    mistyped = {"botToken": BOT_TOKEN, "signingSecret": SIGNING_SECRET[:-1] + "6"}
    alices = await create_channel(
        Api(integrations, alice.tokens.developer_token),
        (await pizza_story(alice))["story"],
        "slack",
        mistyped,
    )
    bobs = await create_channel(
        Api(integrations, bob.tokens.developer_token),
        (await pizza_story(bob))["story"],
        "slack",
        {"botToken": BOT_TOKEN, "signingSecret": SIGNING_SECRET},
    )

    assert [await post(integrations, alices, f"Ev{n}") for n in range(3)] == [401, 401, 429]
    assert [await post(integrations, bobs, f"Ev{n}") for n in range(3, 6)] == [200, 200, 200]
    unknown = "65f0c0ffee65f0c0ffee0042"
    # Alice's channel's failures used up the address's: a failing call from it is
    # refused, a call to no channel is one; a good one never is.
    assert [await post(integrations, unknown, f"Ev{n}") for n in range(6, 9)] == [429, 429, 429]
    assert await post(integrations, bobs, "Ev9") == 200
