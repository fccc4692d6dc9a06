"""A turn asked again under its key, on another replica, is answered as it was the first
time and is not run again (bot_api/query/repeats.py): the /query the gateway passes on
after the replica it reached died, and a channel's turn integrations-api asks again."""

import json
import uuid
from typing import Any

from nats.aio.client import Client

from bench.stack import Replicas
from bot_api.query.repeats import TURN_KEY_HEADER
from shared import messaging
from shared.events import TURN_ID_HEADER, ChannelTurn, ChannelTurnReply, decode, encode
from support.api import Api, Tenant
from support.replicas import metric
from support.waiting import eventually
from support.walkthrough import pizza_story

HISTORY_SECONDS = 15.0
"""Each replica writes its history turns in batches, seconds apart."""
CHANNEL_ASKS = 12
"""The same channel turn asked this many times over NATS, which gives each to one of the
three replicas at random: all twelve go to one with a chance of 3 in 3**12 (1 in 177,147)."""


async def ask(api: Api, body: dict[str, Any], key: str | None) -> dict[str, Any]:
    headers = {} if key is None else {TURN_KEY_HEADER: key}
    reply = await api.call("POST", "/query", body, headers)
    assert reply.status == 200, reply.body
    return dict(reply.body)


async def transcript(tenant: list[Tenant], story_id: str, session: str) -> list[str]:
    """The session's queries in the history, once a last turn sent to each replica is
    there (each replica's batch holds its earlier turns before it)."""
    for n, at in enumerate(tenant):
        last = {"storyId": story_id, "sessionId": session, "query": f"last {n}"}
        await ask(at.public, last, None)

    async def all_written() -> list[str] | None:
        said = await recorded(tenant[0].developer, story_id, session)
        return said if all(f"last {n}" in said for n in range(len(tenant))) else None

    written: list[str] = await eventually(all_written, HISTORY_SECONDS)
    return [query for query in written if not query.startswith("last ")]


async def recorded(developer: Api, story_id: str, session: str) -> list[str]:
    """The session's queries in the history so far (none before its first is written)."""
    read = await developer.call("GET", f"/stories/{story_id}/conversations/{session}")
    return [] if read.status == 404 else [turn["query"] for turn in read.body["turns"]]


async def test_a_query_asked_again_under_its_key_on_another_replica_gets_the_first_answer(
    tenant: list[Tenant],
) -> None:
    a, b, c = (t.public for t in tenant)
    story_id = await pizza_story(tenant[0].developer)
    session = uuid.uuid4().hex
    turn = {"storyId": story_id, "sessionId": session}
    await ask(a, {**turn, "query": "a pizza please"}, None)

    before = await counted(tenant)
    key = uuid.uuid4().hex
    filled = await ask(b, {**turn, "query": "big"}, key)
    assert filled["result"]["fulfillment"][0]["message"] == "One large pizza coming up!"
    again = await ask(c, {**turn, "query": "big"}, key)  # the size prompt is answered now
    assert again == filled
    assert await counted(tenant) == {"run": before["run"] + 1, "again": before["again"] + 1}

    await ask(c, {**turn, "query": "big"}, uuid.uuid4().hex)  # a new turn
    reused = await ask(a, {**turn, "query": "small"}, key)  # the key, asking another thing
    assert reused["result"]["parameters"]["size"] == "small"
    assert await counted(tenant) == {"run": before["run"] + 3, "again": before["again"] + 1}
    assert await transcript(tenant, story_id, session) == ["a pizza please", "big", "big", "small"]


async def test_a_key_nobody_could_send_is_refused(tenant: list[Tenant]) -> None:
    story_id = await tenant[0].developer.create_story("Keys")
    turn = {"storyId": story_id, "sessionId": "s1", "trigger": "welcome"}
    for key in ("k" * 129, "tab\there"):
        reply = await tenant[0].public.call("POST", "/query", turn, {TURN_KEY_HEADER: key})
        assert reply.status == 400, reply.body
        assert TURN_KEY_HEADER in reply.body["status"]["errorDetails"]


async def test_a_channel_turn_asked_again_on_other_replicas_is_answered_once(
    tenant: list[Tenant], replicas: Replicas
) -> None:
    story_id = await pizza_story(tenant[0].developer)
    session = f"c{uuid.uuid4().hex[:8]}:chat:user"
    asked = ChannelTurn(
        account_id=tenant[0].tokens.account_id,
        story_id=story_id,
        session_id=session,
        source="telegram",
        query="a pizza please",
        trigger=None,
        goto=None,
        parameters={},
    )
    nats: Client = await messaging.connect(replicas.config.nats_url, "repeated-turns-test")
    before = await counted(tenant)
    try:
        headers = {TURN_ID_HEADER: uuid.uuid4().hex}
        replies = []
        for _ in range(CHANNEL_ASKS):
            message = await nats.request(
                replicas.config.subjects.channel_turn, encode(asked), timeout=10, headers=headers
            )
            replies.append(decode(ChannelTurnReply, message.data))
    finally:
        await nats.drain()
    assert {reply.status for reply in replies} == {200}
    assert len({(reply.body, reply.answer) for reply in replies}) == 1
    assert json.loads(replies[0].body)["result"]["fulfillment"][0]["message"] == "Which size?"
    after = await counted(tenant)
    assert after["run"] - before["run"] == 1  # by one replica, once
    assert after["again"] - before["again"] >= 1  # by another, from the session

    async def written() -> list[str]:
        return await recorded(tenant[0].developer, story_id, session)

    assert await eventually(written, HISTORY_SECONDS) == ["a pizza please"]


async def counted(tenant: list[Tenant]) -> dict[str, float]:
    """Over the three replicas: the turns the engine ran (to a match or a prompt), and
    the turns answered again from the session."""
    run = again = 0.0
    for at in tenant:
        for outcome in ("matched", "incomplete"):
            run += await metric(at.public, "parley_query_outcomes_total", outcome=outcome)
        again += await metric(at.public, "parley_turns_answered_again_total")
    return {"run": run, "again": again}
