"""The agent desk over HTTP (docs/teams.md "The agent desk"): the open handoffs named by
the user and channel, a conversation's transcript, its new lines on the desk's stream
(Server-Sent Events, read by a real HTTP client), taking over and giving back; the
stream's bounds, heartbeats and end at shutdown."""

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from nats.js.api import DeliverPolicy

from bot_api.handoffs.keys import DESK_STREAMS
from bot_api.handoffs.setup import end_streams
from bot_api.history.keys import RECORDER
from shared import messaging
from shared.config import Config
from shared.events import HandoffMessage, decode
from support.api import Api, Tenant
from support.desk import HEARTBEAT, desk_stream
from support.handoffs import Handed, say
from support.waiting import eventually

OWNER = {"name": "Account owner", "role": "owner"}


def url(bot_api: TestClient) -> str:
    return str(bot_api.make_url(""))


@pytest.fixture
async def handoff_messages(config: Config) -> AsyncIterator[list[HandoffMessage]]:
    received: list[HandoffMessage] = []
    client = await messaging.connect(config.nats_url, "desk-test")

    async def keep(message: Any) -> None:
        received.append(decode(HandoffMessage, message.data))

    subscription = await client.jetstream().subscribe(
        config.subjects.handoff_message, cb=keep, ordered_consumer=True,
        deliver_policy=DeliverPolicy.NEW,
    )  # fmt: skip
    yield received
    await subscription.unsubscribe()
    await client.drain()


def said(lines: list[dict[str, Any]]) -> list[tuple[str, str, Any]]:
    return [(line["entry"]["speaker"], line["entry"]["text"], line["entry"]["person"])
            for line in lines]  # fmt: skip


async def test_the_desk_follows_a_handoff_live_from_start_to_give_back(
    alice: Tenant, handed: Handed, bot_api: TestClient, handoff_messages: list[HandoffMessage]
) -> None:
    api, story_id = alice.developer, handed.story_id
    base = f"/stories/{story_id}/handoffs"
    await say(alice, story_id, "hello there", session="w1")  # the bot's, before the handoff
    async with desk_stream(url(bot_api), alice.tokens.developer_token, story_id) as desk:
        await say(alice, story_id, "talk to a human", session="w1")
        opened = await desk.lines(2)
        assert said(opened) == [
            ("user", "talk to a human", None),
            ("bot", "A person will answer | [handoff]", None),
        ]
        assert [line["listChanged"] for line in opened] == [False, True]
        assert desk.retry_ms == 2000
        assert {line["sessionId"] for line in opened} == {"w1"}

        (listed,) = await api.ok("GET", base)
        assert listed["userName"].startswith("Visitor ") and len(listed["userName"]) == 12
        assert (listed["channel"], listed["takenBy"]) == ("Widget", None)

        await say(alice, story_id, "are you there?", session="w1")
        assert said(await desk.lines(1)) == [("user", "are you there?", None)]
        await api.ok("POST", f"{base}/w1/take-over")
        (note,) = await desk.lines(1)
        assert said([note]) == [("note", "Account owner took the conversation over", OWNER)]
        assert note["listChanged"] is True
        assert (await api.ok("GET", base))[0]["takenBy"] == OWNER
        await api.ok("POST", f"{base}/w1/messages", {"text": "Hello, I'm Bob"})
        live = await desk.lines(1)
        assert said(live) == [("person", "Hello, I'm Bob", OWNER)]

        read = await api.ok("GET", f"{base}/w1")
        assert read["handoff"]["sessionId"] == "w1"
        assert [(e["speaker"], e["text"]) for e in read["transcript"]] == [
            ("user", "hello there"),
            ("bot", "Hi from the bot"),
            ("user", "talk to a human"),
            ("bot", "A person will answer | [handoff]"),
            ("user", "are you there?"),
            ("note", "Account owner took the conversation over"),
            ("person", "Hello, I'm Bob"),
        ]
        ids = {e["id"] for e in read["transcript"]}
        heard = {line["entry"]["id"] for line in [*opened, note, *live]}
        assert heard <= ids  # one line, not two

        await api.ok("DELETE", f"{base}/w1")
        back = await desk.lines(2)
        assert said(back) == [
            ("note", "Account owner gave the conversation back to the bot", OWNER),
            ("bot", "You are talking to the bot again.", None),
        ]
        assert back[-1]["listChanged"] is True

    told = HandoffMessage(
        alice.tokens.account_id, story_id, "w1", "You are talking to the bot again."
    )
    assert told in await eventually(lambda: _enough(handoff_messages, 2))
    assert await api.ok("GET", base) == []
    read = await api.ok("GET", f"{base}/w1")
    assert read["handoff"] is None and read["transcript"][-1]["speaker"] == "bot"

    await bot_api.server.app[RECORDER].idle()
    turns = (await api.ok("GET", f"/stories/{story_id}/conversations/w1"))["turns"]
    person_s = [t for t in turns if "person" in t]
    assert [(t["fulfillment"], t.get("takenOver"), t.get("givenBack")) for t in person_s] == [
        ("", True, None),
        ("Hello, I'm Bob", None, None),
        ("You are talking to the bot again.", None, True),
    ]
    assert {t["outcome"] for t in person_s} == {"handoff"}
    assert all(t["person"] == {**OWNER, "memberId": None} for t in person_s)


async def test_the_story_s_return_message_is_what_the_user_is_told(
    alice: Tenant, handed: Handed, handoff_messages: list[HandoffMessage]
) -> None:
    api, story_id = alice.developer, handed.story_id
    story = await api.story(story_id)
    assert story["settings"]["handoffReturnMessage"] == "You are talking to the bot again."
    settings = {"handoffReturnMessage": "The bot is back. Type 'menu'."}
    body = {"name": story["name"], "description": "", "settings": settings}
    await api.ok("PUT", f"/stories/{story_id}", body)
    bad = await api.put(f"/stories/{story_id}", {**body, "settings": {"handoffReturnMessage": ""}})
    assert bad.error == (400, "validation_error")
    assert bad.details.startswith("settings.handoffReturnMessage")

    await say(alice, story_id, "talk to a human")
    await api.ok("DELETE", f"/stories/{story_id}/handoffs/s1")
    (told,) = await eventually(lambda: _enough(handoff_messages, 1))
    assert told.text == "The bot is back. Type 'menu'."


async def test_another_account_has_no_desk_of_the_story(
    alice: Tenant, bob: Tenant, handed: Handed
) -> None:
    await say(alice, handed.story_id, "talk to a human")
    base = f"/stories/{handed.story_id}/handoffs"
    for reply in (
        await bob.developer.get(f"{base}/events"),
        await bob.developer.get(f"{base}/s1"),
        await bob.developer.post(f"{base}/s1/take-over", {}),
    ):
        assert reply.error == (404, "not_found")
    assert (await alice.public.get(f"{base}/events")).status == 403
    assert (await alice.developer.get(f"{base}/nobody")).error == (404, "not_found")
    assert (await alice.developer.post(f"{base}/nobody/take-over", {})).error == (
        404, "not_found"
    )  # fmt: skip


class TestStreamBounds:
    @pytest.fixture
    def config(self, config: Config) -> Config:
        return dataclasses.replace(
            config, desk_streams_per_client=2, desk_streams_per_account=3,
            desk_heartbeat_seconds=0.05,
        )  # fmt: skip

    async def test_a_client_and_an_account_open_so_many_streams_and_hear_heartbeats(
        self, alice: Tenant, handed: Handed, bot_api: TestClient
    ) -> None:
        token, story_id = alice.tokens.developer_token, handed.story_id
        streams = bot_api.server.app[DESK_STREAMS]
        base = url(bot_api)
        async with desk_stream(base, token, story_id) as first, desk_stream(base, token, story_id):
            assert await first.event() == HEARTBEAT
            assert first.comments == ["heartbeat"]
            assert streams.count == 2
            refused = await alice.developer.get(f"/stories/{story_id}/handoffs/events")
            assert refused.error == (429, "rate_limited")
            assert "this client has 2 desk streams open" in refused.details
        await eventually(lambda: _async(streams.count == 0))
        async with (
            desk_stream(base, token, story_id, client="192.0.2.1"),
            desk_stream(base, token, story_id, client="192.0.2.2"),
            desk_stream(base, token, story_id, client="192.0.2.3"),
        ):
            assert streams.count == 3
            refused = await alice.developer.get(f"/stories/{story_id}/handoffs/events")
            assert "the account has 3 desk streams open" in refused.details

    async def test_every_stream_ends_when_the_service_shuts_down(
        self, alice: Tenant, handed: Handed, bot_api: TestClient
    ) -> None:
        app = bot_api.server.app
        assert end_streams in app.on_shutdown
        async with desk_stream(url(bot_api), alice.tokens.developer_token, handed.story_id) as desk:
            await end_streams(app)
            while (event := await desk.event()) is not None:
                assert event == HEARTBEAT
        refused = await alice.developer.get(f"/stories/{handed.story_id}/handoffs/events")
        assert refused.error == (429, "rate_limited")


async def _enough(values: list[HandoffMessage], count: int) -> list[HandoffMessage] | None:
    return values if len(values) >= count else None


async def _async(value: bool) -> bool:
    return value


async def test_an_agent_is_named_at_the_desk_and_one_narrowed_elsewhere_sees_none(
    alice: Tenant, handed: Handed, bot_api: TestClient
) -> None:
    api, story_id = alice.developer, handed.story_id
    other = await api.create_story("Elsewhere")

    ana_id, ana = await agent(api, "ana@example.com", "Ana", [story_id])
    _, olaf = await agent(api, "olaf@example.com", "Olaf", [other])
    await say(alice, story_id, "talk to a human", session="w2")
    base = f"/stories/{story_id}/handoffs"
    assert [h["sessionId"] for h in await ana.ok("GET", base)] == ["w2"]
    for refused in (
        await olaf.get(base),
        await olaf.get(f"{base}/w2"),
        await olaf.post(f"{base}/w2/take-over", {}),
        await olaf.post(f"{base}/w2/messages", {"text": "hi"}),
    ):
        assert refused.error == (404, "not_found"), refused.body
    ana_is = {"name": "Ana", "role": "agent"}
    await ana.ok("POST", f"{base}/w2/take-over")
    assert (await ana.ok("GET", base))[0]["takenBy"] == ana_is
    await ana.ok("POST", f"{base}/w2/messages", {"text": "Ana here"})
    await bot_api.server.app[RECORDER].idle()
    turns = (await api.ok("GET", f"/stories/{story_id}/conversations/w2"))["turns"]
    assert [(t.get("takenOver"), t["person"]) for t in turns if "person" in t] == [
        (True, {**ana_is, "memberId": ana_id}),
        (None, {**ana_is, "memberId": ana_id}),
    ]
    (answered, taken, *_) = (await api.ok("GET", f"/audit?member={ana_id}"))["items"]
    assert (answered["kind"], taken["kind"]) == ("handoff.message", "handoff.take-over")


async def agent(api: Api, email: str, name: str, stories: list[str] | None) -> tuple[str, Api]:
    """A member of the account with the agent role, and a client holding its token."""
    person = {"email": email, "name": name, "role": "agent", "stories": stories}
    member = (await api.post("/account/members", person)).body["id"]
    token = (await api.post(f"/account/members/{member}/tokens", {"name": "desk"})).body
    return member, api.as_token(token["token"])


async def test_a_take_over_is_kept_and_read_again_with_the_person_at_its_place(
    alice: Tenant, handed: Handed, bot_api: TestClient
) -> None:
    """What the page reads when it is loaded again: the transcript of the turns stored and
    those still being written, the take-over among them, redacted as the story says."""
    api, story_id = alice.developer, handed.story_id
    ana_id, ana = await agent(api, "ana@example.com", "Ana", None)
    ana_is = {"name": "Ana", "role": "agent"}
    asked = {"storyId": story_id, "sessionId": "w3", "query": "talk to a human",
             "parameters": {"email": "jo@example.com"}}  # fmt: skip
    await alice.public.ok("POST", "/query", asked)
    base = f"/stories/{story_id}/handoffs/w3"
    await ana.ok("POST", f"{base}/take-over")
    await ana.ok("POST", f"{base}/messages", {"text": "Ana here"})

    def lines(read: dict[str, Any]) -> list[tuple[str, str, Any]]:
        return [(e["speaker"], e["text"], e["person"]) for e in read["transcript"]]

    expected = [
        ("user", "talk to a human", None),
        ("bot", "A person will answer | [handoff]", None),
        ("note", "Ana took the conversation over", ana_is),
        ("person", "Ana here", ana_is),
    ]
    queued = await ana.ok("GET", base)  # the turns still waiting to be written
    assert lines(queued) == expected
    await bot_api.server.app[RECORDER].idle()
    stored = await ana.ok("GET", base)
    assert lines(stored) == expected
    assert [e["id"] for e in stored["transcript"]] == [e["id"] for e in queued["transcript"]]
    at = [e["at"] for e in stored["transcript"]]
    assert at == sorted(at)

    turns = (await api.ok("GET", f"/stories/{story_id}/conversations/w3"))["turns"]
    (taken,) = [t for t in turns if t.get("takenOver")]
    assert (taken["outcome"], taken["fulfillment"], taken["person"]) == (
        "handoff", "", {**ana_is, "memberId": ana_id}
    )  # fmt: skip
    assert "query" not in taken and "givenBack" not in taken
    assert taken["parameters"]["email"] == "[email]"  # redacted as the give-back is
    (listed,) = (await api.ok("GET", f"/stories/{story_id}/conversations"))["items"]
    assert listed["turns"] == len(turns) == 3


async def test_a_story_without_history_keeps_no_take_over_but_the_desk_hears_it(
    alice: Tenant, handed: Handed, bot_api: TestClient
) -> None:
    api, story_id = alice.developer, handed.story_id
    story = await api.story(story_id)
    body = {"name": story["name"], "description": "", "settings": {"history": False}}
    await api.ok("PUT", f"/stories/{story_id}", body)
    await say(alice, story_id, "talk to a human", session="w4")
    async with desk_stream(url(bot_api), alice.tokens.developer_token, story_id) as desk:
        await api.ok("POST", f"/stories/{story_id}/handoffs/w4/take-over")
        (note,) = await desk.lines(1)
        assert said([note]) == [("note", "Account owner took the conversation over", OWNER)]
    await bot_api.server.app[RECORDER].idle()
    read = await api.ok("GET", f"/stories/{story_id}/handoffs/w4")
    assert (read["handoff"]["takenBy"], read["transcript"]) == (OWNER, [])
    missing = await api.get(f"/stories/{story_id}/conversations/w4")
    assert missing.error == (404, "not_found")
