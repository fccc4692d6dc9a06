"""shared.expiry on nx-27017: `expiresAt` gets a plain index, swept, in place of a TTL index
(so a read no longer deletes), and a sweep deletes what expired before its time in the
swept collections only."""

from datetime import timedelta

from pymongo import AsyncMongoClient

from shared.config import Config
from shared.expiry import ensure_expiry, sweep, sweeps_on_read
from shared.timeutil import utcnow


async def test_the_embedded_server_is_known_to_sweep_on_read(
    mongo_client: AsyncMongoClient,
) -> None:
    assert await sweeps_on_read(mongo_client)


async def test_a_ttl_index_of_an_earlier_start_becomes_the_swept_index(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    sessions = mongo_client[config.bot_database]["sessions"]
    await sessions.create_index("expiresAt", expireAfterSeconds=0)
    await ensure_expiry(sessions)
    await ensure_expiry(sessions)  # every start ensures it again
    indexes = [index async for index in await sessions.list_indexes()]
    on_expiry = [index for index in indexes if "expiresAt" in index["key"]]
    assert [dict(index["key"]) for index in on_expiry] == [{"expiresAt": 1}]
    assert "expireAfterSeconds" not in on_expiry[0]
    past = utcnow() - timedelta(minutes=1)
    await sessions.insert_one({"_id": "gone", "expiresAt": past})
    assert await sessions.find_one({"_id": "gone"}) is not None  # no read deletes it


async def test_a_sweep_deletes_only_what_expired_in_swept_collections(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    database = mongo_client[config.bot_database]
    now = utcnow()
    swept, other, kept = database["turns"], database["idempotency_keys"], database["stories"]
    for collection in (swept, other):
        await ensure_expiry(collection)
    documents = [
        {"_id": f"{age}-{n}", "expiresAt": now + timedelta(seconds=age)}
        for age in (-3600, -1, 1, 3600)
        for n in range(3)
    ]
    for collection in (swept, other, kept):
        await collection.insert_many(documents)
    assert await sweep(database, now, page=4) == 12  # 6 in each, in pages of 4
    for collection in (swept, other):
        left = sorted([d["_id"] async for d in collection.find({}, projection=["_id"])])
        assert left == [f"{age}-{n}" for age in (1, 3600) for n in range(3)]
    assert await kept.count_documents({}) == 12
    assert await sweep(database, now) == 0
