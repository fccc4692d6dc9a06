"""A channel's turn over the real NATS (shared/events.py `ChannelTurn`): answered as the
public key's /query would be, from the published version, within the per-visitor limits,
recorded in the history with the channel as `default_source`; errors in the envelope."""

import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from nats.aio.client import Client

from bot_api.history.keys import RECORDER
from shared import messaging
from shared.config import Config
from shared.events import ChannelTurn, ChannelTurnReply, decode, encode
from shared.fulfillment import item_body
from support.api import Api, Tenant
from support.walkthrough import pizza_story

SESSION = "channel1:chat7:user7"


@pytest.fixture
async def nats(config: Config, bot_api: TestClient) -> AsyncIterator[Client]:
    client = await messaging.connect(config.nats_url, "channel-turns-test")
    yield client
    await client.drain()


async def ask(nats: Client, config: Config, turn: ChannelTurn) -> tuple[int, dict[str, Any]]:
    reply = await asked(nats, config, turn)
    return reply.status, json.loads(reply.body)


async def asked(nats: Client, config: Config, turn: ChannelTurn) -> ChannelTurnReply:
    message = await nats.request(config.subjects.channel_turn, encode(turn), timeout=5)
    return decode(ChannelTurnReply, message.data)


def channel_turn(tenant: Tenant, story_id: str, query: str, **changes: Any) -> ChannelTurn:
    turn = ChannelTurn(
        account_id=tenant.tokens.account_id,
        story_id=story_id,
        session_id=SESSION,
        source="telegram",
        query=query,
        trigger=None,
        goto=None,
        parameters={"default_name": "Ada"},
    )
    return dataclasses.replace(turn, **changes)


async def test_a_channel_turn_gets_the_body_the_public_query_would(
    alice: Tenant, nats: Client, config: Config
) -> None:
    story_id = await pizza_story(alice.developer)
    reply = await asked(nats, config, channel_turn(alice, story_id, "a large pizza"))
    status, body = reply.status, json.loads(reply.body)
    by_query = await alice.public.ok(
        "POST",
        "/query",
        {"storyId": story_id, "sessionId": "web", "query": "a large pizza"},
    )

    assert (status, body["status"]) == (200, {"code": 200, "type": "success"})
    assert body["sessionId"] == SESSION
    expected = {**by_query["result"]["parameters"], "default_name": "Ada"}
    assert body["result"]["parameters"] == {**expected, "default_source": "telegram"}
    assert body["result"]["fulfillment"] == by_query["result"]["fulfillment"]
    assert body["result"]["interaction"]["name"] == "Order"

    assert [item_body(item) for item in reply.answer] == by_query["result"]["fulfillment"]

    await alice.developer.client.server.app[RECORDER].idle()
    transcript = await alice.developer.ok("GET", f"/stories/{story_id}/conversations/{SESSION}")
    assert [(t["defaultSource"], t["channel"], t["test"]) for t in transcript["turns"]] == [
        ("telegram", SESSION.partition(":")[0], False)
    ]


async def test_a_message_longer_than_query_takes_is_answered_on_its_start_and_said_truncated(
    alice: Tenant, nats: Client, config: Config
) -> None:
    story_id = await pizza_story(alice.developer)
    said = "a large pizza " + "please " * 584  # 4,102 characters: Telegram's 4,096 and more

    status, body = await ask(nats, config, channel_turn(alice, story_id, said))

    assert status == 200
    assert body["result"]["interaction"]["name"] == "Order"
    assert body["result"]["resolvedQuery"] == said[:2048]
    await alice.developer.client.server.app[RECORDER].idle()
    transcript = await alice.developer.ok("GET", f"/stories/{story_id}/conversations/{SESSION}")
    [turn] = transcript["turns"]
    assert (turn["query"], turn["truncated"]) == (said[:2048], True)


async def test_the_published_version_answers_a_channel(
    alice: Tenant, nats: Client, config: Config
) -> None:
    api = alice.developer
    story_id = await api.create_story("Greeter")
    hello = await api.create_interaction(
        story_id, "Hello", userSays=["hello there"], responses=[text("Hi from v1")]
    )
    version = (await api.ok("POST", f"/stories/{story_id}/versions", {"note": ""}))["id"]
    story = await api.story(story_id)
    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {"name": story["name"], "description": "", "settings": {"published": version}},
    )
    path = f"/stories/{story_id}/interactions/{hello}"
    await api.ok("PUT", path, {"responses": [text("Hi from the draft")]})

    _, body = await ask(nats, config, channel_turn(alice, story_id, "hello there"))
    assert [item["message"] for item in body["result"]["fulfillment"]] == ["Hi from v1"]


async def test_errors_come_back_in_the_query_envelope(
    alice: Tenant, bob: Tenant, nats: Client, config: Config
) -> None:
    story_id = await pizza_story(alice.developer)

    for turn in (
        channel_turn(bob, story_id, "hello"),
        channel_turn(alice, "f" * 24, "hello"),
        channel_turn(alice, story_id, "hello", account_id="not-an-account"),
    ):
        status, body = await ask(nats, config, turn)
        assert (status, body["status"]["code"], body["status"]["type"]) == (
            404,
            404,
            "not_found",
        ), turn
    status, body = await ask(nats, config, channel_turn(alice, story_id, ""))
    assert (status, body["status"]["type"]) == (400, "validation_error")
    assert body["status"]["errorDetails"].startswith("query:")

    message = await nats.request(config.subjects.channel_turn, b'{"v": 1}', timeout=5)
    reply = decode(ChannelTurnReply, message.data)
    assert reply.status == 400
    assert json.loads(reply.body)["status"]["type"] == "bad_request"


def text(message: str) -> dict[str, Any]:
    return {"type": "text", "messages": [message]}


class TestLimits:
    @pytest.fixture
    def config(self, config: Config) -> Config:
        return dataclasses.replace(config, query_session_rate=0.001, query_session_burst=2)

    async def test_a_visitor_beyond_the_session_limit_gets_429(
        self, api: Api, alice: Tenant, nats: Client, config: Config
    ) -> None:
        story_id = await pizza_story(api)
        statuses = [
            (await ask(nats, config, channel_turn(alice, story_id, "a pizza please")))[0]
            for _ in range(3)
        ]
        assert statuses == [200, 200, 429]
        other = channel_turn(alice, story_id, "a pizza please", session_id="channel1:chat8:user8")
        assert (await ask(nats, config, other))[0] == 200
