"""A stranger can neither read nor speak in a channel user's conversation, nor find the
channels' ids (issue 29): /query refuses the session ids channels' users have, with
any token; a channel's id is 128 random bits; a call to no channel is answered and
throttled exactly as a call a channel refuses, on every platform."""

import json
import re
from typing import Any

from aiohttp.test_utils import TestClient

from shared.config import Config
from support.api import Api, Tenant
from support.channel_e2e import arrived, create_channel, integrations_api, pizza_story, serve
from support.platforms.meta import (
    APP_SECRET,
    MESSENGER,
    PHONE_NUMBER_ID,
    WA_ID,
    WHATSAPP,
    MetaStandIn,
    signed_headers,
    whatsapp_call,
)
from support.platforms.slack import SlackStandIn
from support.platforms.telegram import TelegramStandIn, message_update

TELEGRAM_TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"
SLACK = {"botToken": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
         "signingSecret": "8f742231b10e8888abcd99yyyzzz85a5"}  # fmt: skip


async def test_query_cannot_read_or_speak_in_a_whatsapp_users_session(
    aiohttp_client: Any, aiohttp_server: Any, config: Config, bot_api: TestClient, alice: Tenant
) -> None:
    graph = await serve(
        aiohttp_server,
        MetaStandIn(MESSENGER["pageAccessToken"], PHONE_NUMBER_ID, WHATSAPP["accessToken"]),
    )
    integrations = await integrations_api(aiohttp_client, config, meta_graph_url=graph.url)
    story = await pizza_story(alice)
    channel_id = await create_channel(
        Api(integrations, alice.tokens.developer_token), story["story"], "whatsapp", WHATSAPP
    )

    async def deliver(message_id: str, text: str) -> int:
        call = whatsapp_call({"id": message_id, "type": "text", "text": {"body": text}})
        body = json.dumps(call).encode()
        headers = {"Content-Type": "application/json", **signed_headers(APP_SECRET, body)}
        async with integrations.post(
            f"/v2/channels/{channel_id}", data=body, headers=headers
        ) as reply:
            return reply.status

    assert await deliver("wamid.1", "show me the menu") == 200
    await arrived(graph.accepted, 5)

    session = f"{channel_id}:{WA_ID}:{WA_ID}"
    for caller in (alice.public, alice.developer):
        for asked in (session, session.upper(), f"{'5' * 24}:{WA_ID}:{WA_ID}"):
            reply = await caller.post(
                "/query", {"storyId": story["story"], "sessionId": asked, "query": "large"}
            )
            assert reply.error == (400, "validation_error"), reply.body
            assert "sessionId" in reply.body["status"]["errors"]
    # A /query session of its own is answered, and the channel's user still is.
    mine = {"storyId": story["story"], "sessionId": f"{channel_id}:{WA_ID}", "query": "large"}
    assert (await alice.public.post("/query", mine)).status == 200
    assert await deliver("wamid.2", "large") == 200
    await arrived(graph.accepted, 6)
    assert "Sheena Nelson" in json.dumps(graph.bodies()[-1])


def _comparable(status: int, body: bytes) -> tuple[int, Any]:
    """The answer without what differs between any two requests (ids, clock)."""
    document = json.loads(body)
    document.pop("timestamp", None)
    document["status"].pop("requestId", None)
    details = document["status"].get("errorDetails", "")
    document["status"]["errorDetails"] = re.sub(r"\d+", "N", details)  # "retry after N s"
    return status, document


async def test_an_unknown_id_is_answered_and_throttled_as_a_channel_refusing_the_call(
    aiohttp_client: Any, aiohttp_server: Any, config: Config, bot_api: TestClient, alice: Tenant
) -> None:
    telegram = await serve(aiohttp_server, TelegramStandIn(TELEGRAM_TOKEN))
    slack = await serve(aiohttp_server, SlackStandIn(SLACK["botToken"]))
    graph = await serve(
        aiohttp_server,
        MetaStandIn(MESSENGER["pageAccessToken"], PHONE_NUMBER_ID, WHATSAPP["accessToken"]),
    )
    integrations = await integrations_api(
        aiohttp_client, config, telegram_api_url=telegram.url, slack_api_url=slack.url,
        meta_graph_url=graph.url, auth_failure_rate=0.001, auth_failure_burst=40,
    )  # fmt: skip
    api = Api(integrations, alice.tokens.developer_token)
    story = (await pizza_story(alice))["story"]
    credentials = {"telegram": {"botToken": TELEGRAM_TOKEN}, "slack": SLACK,
                   "messenger": MESSENGER, "whatsapp": WHATSAPP}  # fmt: skip
    channels = [await create_channel(api, story, *made) for made in credentials.items()]
    assert all(re.fullmatch(r"[0-9a-f]{32}", channel_id) for channel_id in channels)
    unknown = ["65f0c0ffee65f0c0ffee0042", "0123456789abcdef0123456789abcdef", "x"]

    async def answer(method: str, channel_id: str) -> tuple[int, Any]:
        path = f"/v2/channels/{channel_id}"
        query = {"hub.mode": "subscribe", "hub.verify_token": "guess", "hub.challenge": "1"}
        if method == "GET":
            async with integrations.get(path, params=query) as reply:
                return _comparable(reply.status, await reply.read())
        async with integrations.post(path, json=message_update(1, "hi")) as reply:
            return _comparable(reply.status, await reply.read())

    for method in ("GET", "POST"):
        answers = [await answer(method, channel_id) for channel_id in channels + unknown]
        assert answers[0][0] == 401, answers[0]
        assert answers == [answers[0]] * len(answers), method

    # The address spent 14 of its 40 failures; after as many calls to a channel or to
    # no channel, the next ones to either are refused alike, before any look-up.
    for n in range(26):
        assert (await answer("POST", (channels + unknown)[n % 7]))[0] == 401
    throttled = [await answer("POST", channel_id) for channel_id in channels + unknown]
    assert {status for status, _ in throttled} == {429}
    assert throttled == [throttled[0]] * len(throttled)
