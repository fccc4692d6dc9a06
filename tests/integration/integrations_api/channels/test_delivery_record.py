"""DeliveryRecord on the embedded MongoDB and its in-memory twin, held to one contract:
three channels, each with messages accepted by two replicas and a delivery recorded
without its message; every call changes exactly the records it names (whole collections
compared before and after), and a takeover takes each message once, even when three
replicas look at once."""

import asyncio
from collections.abc import AsyncIterator

import pytest

from integrations_api.channels.deliveries import DeliveryRecord, DeliveryStore, Kept
from shared import mongo
from shared.config import Config
from support.channels import DeliveriesInMemory

CHANNELS = ("c1", "c2", "c3")
ALIVE, DEAD, TAKER = "replica-alive", "replica-dead", "replica-taker"
LEASES = {ALIVE: 2_000, DEAD: 1_000}
"""Each holder's lease once seeded, in epoch milliseconds."""
Key = tuple[str, str]
Record = tuple[bytes | None, str | None, int | None, int | None, bool]
"""A record as both stores show it: the message kept, its holder, its lease, the call
its answer is sending, done."""


@pytest.fixture(params=["mongodb", "memory"])
async def stores(
    request: pytest.FixtureRequest, config: Config
) -> AsyncIterator[list[DeliveryStore]]:
    """Three stores of one collection, each on a client of its own (MongoDB), as three
    replicas have them."""
    if request.param == "memory":
        yield [DeliveriesInMemory()] * 3
        return
    clients = [mongo.open_client(config.mongodb_url) for _ in range(3)]
    records = [DeliveryRecord(client[config.integrations_database]) for client in clients]
    await records[0].ensure_indexes()
    yield list(records)
    for client in clients:
        await client.close()


@pytest.fixture
def deliveries(stores: list[DeliveryStore]) -> DeliveryStore:
    return stores[0]


async def snapshot(store: DeliveryStore) -> dict[Key, Record]:
    if isinstance(store, DeliveryRecord):
        return {
            (d["channelId"], d["deliveryId"]): (
                d.get("message"), d.get("holder"), d.get("leaseUntilMs"), d.get("sending"),
                "doneAtMs" in d,
            )
            async for d in store.collection.find({})
        }  # fmt: skip
    assert isinstance(store, DeliveriesInMemory)
    return {
        key: (d.message, d.holder, d.lease_until_ms, d.sending, d.done_at_ms is not None)
        for key, d in store.deliveries.items()
    }


def changed(before: dict[Key, Record], after: dict[Key, Record]) -> set[Key]:
    return {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}


def kept(key: Key) -> bytes:
    return "/".join(key).encode()


async def seed(deliveries: DeliveryStore) -> list[Key]:
    """Per channel two messages of each holder, accepted in turn, and one delivery
    recorded without its message; the keys of the messages, oldest first."""
    keys = []
    for n in range(2):
        for channel in CHANNELS:
            for holder, lease in LEASES.items():
                key = (channel, f"{holder}-{n}")
                assert await deliveries.accept(*key, Kept(kept(key), holder, lease))
                keys.append(key)
    for channel in CHANNELS:
        assert await deliveries.accept(channel, "unkept", None)
    return keys


async def test_a_delivery_is_new_once_per_channel(deliveries: DeliveryStore) -> None:
    assert await deliveries.accept("c1", "100", Kept(b"m", ALIVE, 1))
    assert not await deliveries.accept("c1", "100", Kept(b"other", DEAD, 2))
    assert await deliveries.accept("c2", "100", None)
    assert await deliveries.accept("c1", "101", Kept(b"m", ALIVE, 1))
    assert not await deliveries.accept("c2", "100", Kept(b"m", ALIVE, 1))
    assert await snapshot(deliveries) == {
        ("c1", "100"): (b"m", ALIVE, 1, None, False),
        ("c2", "100"): (None, None, None, None, False),
        ("c1", "101"): (b"m", ALIVE, 1, None, False),
    }


async def test_takeovers_take_the_messages_whose_lease_passed_oldest_first_once(
    deliveries: DeliveryStore,
) -> None:
    keys = await seed(deliveries)
    before = await snapshot(deliveries)

    taken = []
    while (accepted := await deliveries.take_over(TAKER, 1_500, 9_000)) is not None:
        taken.append(accepted)

    dead = [key for key in keys if before[key][1] == DEAD]
    assert [(a.channel_id, a.delivery_id) for a in taken] == dead
    assert all(a.message == kept((a.channel_id, a.delivery_id)) for a in taken)
    after = await snapshot(deliveries)
    assert changed(before, after) == set(dead)
    assert {after[key] for key in dead} == {(kept(key), TAKER, 9_000, None, False) for key in dead}
    assert await deliveries.take_over(DEAD, 1_500, 9_000) is None


async def test_a_renewal_extends_the_leases_of_its_holder_only(deliveries: DeliveryStore) -> None:
    keys = await seed(deliveries)
    before = await snapshot(deliveries)

    await deliveries.renew(DEAD, 3_000)

    after = await snapshot(deliveries)
    dead = {key for key in keys if before[key][1] == DEAD}
    assert changed(before, after) == dead
    assert {after[key][2] for key in dead} == {3_000}
    accepted = await deliveries.take_over(TAKER, 2_500, 9_000)
    assert accepted is not None and before[accepted.channel_id, accepted.delivery_id][1] == ALIVE
    taken = await snapshot(deliveries)
    await deliveries.renew("no-one", 4_000)
    assert await snapshot(deliveries) == taken


async def test_the_call_an_answer_sends_is_its_message_s_and_a_takeover_reads_it(
    deliveries: DeliveryStore,
) -> None:
    keys = await seed(deliveries)
    sending = {("c2", f"{DEAD}-1"): 0, ("c3", f"{DEAD}-0"): 3}
    before = await snapshot(deliveries)

    for key, call in sending.items():
        await deliveries.sending(*key, call)

    after = await snapshot(deliveries)
    assert changed(before, after) == set(sending)
    assert {key: after[key][3] for key in sending} == sending
    taken = {}
    while (accepted := await deliveries.take_over(TAKER, 1_500, 9_000)) is not None:
        taken[accepted.channel_id, accepted.delivery_id] = accepted.sending
    assert taken == {key: sending.get(key) for key in keys if before[key][1] == DEAD}


async def test_a_message_done_keeps_nothing_and_is_never_taken_over(
    deliveries: DeliveryStore,
) -> None:
    keys = await seed(deliveries)
    finished = {("c2", f"{ALIVE}-1"), ("c3", f"{DEAD}-0")}
    await deliveries.sending("c3", f"{DEAD}-0", 2)
    before = await snapshot(deliveries)

    for key in finished:
        await deliveries.done(*key, 1_200)
    await deliveries.renew(DEAD, 1_100)

    after = await snapshot(deliveries)
    renewed = {key for key in keys if before[key][1] == DEAD} - finished
    assert changed(before, after) == finished | renewed
    assert {after[key] for key in finished} == {(None, None, None, None, True)}
    taken = set()
    while (accepted := await deliveries.take_over(TAKER, 10_000, 20_000)) is not None:
        taken.add((accepted.channel_id, accepted.delivery_id))
    assert taken == set(keys) - finished
    for key in finished:
        assert not await deliveries.accept(*key, Kept(b"again", TAKER, 1))


async def test_replicas_taking_over_at_once_take_each_message_once(
    stores: list[DeliveryStore],
) -> None:
    for n in range(30):
        await stores[0].accept(CHANNELS[n % 3], str(n), Kept(b"m", DEAD, 1_000))

    async def take_all(store: DeliveryStore, holder: str) -> list[Key]:
        taken = []
        while (accepted := await store.take_over(holder, 2_000, 9_000)) is not None:
            taken.append((accepted.channel_id, accepted.delivery_id))
        return taken

    each = await asyncio.gather(*(take_all(s, f"replica-{k}") for k, s in enumerate(stores)))

    taken = [key for keys in each for key in keys]
    assert sorted(taken) == sorted((CHANNELS[n % 3], str(n)) for n in range(30))
    holders = {key: record[1] for key, record in (await snapshot(stores[0])).items()}
    assert all(holders[key] == f"replica-{k}" for k, keys in enumerate(each) for key in keys)
