"""Faults on the scaled stack (bench/scaled.py: the processes of `make scale`, started
once for the module), checked for correctness only: no timing verdict here, the figures
under load are make bench's (bench/gateway_faults.py, bench/event_faults.py).

- one of the three bot-api replicas killed: the gateway answers every /query, passing
  on to another replica a request it could not connect the victim for, and each /query
  is one turn in the history (none was sent twice);
- one killed while it has /query in hand (held by their webhook): nginx passes those on
  to another replica (`non_idempotent` for /query alone), which answers them (their
  webhook called a second time, under the same message id: the first call died with
  the victim), one turn each;
- the NATS node leading the event stream killed while channel messages are in flight:
  each is answered once at the platform and is one turn in the history. A turn whose
  reply was lost with the node is asked again under its id, and whichever replica the
  repeat reaches answers it from the session (bot_api/query/repeats.py); before that, a
  repeat on another replica was answered and recorded again (once in five suite runs).
"""

import asyncio
import json
import signal
from collections import Counter
from collections.abc import Iterator

import pytest
from aiohttp import web

from bench.scaled import (
    BOT_TOKEN,
    Scaled,
    ask_each_replica,
    history_turns,
    post_update,
    running_scaled,
    stream_leader,
    telegram_channel,
    webhook_interaction,
)
from bench.stack import served
from support.gateway import Entrance
from support.platforms.telegram import TelegramStandIn
from support.waiting import eventually
from tools.embedded import free_port

QUERIES = 36
HELD = 6
"""/query held by their webhook when a replica is killed: two for each replica."""
MESSAGES = 12
ANSWER_SECONDS = 40.0
"""A turn whose reply NATS lost with the node is asked again 12 s later
(integrations_api/channels/turns.py): a bound, far above that."""


@pytest.fixture(scope="module")
def telegram_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def scaled(telegram_port: int) -> Iterator[Scaled]:
    settings = {"TELEGRAM_API_URL": f"http://127.0.0.1:{telegram_port}"}
    with running_scaled("scale-faults", semantic_matching=False, settings=settings) as stack:
        yield stack


def entrance(scaled: Scaled) -> Entrance:
    gateway = scaled.stack.gateway
    return Entrance(
        gateway.http_port, gateway.https_port, gateway.bot_host, gateway.integrations_host
    )


def through_gateway(scaled: Scaled, path: str, token: str, body: object) -> tuple[int, bytes]:
    status, _, answer = entrance(scaled).call(
        "POST",
        path,
        host=scaled.stack.gateway.bot_host,
        body=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    return status, answer


def new_story(scaled: Scaled, name: str) -> str:
    story = {"name": name, "description": ""}
    status, answer = through_gateway(scaled, "/stories", scaled.tokens.developer_token, story)
    assert status == 200, answer
    return str(json.loads(answer)["id"])


async def turns_recorded(scaled: Scaled, story_id: str, sessions: set[str]) -> dict[str, int]:
    """The turns of each session of the story, once the history holds a turn of each of
    `sessions` (it is written in batches, seconds apart)."""

    async def all_written() -> dict[str, int] | None:
        turns = await asyncio.to_thread(history_turns, scaled.config, story_id)
        per_session = {session: n for (session, _), n in turns.items()}
        return per_session if sessions <= set(per_session) else None

    written: dict[str, int] = await eventually(all_written, 15)
    return written


def test_every_query_is_answered_once_with_one_of_three_bot_api_replicas_killed(
    scaled: Scaled,
) -> None:
    story_id = new_story(scaled, "Killed replica")
    log = scaled.stack.gateway.server.log_path
    said_before = log.stat().st_size
    victim = scaled.stack.bot_apis[0]
    victim.process.send_signal(signal.SIGKILL)
    victim.process.wait(10)
    try:
        statuses = []
        for number in range(QUERIES):
            query = {"storyId": story_id, "sessionId": f"q{number}", "query": "hello"}
            statuses.append(through_gateway(scaled, "/query", scaled.tokens.public_key, query)[0])
        assert statuses == [200] * QUERIES
        said = log.read_bytes()[said_before:].decode(errors="replace")
        refused = "connect() failed (111: Connection refused) while connecting to upstream"
        assert any(
            refused in line and f":{victim.port}/query" in line for line in said.splitlines()
        )
        per_session = asyncio.run(
            turns_recorded(scaled, story_id, {f"q{number}" for number in range(QUERIES)})
        )
        assert per_session == {f"q{number}": 1 for number in range(QUERIES)}
    finally:
        scaled.stack.start_again(victim.name)


class HeldBackend:
    """A webhook's backend counting its calls by session, and the message ids each
    carried, which answer once released."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.message_ids: dict[str, set[str]] = {}
        self.released = asyncio.Event()
        self.released.set()

    async def handle(self, request: web.Request) -> web.Response:
        called = await request.json()
        self.calls[called["sessionId"]] += 1
        self.message_ids.setdefault(called["sessionId"], set()).add(called["messageId"])
        await self.released.wait()
        return web.json_response({})


async def test_a_query_a_killed_replica_has_in_hand_is_answered_by_another_one_turn_each(
    scaled: Scaled,
) -> None:
    backend, port = HeldBackend(), free_port()
    hooks = web.Application()
    hooks.router.add_post("/hook", backend.handle)
    victim = scaled.stack.bot_apis[1]
    async with served(hooks, port), scaled.bot(scaled.tokens.public_key) as http:
        story_id = new_story(scaled, "Killed with queries in hand")
        await webhook_interaction(
            scaled, story_id, "where is my order", f"http://127.0.0.1:{port}/hook"
        )

        async def every_replica_calls() -> bool:
            await ask_each_replica(scaled, story_id, "where is my order", "ready")
            return all(backend.calls[f"ready-{n}"] for n in range(len(scaled.stack.bot_apis)))

        await eventually(every_replica_calls, 15)  # each has the connection (over NATS)
        backend.calls.clear()
        backend.message_ids.clear()
        backend.released.clear()

        async def query(session: str) -> int:
            body = {"storyId": story_id, "sessionId": session, "query": "where is my order"}
            async with http.post("/query", json=body) as reply:
                return reply.status

        asked = [asyncio.create_task(query(f"held-{n}")) for n in range(HELD)]

        async def all_held() -> bool:
            return backend.calls.total() == HELD

        await eventually(all_held, 10)
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait(10)
        backend.released.set()
        try:
            statuses = await asyncio.gather(*asked)
        finally:
            scaled.stack.start_again(victim.name)
    assert statuses == [200] * HELD
    sessions = {f"held-{n}" for n in range(HELD)}
    assert set(backend.calls) == sessions
    passed_on = {session for session, calls in backend.calls.items() if calls == 2}
    assert passed_on and set(backend.calls.values()) == {1, 2}  # the victim's, called again
    assert all(len(backend.message_ids[s]) == 1 for s in sessions)  # under the same id
    recorded = await turns_recorded(scaled, story_id, sessions)
    assert {s: n for s, n in recorded.items() if s in sessions} == {s: 1 for s in sessions}


async def test_no_channel_message_is_lost_or_doubled_when_the_streams_nats_leader_is_killed(
    scaled: Scaled, telegram_port: int
) -> None:
    telegram = TelegramStandIn(BOT_TOKEN)
    leader = await stream_leader(scaled.config)
    node = scaled.stack.nats.servers[scaled.stack.nats.index(leader)]
    story_id = new_story(scaled, "Killed NATS node")
    users = range(500, 500 + MESSAGES)
    async with served(telegram.app(), telegram_port), scaled.integrations() as platform:
        channel = await telegram_channel(scaled, telegram, story_id)
        first, then = users[: MESSAGES // 2], users[MESSAGES // 2 :]
        posting = [post_update(platform, channel, user, "hello") for user in first]
        posted = await asyncio.gather(*posting)
        node.process.send_signal(signal.SIGKILL)  # their turns in flight over NATS
        node.process.wait(10)
        try:
            for user in then:
                posted.append(await post_update(platform, channel, user, "hello"))
            assert 0 not in posted

            async def everyone_answered() -> bool:
                return {m["chat_id"] for m in telegram.of("sendMessage")} >= set(users)

            await eventually(everyone_answered, ANSWER_SECONDS)
            per_session = await turns_recorded(
                scaled, story_id, {channel.session(user) for user in users}
            )
            chats = [m["chat_id"] for m in telegram.of("sendMessage")]
        finally:
            scaled.stack.start_again(leader)
    assert sorted(chats) == list(users)
    assert per_session == {channel.session(user): 1 for user in users}
