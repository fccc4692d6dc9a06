"""Handing a conversation to a person (docs/api.md "Handoffs"), end to end: the
connection is integrations-api's (in-process), the person's system a loopback server
checking each call's signature as docs/webhooks.md says, HandoffMessage read from
JetStream by a real consumer."""

import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from nats.js.api import DeliverPolicy

from bot_api.connections.keys import CONNECTION_VIEW
from bot_api.history.keys import RECORDER
from shared import messaging
from shared.config import Config
from shared.events import ChannelTurn, ChannelTurnReply, HandoffMessage, decode, encode
from support.api import Tenant
from support.handoffs import WHSEC, Handed, say
from support.waiting import eventually


@pytest.fixture
async def handoff_messages(config: Config) -> AsyncIterator[list[HandoffMessage]]:
    received: list[HandoffMessage] = []
    client = await messaging.connect(config.nats_url, "handoff-test")

    async def keep(message: Any) -> None:
        received.append(decode(HandoffMessage, message.data))

    subscription = await client.jetstream().subscribe(
        config.subjects.handoff_message,
        cb=keep,
        ordered_consumer=True,
        deliver_policy=DeliverPolicy.NEW,
    )
    yield received
    await subscription.unsubscribe()
    await client.drain()


async def test_a_handoff_reaches_the_person_and_is_given_back(
    alice: Tenant, handed: Handed, handoff_messages: list[HandoffMessage]
) -> None:
    api, story_id = alice.developer, handed.story_id
    opened = await say(alice, story_id, "talk to a human")
    assert opened["fulfillment"] == [
        {"type": "text", "message": "A person will answer"},
        {"type": "handoff", "connection": handed.connection_id},
    ]
    assert opened["handoff"]["connection"] == handed.connection_id

    silent = await say(alice, story_id, "hello there")
    assert silent["fulfillment"] == []
    assert silent["handoff"] == opened["handoff"]
    assert handed.person.received == [
        {
            "type": "handoff",
            "messageId": handed.person.received[0]["messageId"],
            "storyId": story_id,
            "sessionId": "s1",
            "message": {"query": "hello there"},
            "parameters": {},
        }
    ]

    listed = await api.ok("GET", f"/stories/{story_id}/handoffs")
    assert [(h["sessionId"], h["connection"], h["since"]) for h in listed] == [
        ("s1", handed.connection_id, opened["handoff"]["since"])
    ]
    assert listed[0]["lastMessageAt"] >= listed[0]["since"]

    path = f"/stories/{story_id}/handoffs/s1"
    await api.ok("POST", path + "/messages", {"text": "Hello, I'm Bob"})
    expected = HandoffMessage(alice.tokens.account_id, story_id, "s1", "Hello, I'm Bob")
    assert await eventually(lambda: _first(handoff_messages)) == expected

    reply = await api.post(path + "/messages", {"text": ""})
    assert reply.error == (400, "validation_error")
    reply = await api.post(f"/stories/{story_id}/handoffs/nobody/messages", {"text": "hi"})
    assert reply.error == (404, "not_found")

    await api.ok("DELETE", path)
    answered = await say(alice, story_id, "hello there")
    assert answered["fulfillment"] == [{"type": "text", "message": "Hi from the bot"}]
    assert "handoff" not in answered
    assert (await api.delete(path)).error == (404, "not_found")
    assert await api.ok("GET", f"/stories/{story_id}/handoffs") == []
    assert len(handed.person.received) == 1

    await api.client.server.app[RECORDER].idle()
    transcript = await api.ok("GET", f"/stories/{story_id}/conversations/s1")
    assert [(t["outcome"], t.get("query"), t["fulfillment"]) for t in transcript["turns"]] == [
        ("matched", "talk to a human", "A person will answer | [handoff]"),
        ("handoff", "hello there", ""),
        ("handoff", None, "Hello, I'm Bob"),
        ("handoff", None, "You are talking to the bot again."),
        ("matched", "hello there", "Hi from the bot"),
    ]
    handed_over = await api.ok("GET", f"/stories/{story_id}/conversations?outcome=handoff")
    assert [c["sessionId"] for c in handed_over["items"]] == ["s1"]


async def test_another_account_sees_no_handoff_of_the_story(
    alice: Tenant, bob: Tenant, handed: Handed
) -> None:
    await say(alice, handed.story_id, "talk to a human")
    base = f"/stories/{handed.story_id}/handoffs"
    assert (await bob.developer.get(base)).error == (404, "not_found")
    assert (await bob.developer.delete(base + "/s1")).error == (404, "not_found")
    assert (await alice.public.get(base)).status == 403
    assert len(await alice.developer.ok("GET", base)) == 1


async def _first(received: list[HandoffMessage]) -> HandoffMessage | None:
    return received[0] if received else None


class TestIdleTimeout:
    @pytest.fixture
    def config(self, config: Config) -> Config:
        # Long enough that the listing right after the handoff sees it on a loaded machine.
        return dataclasses.replace(config, handoff_idle_seconds=3)

    async def test_an_idle_handoff_is_given_back_with_the_next_message(
        self, alice: Tenant, handed: Handed
    ) -> None:
        api, story_id = alice.developer, handed.story_id
        await say(alice, story_id, "talk to a human")
        assert len(await api.ok("GET", f"/stories/{story_id}/handoffs")) == 1

        async def unlisted() -> bool:
            return await api.ok("GET", f"/stories/{story_id}/handoffs") == []

        await eventually(unlisted, seconds=15)
        answered = await say(alice, story_id, "hello there")
        assert answered["fulfillment"] == [{"type": "text", "message": "Hi from the bot"}]
        assert handed.person.received == []


async def test_a_published_version_hands_over_to_the_same_connection(
    alice: Tenant, handed: Handed
) -> None:
    api, story_id = alice.developer, handed.story_id
    version = (await api.ok("POST", f"/stories/{story_id}/versions", {"note": ""}))["id"]
    story = await api.story(story_id)
    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {"name": story["name"], "description": "", "settings": {"published": version}},
    )

    opened = await say(alice, story_id, "talk to a human")
    assert opened["handoff"]["connection"] == handed.connection_id
    assert (await say(alice, story_id, "hello there"))["fulfillment"] == []
    assert [call["message"] for call in handed.person.received] == [{"query": "hello there"}]


async def test_a_channel_s_turn_is_handed_over_too(
    alice: Tenant, handed: Handed, config: Config
) -> None:
    client = await messaging.connect(config.nats_url, "handoff-channel-test")
    session = "channel1:chat1:user1"

    async def ask(query: str) -> dict[str, Any]:
        turn = ChannelTurn(
            alice.tokens.account_id, handed.story_id, session, "slack", query, None, None, {}
        )
        message = await client.request(config.subjects.channel_turn, encode(turn), timeout=5)
        return dict(json.loads(decode(ChannelTurnReply, message.data).body)["result"])

    try:
        assert (await ask("talk to a human"))["handoff"]["connection"] == handed.connection_id
        silent = await ask("hello there")
    finally:
        await client.drain()

    assert (silent["fulfillment"], silent["parameters"]) == ([], {"default_source": "slack"})
    (delivered,) = handed.person.received
    assert (delivered["sessionId"], delivered["message"]) == (session, {"query": "hello there"})
    assert delivered["parameters"] == {"default_source": "slack"}


async def test_an_export_names_the_handoff_s_connection_and_an_import_awaits_it(
    alice: Tenant, handed: Handed, bot_api: TestClient
) -> None:
    api = alice.developer
    document = await api.ok("GET", f"/stories/{handed.story_id}/export")
    (human,) = [i for i in document["interactions"] if i["name"] == "Human"]
    assert human["handoff"] == "Desk"
    assert human["responses"] == [{"type": "text", "messages": ["A person will answer"]}]
    assert document["connections"] == ["Desk"]

    imported = await api.ok("POST", "/stories/import", document)
    story_id = imported["id"]
    assert imported["report"]["connections"] == [
        {"name": "Desk", "status": "missing", "interactions": [human["key"]]}
    ]
    assert await api.ok("GET", f"/stories/{story_id}/export") == document  # still awaited
    created = await handed.connections.post(
        "/v2/integrations/webhook",
        {"storyId": story_id, "name": "Desk", "url": handed.person_url, "token": WHSEC},
    )
    connection_id = created.body["id"]
    view = bot_api.server.app[CONNECTION_VIEW]

    async def handing_over() -> dict[str, Any] | None:
        known = await view.for_webhook(alice.tokens.account_id, story_id, connection_id)
        if known is None:
            return None
        result = await say(alice, story_id, "talk to a human", session="imported")
        return result if "handoff" in result else None

    opened = await eventually(handing_over)
    assert opened["handoff"]["connection"] == connection_id
    assert opened["fulfillment"][-1] == {"type": "handoff", "connection": connection_id}
