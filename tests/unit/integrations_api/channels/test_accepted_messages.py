"""channels/accepted.py on the in-memory store (held to DeliveryRecord's contract by
tests/integration/integrations_api/channels/test_delivery_record.py), its clock injected:
a message accepted is held until it is done, its leases renewed together; a look takes
over at most TAKEOVERS_PER_LOOK messages whose lease passed, each as it was accepted;
the background renews and looks, each at its own period."""

import asyncio
import json

import pytest

from integrations_api.channels.accepted import (
    KEPT_BYTES,
    LEASE_SECONDS,
    RENEW_SECONDS,
    SWEEP_SECONDS,
    TAKEOVERS_PER_LOOK,
    AcceptedMessages,
    TakenOver,
)
from integrations_api.channels.platform import Incoming, Profile
from integrations_api.channels.platforms import PLATFORMS
from integrations_api.channels.turns import turn_id
from support.channels import DeliveriesInMemory
from support.clock import FakeClock
from support.platforms.telegram import click_update, message_update

CREDENTIALS = {"botToken": "1:a", "webhookSecret": "s"}


def incoming(update: dict[str, object]) -> Incoming:
    (read,) = PLATFORMS["telegram"].read(CREDENTIALS, json.dumps(update).encode())
    assert isinstance(read, Incoming)
    return read


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store() -> DeliveriesInMemory:
    return DeliveriesInMemory()


def replica(store: DeliveriesInMemory, clock: FakeClock, name: str) -> AcceptedMessages:
    return AcceptedMessages(store, name, clock=clock)


def lease(store: DeliveriesInMemory, channel_id: str, delivery_id: str) -> int | None:
    return store.deliveries[channel_id, delivery_id].lease_until_ms


async def test_a_message_is_held_until_done_its_leases_renewed_together(
    store: DeliveriesInMemory, clock: FakeClock
) -> None:
    holder = replica(store, clock, "a")
    assert await holder.accept("c1", incoming(message_update(1, "hi")))
    assert await holder.accept("c2", incoming(message_update(1, "hi")))
    assert not await holder.accept("c1", incoming(message_update(1, "hi")))
    assert holder.held == {("c1", "1"), ("c2", "1")}
    assert lease(store, "c1", "1") == (clock.now + LEASE_SECONDS) * 1000

    clock.now += RENEW_SECONDS
    await holder.renew()
    assert {lease(store, c, "1") for c in ("c1", "c2")} == {(clock.now + LEASE_SECONDS) * 1000}

    await holder.done("c1", "1")
    assert holder.held == {("c2", "1")}
    assert store.deliveries["c1", "1"].message is None
    assert lease(store, "c1", "1") is None


class CountedRenewals(DeliveriesInMemory):
    def __init__(self) -> None:
        super().__init__()
        self.renewals = 0

    async def renew(self, holder: str, lease_until_ms: int) -> None:
        self.renewals += 1
        await super().renew(holder, lease_until_ms)


async def test_a_replica_holding_nothing_renews_nothing(clock: FakeClock) -> None:
    """A renewal is a write: an idle replica makes none."""
    store = CountedRenewals()
    holder = replica(store, clock, "a")
    await holder.renew()
    await holder.accept("c1", incoming(message_update(1, "hi")))
    await holder.renew()
    await holder.done("c1", "1")
    await holder.renew()
    assert store.renewals == 1


async def test_a_look_takes_over_a_few_expired_messages_each_as_accepted(
    store: DeliveriesInMemory, clock: FakeClock
) -> None:
    dead, alive = replica(store, clock, "dead"), replica(store, clock, "alive")
    sent = [incoming(message_update(n, f"message {n}")) for n in range(TAKEOVERS_PER_LOOK + 3)]
    sent.append(incoming(click_update(99, "large")))
    for message in sent:
        await dead.accept("c1", message)
    await alive.accept("c2", incoming(message_update(1, "mine")))
    assert sent[-1].profile == Profile(name="Ada", language="en")

    assert await alive.take_over(clock.now + LEASE_SECONDS - 1) == []
    first = await alive.take_over(clock.now + LEASE_SECONDS + 1)
    second = await alive.take_over(clock.now + LEASE_SECONDS + 1)

    assert first == [TakenOver("c1", message, 0) for message in sent[:TAKEOVERS_PER_LOOK]]
    assert second == [TakenOver("c1", message, 0) for message in sent[TAKEOVERS_PER_LOOK:]]
    assert alive.held == {("c2", "1")} | {("c1", m.delivery_id) for m in sent}
    assert {store.deliveries[key].holder for key in alive.held} == {"alive"}


async def test_a_message_taken_over_goes_on_after_the_call_under_way(
    store: DeliveriesInMemory, clock: FakeClock
) -> None:
    """The call under way reached the platform or never left: it is not sent again."""
    dead, alive = replica(store, clock, "dead"), replica(store, clock, "alive")
    message = incoming(message_update(1, "show me the menu"))
    await dead.accept("c1", message)
    await dead.sending("c1", "1", 0)
    await dead.sending("c1", "1", 2)
    await alive.sending("c1", "1", 4)  # not its message: nothing recorded

    assert await alive.take_over(clock.now + LEASE_SECONDS + 1) == [TakenOver("c1", message, 3)]


class Unreachable(DeliveriesInMemory):
    async def sending(self, channel_id: str, delivery_id: str, call: int) -> None:
        raise ConnectionError("the database is away")


async def test_an_answer_goes_on_when_its_call_cannot_be_recorded(clock: FakeClock) -> None:
    holder = replica(Unreachable(), clock, "a")
    await holder.accept("c1", incoming(message_update(1, "hi")))

    await holder.sending("c1", "1", 0)

    assert holder.held == {("c1", "1")}


async def test_a_message_held_here_already_is_not_taken_again(
    store: DeliveriesInMemory, clock: FakeClock
) -> None:
    """Its renewals failed for a while: it is still in this replica's work."""
    holder = replica(store, clock, "a")
    await holder.accept("c1", incoming(message_update(1, "hi")))

    assert await holder.take_over(clock.now + LEASE_SECONDS + 1) == []
    assert holder.held == {("c1", "1")}
    assert lease(store, "c1", "1") == (clock.now + 2 * LEASE_SECONDS + 1) * 1000


async def test_what_cannot_be_kept_or_read_is_never_taken_over(
    store: DeliveriesInMemory, clock: FakeClock
) -> None:
    holder, other = replica(store, clock, "a"), replica(store, clock, "b")
    long = incoming(message_update(1, "x" * KEPT_BYTES))
    assert await holder.accept("c1", long)
    assert holder.held == set()
    assert not await holder.accept("c1", long)
    await holder.accept("c1", incoming(message_update(2, "hi")))
    store.deliveries["c1", "2"].message = b'{"v": 1, "deliveryId": 2}'

    assert await other.take_over(clock.now + LEASE_SECONDS + 1) == []
    assert store.deliveries["c1", "2"].done_at_ms is not None
    assert other.held == set()


async def test_the_background_renews_and_looks_each_at_its_period(
    store: DeliveriesInMemory, clock: FakeClock
) -> None:
    dead = replica(store, clock, "dead")
    await dead.accept("c1", incoming(message_update(1, "hi")))
    clock.now += LEASE_SECONDS + 1
    asked: list[float] = []
    resumed: list[TakenOver] = []
    both_asleep, forever = asyncio.Event(), asyncio.Event()

    async def sleep(seconds: float) -> None:
        asked.append(seconds)
        if len(asked) == 2:
            both_asleep.set()
        await forever.wait()

    async def resume(taken: TakenOver) -> None:
        resumed.append(taken)

    alive = AcceptedMessages(store, "alive", clock=clock, sleep=sleep)
    await alive.accept("c2", incoming(message_update(1, "mine")))
    clock.now += 1
    alive.start(resume)
    await asyncio.wait_for(both_asleep.wait(), 5)
    await alive.close()
    await alive.close()

    assert sorted(asked) == sorted([RENEW_SECONDS, SWEEP_SECONDS])
    assert [(t.channel_id, t.incoming.query) for t in resumed] == [("c1", "hi")]
    assert lease(store, "c2", "1") == (clock.now + LEASE_SECONDS) * 1000


def test_a_message_s_turn_id_is_the_same_whoever_asks() -> None:
    assert turn_id("c1", "1") == turn_id("c1", "1")
    assert len({turn_id("c1", "1"), turn_id("c2", "1"), turn_id("c1", "2")}) == 3
