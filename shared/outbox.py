"""Events survive a NATS outage: written to MongoDB first, published from there.

`put` stores the event (after the business write it reports succeeded); a background
task publishes pending events oldest first and deletes each only once JetStream has
acknowledged it. While NATS is away, events wait and are retried. An event published
but not yet deleted when a process stops is published again: JetStream drops the
duplicate by its message id (the outbox id) and consumers are idempotent anyway.
"""

import asyncio
import logging

from bson import ObjectId
from nats.aio.client import Client

from shared.metrics import EVENTS_PUBLISHED, OUTBOX_BACKLOG
from shared.mongo import Database

log = logging.getLogger(__name__)
BATCH = 100
PUBLISH_TIMEOUT_SECONDS = 2.0
RETRY_SECONDS = 0.5


class Outbox:
    def __init__(self, database: Database, nats: Client) -> None:
        self._collection = database["outbox"]
        self._nats = nats
        self._pending = asyncio.Event()
        self._stopping = False

    async def put(self, subject: str, data: bytes) -> None:
        await self._collection.insert_one({"_id": ObjectId(), "subject": subject, "data": data})
        OUTBOX_BACKLOG.inc()
        self._pending.set()

    async def publish_pending(self) -> int:
        """Publish what waits, oldest first; the number published."""
        published = 0
        jetstream = self._nats.jetstream()
        cursor = self._collection.find({}).sort("_id", 1).limit(BATCH)
        async for event in cursor:
            if self._stopping:
                break
            await jetstream.publish(
                event["subject"],
                bytes(event["data"]),
                timeout=PUBLISH_TIMEOUT_SECONDS,
                headers={"Nats-Msg-Id": str(event["_id"])},
            )
            await self._collection.delete_one({"_id": event["_id"]})
            EVENTS_PUBLISHED.inc()
            published += 1
        return published

    def stop(self) -> None:
        """Let `run` finish its current step and return (no operation is cut short)."""
        self._stopping = True
        self._pending.set()

    async def run(self) -> None:
        """Publish whenever something waits: at start (what a previous run left), after
        each `put`, and again after a failure. Idle, it reads nothing."""
        while not self._stopping:
            self._pending.clear()
            try:
                while await self.publish_pending() == BATCH:
                    pass
                OUTBOX_BACKLOG.set(0)
            except Exception as error:
                log.info("outbox waits for NATS: %s", error)
                if not self._stopping:
                    await asyncio.sleep(RETRY_SECONDS)
                self._pending.set()
            await self._pending.wait()
