"""Documents that expire at their `expiresAt`: sessions, turns, conversations' summaries,
idempotency keys, channel updates seen.

MongoDB removes them through a TTL index, whose monitor sweeps once a minute. nx-27017,
the embedded default, sweeps a collection with a TTL index on every read of it instead
(two deletes by `expiresAt` before each find or count): the baseline handler of `make
bench` (one session read and one write) ran at 214-220 req/s with the TTL index and
507-670 without it, side by side on 2026-12-02. So on nx-27017 `expiresAt` gets a plain
index (nx-27017 names indexes itself: a plain index on the field alone is the mark) and
each service sweeps the collections of its database that carry one, once a minute, as
MongoDB's monitor would. A document may outlive its `expiresAt` by about a minute on
either server; what must not be read past then (a session's state) checks the time.
"""

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pymongo.asynchronous.collection import AsyncCollection

from shared.mongo import Client, Database, Document
from shared.timeutil import utcnow

log = logging.getLogger(__name__)

FIELD = "expiresAt"
SWEEP_SECONDS = 60.0
"""MongoDB's TTL monitor runs every 60 s (its `ttlMonitorSleepSecs`)."""
SWEEP_PAGE = 5_000
"""Documents a sweep deletes at once: a backlog (a service that was stopped for a day, a
story's `historyDays` shortened) goes in several deletes, between which the server
answers the others, instead of one long delete that holds the embedded server."""


async def sweeps_on_read(client: Client) -> bool:
    """Whether the server deletes expired documents on every read (nx-27017 names itself
    in `buildInfo`'s `process`)."""
    info = await client.admin.command("buildInfo")
    return bool(info.get("process") == "nx_27017")


async def ensure_expiry(collection: AsyncCollection[Document]) -> None:
    """The documents of `collection` expire at their `expiresAt`: a TTL index on MongoDB,
    a plain one, swept, on nx-27017 (a TTL index an earlier start made is dropped)."""
    if not await sweeps_on_read(collection.database.client):
        await collection.create_index(FIELD, expireAfterSeconds=0)
        return
    indexes = [index async for index in await collection.list_indexes()]
    for index in indexes:
        if dict(index["key"]) == {FIELD: 1} and "expireAfterSeconds" in index:
            await collection.drop_index(index["name"])
    await collection.create_index(FIELD)


async def sweep(database: Database, now: datetime, page: int = SWEEP_PAGE) -> int:
    """Delete what expired before `now` in every collection of `database` with a swept
    index, `page` documents a delete; how many documents went."""
    removed = 0
    for name in await database.list_collection_names():
        collection = database[name]
        indexes = [index async for index in await collection.list_indexes()]
        if not any(map(_swept, indexes)):
            continue
        while True:
            expired = collection.find({FIELD: {"$lt": now}}, ["_id"]).limit(page)
            ids = [document["_id"] async for document in expired]
            if ids:
                removed += (await collection.delete_many({"_id": {"$in": ids}})).deleted_count
            if len(ids) < page:
                break
    return removed


def _swept(index: Mapping[str, Any]) -> bool:
    return dict(index["key"]) == {FIELD: 1} and "expireAfterSeconds" not in index


async def sweep_forever(database: Database) -> None:
    """`sweep` every `SWEEP_SECONDS`; a failed sweep is logged and tried again next time."""
    while True:
        await asyncio.sleep(SWEEP_SECONDS)
        try:
            await sweep(database, utcnow())
        except Exception:
            log.exception("sweeping expired documents failed; trying again in a minute")
