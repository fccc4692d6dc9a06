"""PhraseVectorRepository on the embedded MongoDB (and, where its in-memory twin exists
for, that twin too, held to the same contract): vectors come back as stored (float16
precision), only those asked for; a key stored already keeps its vector; each read or
put marks the story using the vector (a look-up of which are stored marks none), and a
sweep deletes a vector once no story marks it; and the background encoding stores them
whatever the deadline of the request that asked."""

import asyncio
import uuid
from collections.abc import AsyncIterator

import numpy as np
import pymongo
import pytest
from pymongo import AsyncMongoClient

from bot_api.engine.semantic import Encoders, vector_key
from bot_api.story_cache.repository import PhraseVectorRepository, VectorStore
from bot_api.story_cache.vectors import PhraseVectorService
from integration.bot_api.story_cache.memory import VectorsInMemory
from shared.config import Config
from support.encoders import ConceptEncoder


@pytest.fixture(params=["mongodb", "memory"])
async def vectors(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[VectorStore]:
    store: VectorStore
    if request.param == "mongodb":
        store = PhraseVectorRepository(mongo_client[config.bot_database])
    else:
        store = VectorsInMemory()
    await store.ensure_indexes()
    yield store


async def test_vectors_round_trip_by_key(vectors: VectorStore) -> None:
    repository = vectors
    rows = np.random.default_rng(3).standard_normal((3, 384)).astype(np.float32)
    keys = [vector_key("m", t) for t in ("a", "b", "c")]
    await repository.put("m", "story-1", dict(zip(keys, rows, strict=True)))
    assert await repository.take("story-1", []) == {}
    found = await repository.take("story-1", [keys[0], keys[2], vector_key("m", "unknown")])
    assert set(found) == {keys[0], keys[2]}
    assert found[keys[2]].dtype == np.float16
    np.testing.assert_allclose(found[keys[2]], rows[2], atol=2e-3)
    fourth = vector_key("m", "d")
    await repository.put("m", "story-1", {keys[0]: rows[1], fourth: rows[1]})
    found = await repository.take("story-1", [keys[0], fourth])
    np.testing.assert_allclose(found[keys[0]], rows[0], atol=2e-3)
    np.testing.assert_allclose(found[fourth], rows[1], atol=2e-3)


async def test_a_vector_is_deleted_once_no_story_that_marked_it_keeps_it(
    vectors: VectorStore,
) -> None:
    repository = vectors
    run = uuid.uuid4().hex
    first, second = f"first-{run}", f"second-{run}"
    keys = [vector_key("m", f"{t} {run}") for t in ("shared", "first only", "put twice")]
    shared, _, put_twice = keys
    rows = np.random.default_rng(4).standard_normal((3, 384)).astype(np.float32)
    await repository.put("m", first, dict(zip(keys, rows, strict=True)))
    assert set(await repository.take(second, [shared])) == {shared}
    await repository.put("m", second, {put_twice: rows[0]})
    assert await repository.sweep(first, keep={shared}, limit=10) == 2
    assert set(await repository.take(third := f"third-{run}", keys)) == {shared, put_twice}
    assert await repository.sweep(third, keep=set(), limit=10) == 2
    assert await repository.sweep(first, keep=set(), limit=1) == 1
    assert set(await repository.take(second, keys)) == {shared, put_twice}
    assert await repository.sweep(second, keep=set(), limit=10) == 2
    assert await repository.take(first, keys) == {}


async def test_stored_says_which_keys_have_a_vector_and_marks_no_story(
    vectors: VectorStore,
) -> None:
    """What a replica awaiting another's vectors reads: ids alone, leaving no mark."""
    run = uuid.uuid4().hex
    kept, missing = vector_key("m", f"kept {run}"), vector_key("m", f"missing {run}")
    await vectors.put("m", f"writer-{run}", {kept: np.ones(384, np.float32)})
    assert await vectors.stored([kept, missing, kept]) == {kept}
    assert await vectors.sweep(f"reader-{run}", keep=set(), limit=10) == 0, "no mark left"


async def test_vectors_stored_before_stories_existed_are_marked_when_read(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    repository = PhraseVectorRepository(mongo_client[config.bot_database])
    run = uuid.uuid4().hex
    key = vector_key("m", f"stored long ago {run}")
    vector = np.ones(384, np.float16)
    await repository.collection.insert_one({"_id": key, "model": "m", "vector": vector.tobytes()})
    assert set(await repository.take(f"story-{run}", [key])) == {key}
    assert await repository.sweep(f"story-{run}", keep=set(), limit=10) == 1
    assert await repository.take(f"story-{run}", [key]) == {}


async def test_vectors_a_request_queued_are_stored_after_its_deadline(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    """The request that finds phrases without vectors does not wait for them: their
    encoding outlives its database deadline and must not inherit it."""
    repository = PhraseVectorRepository(mongo_client[config.bot_database])
    encoder = ConceptEncoder()
    encoder.released.clear()
    service = PhraseVectorService(repository, Encoders((encoder,)))
    landed = asyncio.Event()

    async def on_landed(interaction_ids: set[str]) -> None:
        landed.set()

    text = f"hello there {uuid.uuid4()}"
    with pymongo.timeout(0.5):
        assert (await service.load("story", encoder, {"greet": [text]}, on_landed)).by_key == {}
    await asyncio.sleep(0.6)
    encoder.released.set()
    try:
        await asyncio.wait_for(landed.wait(), timeout=10)
    finally:
        await service.close()
    assert set(await repository.take("story", [vector_key(encoder.model_id, text)]))
