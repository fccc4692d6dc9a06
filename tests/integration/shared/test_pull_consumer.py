"""A durable pull consumer against a real nats-server: an event that cannot be read is
dropped once (and logged) instead of coming back forever; a failure is retried; a
consumer JetStream did not answer for at once is asked for again."""

import asyncio
import json
import logging
import os
import signal
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from nats.aio.client import Client
from nats.js.api import ConsumerInfo

from shared import messaging
from shared.events import StoryChanged, Subjects, decode, encode
from support.waiting import eventually
from tools.embedded import start_nats

GOOD = StoryChanged("acc", "story", ("i1",))
UNKNOWN_VERSION = json.dumps({"v": 2, "accountId": "acc", "storyId": "story"}).encode()
# Longer than the retry delay: an event asked for again would be back by then.
REDELIVERY_WINDOW_SECONDS = 2 * messaging.RETRY_DELAY_SECONDS + 0.5


@pytest.fixture
def subjects() -> Subjects:
    return Subjects(f"t{uuid.uuid4().hex[:12]}")


@pytest.fixture
async def nats(nats_url: str, subjects: Subjects) -> AsyncIterator[Client]:
    client = await messaging.connect(nats_url, "pull-consumer-test")
    await messaging.ensure_stream(client, subjects, replicas=1)
    yield client
    await client.drain()


async def consumer_info(nats: Client, subjects: Subjects, durable: str) -> ConsumerInfo:
    return await nats.jetstream().consumer_info(subjects.stream, durable)


async def test_an_unreadable_event_is_dropped_once_and_the_next_one_is_handled(
    nats: Client, subjects: Subjects, caplog: pytest.LogCaptureFixture
) -> None:
    durable = subjects.consumer("stories")
    attempts: list[bytes] = []
    handled: list[StoryChanged] = []

    async def handle(data: bytes) -> None:
        attempts.append(data)
        handled.append(decode(StoryChanged, data))

    async def good_one_handled() -> bool:
        return bool(handled)

    with caplog.at_level(logging.WARNING, logger="shared.messaging"):
        async with messaging.pulling(nats, subjects.story_changed, durable, handle):
            for data in (b"\x00\xff garbage", UNKNOWN_VERSION, encode(GOOD)):
                await nats.jetstream().publish(subjects.story_changed, data)
            await eventually(good_one_handled)
            await asyncio.sleep(REDELIVERY_WINDOW_SECONDS)
            info = await consumer_info(nats, subjects, durable)

    assert handled == [GOOD]
    assert len(attempts) == 3
    assert (info.num_pending, info.num_ack_pending, info.num_redelivered) == (0, 0, 0)
    dropped = [r.getMessage() for r in caplog.records if "cannot read" in r.getMessage()]
    assert len(dropped) == 2
    assert "not JSON" in dropped[0]
    assert "unknown version" in dropped[1]


async def test_an_event_whose_handling_fails_comes_again_until_it_is_handled(
    nats: Client, subjects: Subjects
) -> None:
    durable = subjects.consumer("stories")
    attempts: list[StoryChanged] = []

    async def fail_the_first_time(data: bytes) -> None:
        attempts.append(decode(StoryChanged, data))
        if len(attempts) == 1:
            raise ConnectionError("the database is away")

    async def handled_on_the_retry() -> bool:
        return len(attempts) == 2

    async with messaging.pulling(nats, subjects.story_changed, durable, fail_the_first_time):
        await nats.jetstream().publish(subjects.story_changed, encode(GOOD))
        await eventually(handled_on_the_retry, seconds=5)
        await asyncio.sleep(REDELIVERY_WINDOW_SECONDS)
        info = await consumer_info(nats, subjects, durable)

    assert attempts == [GOOD, GOOD]
    assert (info.num_pending, info.num_ack_pending) == (0, 0)


async def test_a_consumer_waiting_for_events_stops_at_once(
    nats: Client, subjects: Subjects
) -> None:
    async def handle(data: bytes) -> None:
        raise AssertionError("no event was published")

    durable = subjects.consumer("idle")
    async with messaging.pulling(nats, subjects.story_changed, durable, handle):
        await asyncio.sleep(0.2)  # waiting in a fetch by now
        stopping_at = asyncio.get_running_loop().time()

    assert asyncio.get_running_loop().time() - stopping_at < 1.0 < messaging.FETCH_WAIT_SECONDS


async def test_a_consumer_jetstream_does_not_answer_for_at_once_is_asked_for_again(
    tmp_path: Path,
    subjects: Subjects,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A server of its own, frozen (SIGSTOP) for longer than one API request is waited
    for, as a busy cluster electing the consumer's leader keeps it waiting."""
    monkeypatch.setattr(messaging, "API_SECONDS", 0.5)
    server = start_nats(tmp_path / "jetstream", tmp_path)
    client = await messaging.connect(server.url, "frozen-consumer-test")
    handled: list[StoryChanged] = []

    async def handle(data: bytes) -> None:
        handled.append(decode(StoryChanged, data))

    async def good_one_handled() -> bool:
        return bool(handled)

    try:
        await messaging.ensure_stream(client, subjects, replicas=1)
        os.kill(server.process.pid, signal.SIGSTOP)
        asyncio.get_running_loop().call_later(1.5, os.kill, server.process.pid, signal.SIGCONT)
        durable = subjects.consumer("frozen")
        with caplog.at_level(logging.WARNING, logger="shared.messaging"):
            async with messaging.pulling(client, subjects.story_changed, durable, handle):
                await client.jetstream().publish(subjects.story_changed, encode(GOOD))
                await eventually(good_one_handled, seconds=5)
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        await client.close()
        server.stop()
    assert handled == [GOOD]
    assert f"JetStream did not answer within 0.5 s for {durable}; asking again" in caplog.text
