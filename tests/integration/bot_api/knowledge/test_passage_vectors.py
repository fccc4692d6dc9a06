"""Passage vectors on the embedded MongoDB (and on its in-memory twin, held to the same
contract) with the real encoder: after a restart the
passages still without a vector are queued again and stored, the document's
`vectorsPending` reaching 0 and the story told once; a vector computed for a revision
replaced meanwhile is not counted; a forgotten document's passages are not encoded."""

from datetime import UTC, datetime

import numpy as np
import pytest
from pymongo import AsyncMongoClient

from bot_api.encoding.e5_small import MODEL_ID, E5SmallEncoder
from bot_api.knowledge.passages import Passage
from bot_api.knowledge.records import StoredDocument, StoredPassage
from bot_api.knowledge.repository import KnowledgeRepository, KnowledgeStore
from bot_api.knowledge.vectors import PassageVectors
from integration.bot_api.knowledge.memory import KnowledgeInMemory
from shared.config import Config

TEXTS = ("The shop opens at nine.", "Goods may be returned within thirty days.")


def passages(document_id: str) -> list[StoredPassage]:
    return [
        StoredPassage(Passage(f"{document_id}.{n}", document_id, text, (), None, 0, len(text)), ())
        for n, text in enumerate(TEXTS)
    ]


def document(document_id: str, revision: int) -> StoredDocument:
    now = datetime.now(UTC)
    return StoredDocument(
        id=document_id,
        title="Shop",
        kind="text",
        media_type="text/plain",
        revision=revision,
        sha256="",
        characters=60,
        passages=len(TEXTS),
        created_at=now,
        updated_at=now,
        vectors_pending=len(TEXTS),
    )


@pytest.fixture(params=["mongodb", "memory"])
def store(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> KnowledgeStore:
    if request.param == "mongodb":
        return KnowledgeRepository(mongo_client[config.bot_database])
    return KnowledgeInMemory()


async def stored(store: KnowledgeStore, document_id: str) -> StoredDocument | None:
    await store.ensure_indexes()
    await store.insert_passages("a", "s", 1, passages(document_id))
    await store.put("a", "s", document(document_id, 1))
    return await store.get("a", "s", document_id)


async def test_a_restart_queues_the_passages_without_vectors_again(store: KnowledgeStore) -> None:
    await stored(store, "d1")
    told: list[tuple[str, str]] = []

    async def landed(account_id: str, story_id: str) -> None:
        told.append((account_id, story_id))

    vectors = PassageVectors(store, E5SmallEncoder(), landed)
    await vectors.resume()
    assert vectors.waiting() == len(TEXTS)
    await vectors.idle()
    read = await store.get("a", "s", "d1")
    assert read is not None and read.vectors_pending == 0
    kept = await store.passages("a", "s")
    assert all(p.model == MODEL_ID and p.vector is not None for p in kept)
    assert all(np.isclose(np.linalg.norm(p.vector), 1.0) for p in kept if p.vector is not None)
    assert told == [("a", "s")]
    assert await store.pending() == []
    await vectors.close()


async def test_a_vector_of_a_replaced_revision_counts_for_nothing(store: KnowledgeStore) -> None:
    await stored(store, "d2")
    await store.insert_passages("a", "s", 2, passages("d2"))
    await store.put("a", "s", document("d2", 2))
    row = np.ones(384, np.float32) / np.sqrt(384)
    assert await store.put_vectors("d2", 1, MODEL_ID, {"d2.0": row}) == 0
    assert await store.put_vectors("d2", 2, MODEL_ID, {"d2.0": row}) == 1
    assert await store.put_vectors("d2", 2, MODEL_ID, {"d2.0": row}) == 0  # stored already
    read = await store.get("a", "s", "d2")
    assert read is not None and read.vectors_pending == len(TEXTS) - 1


async def test_a_forgotten_document_is_not_encoded(store: KnowledgeStore) -> None:
    await stored(store, "d3")

    async def landed(account_id: str, story_id: str) -> None:
        raise AssertionError("nothing was to land")

    vectors = PassageVectors(store, E5SmallEncoder(), landed)
    vectors.enqueue("a", "s", "d3", 1, "Shop", [p.passage for p in passages("d3")])
    vectors.forget_document("d3")
    assert vectors.waiting() == 0
    await vectors.idle()
    read = await store.get("a", "s", "d3")
    assert read is not None and read.vectors_pending == len(TEXTS)
    await vectors.close()
