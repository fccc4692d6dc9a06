"""PhraseVectorRepository against the embedded MongoDB: vectors come back as stored
(float16 precision), only those asked for; a key stored already keeps its vector."""

import numpy as np
from pymongo import AsyncMongoClient

from bot_api.engine.semantic import vector_key
from bot_api.storage.vectors import PhraseVectorRepository
from shared.config import Config


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
