"""PhraseVectorRepository against the embedded MongoDB: vectors come back as stored
(float16 precision), only those asked for; a key stored already keeps its vector; and
the background encoding stores them whatever the deadline of the request that asked."""

import asyncio
import uuid

import numpy as np
import pymongo
from pymongo import AsyncMongoClient

from bot_api.conversations.vectors import PhraseVectorService
from bot_api.engine.semantic import vector_key
from bot_api.storage.vectors import PhraseVectorRepository
from shared.config import Config
from support.encoders import ConceptEncoder


async def test_vectors_round_trip_by_key(mongo_client: AsyncMongoClient, config: Config) -> None:
    repository = PhraseVectorRepository(mongo_client[config.bot_database])
    rows = np.random.default_rng(3).standard_normal((3, 384)).astype(np.float32)
    keys = [vector_key("m", t) for t in ("a", "b", "c")]
    await repository.put("m", dict(zip(keys, rows, strict=True)))
    assert await repository.find([]) == {}
    found = await repository.find([keys[0], keys[2], vector_key("m", "unknown")])
    assert set(found) == {keys[0], keys[2]}
    assert found[keys[2]].dtype == np.float32
    np.testing.assert_allclose(found[keys[2]], rows[2], atol=2e-3)
    fourth = vector_key("m", "d")
    await repository.put("m", {keys[0]: rows[1], fourth: rows[1]})
    found = await repository.find([keys[0], fourth])
    np.testing.assert_allclose(found[keys[0]], rows[0], atol=2e-3)
    np.testing.assert_allclose(found[fourth], rows[1], atol=2e-3)


async def test_vectors_a_request_queued_are_stored_after_its_deadline(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    """The request that finds phrases without vectors does not wait for them: their
    encoding outlives its database deadline and must not inherit it."""
    repository = PhraseVectorRepository(mongo_client[config.bot_database])
    encoder = ConceptEncoder()
    encoder.released.clear()
    service = PhraseVectorService(repository, encoder)
    landed = asyncio.Event()

    async def on_landed(interaction_ids: set[str]) -> None:
        landed.set()

    text = f"hello there {uuid.uuid4()}"
    with pymongo.timeout(0.5):
        assert (await service.load("story", {"greet": [text]}, on_landed)).by_key == {}
    await asyncio.sleep(0.6)
    encoder.released.set()
    try:
        await asyncio.wait_for(landed.wait(), timeout=10)
    finally:
        await service.close()
    assert set(await repository.find([vector_key(encoder.model_id, text)]))
