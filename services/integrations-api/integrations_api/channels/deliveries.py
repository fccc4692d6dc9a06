"""The record of the platform deliveries accepted (`channel_deliveries`): one document per
(channel, delivery id), written before the platform gets its 200, so a delivery the
platform sends again is answered once; and, until the message is answered, what is needed
to answer it again, the replica holding it and its lease (channels/accepted.py), so that
a replica that dies with the message in hand does not lose it.

A document while its message waits or runs: `channelId`, `deliveryId`, `expiresAt`,
`message` (bytes: the message as channels/accepted.py keeps it), `holder` (the replica's
id), `leaseUntilMs` (epoch milliseconds: nx-27017 compares datetimes to the second,
docs/mongodb-compatibility.md) and, once its answer is being sent, `sending`: the call
under way (0 the first of those the answer renders; those before it went). Once answered
(or its failure recorded, or dropped) the last four are gone and `doneAtMs` says when; a
document without `leaseUntilMs` is never taken over. The use cases take it by its
Protocol (`DeliveryStore`), which tests/support/channels.py meets in memory.
"""

from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError

from shared.expiry import ensure_expiry
from shared.mongo import Database
from shared.timeutil import utcnow

DELIVERY_MEMORY = timedelta(hours=25)
"""How long a delivery id is remembered: Telegram keeps an unconfirmed update for 24
hours, an hour more for clocks. Every call is acknowledged at once, so a call processed
before comes again only when its acknowledgement was lost, at the platform's next retry,
well within that."""


@dataclass(frozen=True)
class Kept:
    """What the record of a message keeps until it is answered."""

    message: bytes
    holder: str
    lease_until_ms: int


@dataclass(frozen=True)
class Accepted:
    """A message accepted and not answered yet, as a takeover finds it."""

    channel_id: str
    delivery_id: str
    message: bytes
    sending: int | None
    """The call of its answer under way when its holder stopped; None before the first."""


class DeliveryStore(Protocol):
    async def accept(self, channel_id: str, delivery_id: str, kept: Kept | None) -> bool:
        """Whether the delivery is new, and now recorded: with what it `kept`, or (None)
        as a delivery id alone, which no one takes over."""

    async def renew(self, holder: str, lease_until_ms: int) -> None:
        """Every lease `holder` holds runs until `lease_until_ms`."""

    async def take_over(self, holder: str, now_ms: int, lease_until_ms: int) -> Accepted | None:
        """The oldest message whose lease passed before `now_ms` (whoever held it), now
        `holder`'s until `lease_until_ms`; None when there is none."""

    async def sending(self, channel_id: str, delivery_id: str, call: int) -> None:
        """The message's answer sends its call `call` now: those before it went."""

    async def done(self, channel_id: str, delivery_id: str, now_ms: int) -> None:
        """The message needs nothing more: what was kept of it and its lease go."""


class DeliveryRecord:
    """`channel_deliveries`, each document forgotten after DELIVERY_MEMORY (a TTL index),
    so the collection stays the size of a day's traffic; the messages it keeps are those
    not answered yet, a few seconds' traffic."""

    def __init__(self, database: Database) -> None:
        self.collection = database["channel_deliveries"]

    async def ensure_indexes(self) -> None:
        """The delivery ids, the leases the takeovers look through (only documents
        waiting for an answer have one) and the holders the renewals update."""
        await self.collection.create_index([("channelId", 1), ("deliveryId", 1)], unique=True)
        await self.collection.create_index([("leaseUntilMs", 1)], sparse=True)
        await self.collection.create_index([("holder", 1)], sparse=True)
        await ensure_expiry(self.collection)

    async def accept(self, channel_id: str, delivery_id: str, kept: Kept | None) -> bool:
        document = {
            "channelId": channel_id,
            "deliveryId": delivery_id,
            "expiresAt": utcnow() + DELIVERY_MEMORY,
        }
        if kept is not None:
            document |= {
                "message": kept.message,
                "holder": kept.holder,
                "leaseUntilMs": kept.lease_until_ms,
            }
        try:
            await self.collection.insert_one(document)
        except DuplicateKeyError:
            return False
        return True

    async def renew(self, holder: str, lease_until_ms: int) -> None:
        await self.collection.update_many(
            {"holder": holder}, {"$set": {"leaseUntilMs": lease_until_ms}}
        )

    async def take_over(self, holder: str, now_ms: int, lease_until_ms: int) -> Accepted | None:
        """One atomic update on the lease: two replicas looking at once never take the
        same message. Oldest accepted first (`_id`), so a conversation's messages are
        taken in the order they came, as far as one replica takes them all."""
        taken = await self.collection.find_one_and_update(
            {"leaseUntilMs": {"$lt": now_ms}},
            {"$set": {"holder": holder, "leaseUntilMs": lease_until_ms}},
            sort=[("_id", 1)],
            return_document=ReturnDocument.AFTER,
        )
        if taken is None:
            return None
        return Accepted(
            taken["channelId"], taken["deliveryId"], bytes(taken["message"]), taken.get("sending")
        )

    async def sending(self, channel_id: str, delivery_id: str, call: int) -> None:
        await self.collection.update_one(
            {"channelId": channel_id, "deliveryId": delivery_id}, {"$set": {"sending": call}}
        )

    async def done(self, channel_id: str, delivery_id: str, now_ms: int) -> None:
        await self.collection.update_one(
            {"channelId": channel_id, "deliveryId": delivery_id},
            {
                "$set": {"doneAtMs": now_ms},
                "$unset": {"message": "", "holder": "", "leaseUntilMs": "", "sending": ""},
            },
        )
