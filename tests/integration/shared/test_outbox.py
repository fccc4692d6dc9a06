"""The Outbox against the embedded MongoDB and a real JetStream: events of three accounts
wait in the outbox, are published oldest first, and each is deleted once published."""

import asyncio
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client
from nats.js.errors import NoStreamResponseError
from pymongo import AsyncMongoClient

from shared import messaging
from shared.config import Config
from shared.outbox import BATCH, Outbox
from support.documents import ACCOUNTS, contents


@pytest.fixture
async def nats(config: Config) -> AsyncIterator[Client]:
    client = await messaging.connect(config.nats_url, "outbox-test")
    await messaging.ensure_stream(client, config.subjects, config.nats_stream_replicas)
    yield client
    await client.jetstream().delete_stream(config.subjects.stream)
    await client.close()


@pytest.fixture
def outbox(mongo_client: AsyncMongoClient, config: Config, nats: Client) -> Outbox:
    return Outbox(mongo_client[config.bot_database], nats)


async def put_events(outbox: Outbox, config: Config, per_account: int) -> list[bytes]:
    """Events of every account in turns, on each kind of subject; their data in order."""
    subjects = config.subjects
    kinds = (subjects.story_changed, subjects.entities_changed, subjects.connection_changed)
    sent = []
    for n in range(per_account):
        for account in ACCOUNTS:
            data = f"{account}:{n}".encode()
            await outbox.put(kinds[n % 3], data)
            sent.append(data)
    return sent


async def published(nats: Client, config: Config) -> list[tuple[str, bytes, str]]:
    """(subject, data, message id) of every message in the stream, in stream order."""
    jetstream = nats.jetstream()
    count = (await jetstream.stream_info(config.subjects.stream)).state.messages
    messages = [await jetstream.get_msg(config.subjects.stream, seq) for seq in range(1, count + 1)]
    return [(m.subject, m.data or b"", (m.headers or {})["Nats-Msg-Id"]) for m in messages]


async def test_publish_pending_publishes_every_event_oldest_first_and_empties_the_outbox(
    outbox: Outbox, nats: Client, config: Config, mongo_client: AsyncMongoClient
) -> None:
    sent = await put_events(outbox, config, per_account=3)
    waiting = await contents(mongo_client[config.bot_database]["outbox"])

    assert await outbox.publish_pending() == len(sent)

    stream = await published(nats, config)
    assert [data for _, data, _ in stream] == sent
    assert [message_id for _, _, message_id in stream] == [str(k) for k in waiting]
    assert [subject for subject, _, _ in stream] == [d["subject"] for d in waiting.values()]
    assert await contents(mongo_client[config.bot_database]["outbox"]) == {}


async def test_publish_pending_publishes_one_batch_and_leaves_the_newest_waiting(
    outbox: Outbox, nats: Client, config: Config, mongo_client: AsyncMongoClient
) -> None:
    sent = await put_events(outbox, config, per_account=BATCH // len(ACCOUNTS) + 1)

    assert await outbox.publish_pending() == BATCH

    assert [data for _, data, _ in await published(nats, config)] == sent[:BATCH]
    left = await contents(mongo_client[config.bot_database]["outbox"])
    assert [bytes(d["data"]) for d in left.values()] == sent[BATCH:]


async def test_an_event_that_cannot_be_published_waits_with_every_later_one(
    outbox: Outbox, nats: Client, config: Config, mongo_client: AsyncMongoClient
) -> None:
    sent = await put_events(outbox, config, per_account=1)
    await outbox.put("outside.the.stream", b"refused")
    later = await put_events(outbox, config, per_account=1)

    with pytest.raises(NoStreamResponseError):  # no stream takes that subject
        await outbox.publish_pending()

    assert [data for _, data, _ in await published(nats, config)] == sent
    left = await contents(mongo_client[config.bot_database]["outbox"])
    assert [bytes(d["data"]) for d in left.values()] == [b"refused", *later]


async def test_run_publishes_what_waits_and_each_put_until_stopped(
    outbox: Outbox, nats: Client, config: Config, mongo_client: AsyncMongoClient
) -> None:
    sent = await put_events(outbox, config, per_account=1)
    running = asyncio.create_task(outbox.run())

    sent += await put_events(outbox, config, per_account=1)
    for _ in range(100):
        if len(await published(nats, config)) == len(sent):
            break
        await asyncio.sleep(0.05)

    outbox.stop()
    await asyncio.wait_for(running, timeout=5)
    assert [data for _, data, _ in await published(nats, config)] == sent
    assert await contents(mongo_client[config.bot_database]["outbox"]) == {}
