"""A story's documents (`knowledge_documents`, one per document: its title, source,
FAQ pairs and counts) and their passages (`knowledge_passages`, one per passage, with
the terms the index reads and, once computed in the background, its vector: float32
bytes and the model's id; knowledge/vectors.py).

A document is written whole or not at all: its passages are inserted first under a new
`revision`, then the document's record names that revision, then the passages of the
revisions before are deleted. A reader takes only the passages of the revision a
document names, so it never sees half of one (a write that stops midway leaves
passages no record names, which the next write of the document, its deletion or the
story's deletes).

A version of the story freezes its documents' records as they are (`knowledge_frozen`,
one record per version): the passages of a revision a version names are kept until the
version is deleted, so a published version answers from the documents it was frozen
with (`passages(..., version_id)`).
"""

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from bot_api.engine.semantic import Vectors
from bot_api.knowledge.records import (
    PendingPassage,
    StoredDocument,
    StoredPassage,
    document_record,
    passage_record,
    stored_document,
    stored_passage,
)
from shared.mongo import Database

INSERT_BATCH = 500
"""Passages a write sends at once: a 50-page PDF's 300-odd in one message."""


class KnowledgeStore(Protocol):
    async def ensure_indexes(self) -> None: ...

    async def insert_passages(
        self,
        account_id: str,
        story_id: str,
        revision: int,
        passages: Sequence[StoredPassage],
    ) -> None:
        """Passages of a revision of a document, not read until `put` names it; those a
        write of the same revision left before it stopped are replaced (its retry)."""

    async def put(self, account_id: str, story_id: str, document: StoredDocument) -> None:
        """The document's record (made or replaced), then its earlier revisions'
        passages deleted."""

    async def documents_of(self, account_id: str, story_id: str) -> list[StoredDocument]: ...

    async def get(
        self, account_id: str, story_id: str, document_id: str
    ) -> StoredDocument | None: ...

    async def delete(self, account_id: str, story_id: str, document_id: str) -> bool:
        """False: the story has no such document."""

    async def passages(
        self, account_id: str, story_id: str, version_id: str | None = None
    ) -> list[StoredPassage]:
        """The passages of the revisions the story's documents name (those a version of
        it froze, with `version_id`), in document order."""

    async def document_passages(
        self, account_id: str, story_id: str, document: StoredDocument
    ) -> list[StoredPassage]:
        """The passages of the revision the document names, in order."""

    async def freeze(self, account_id: str, story_id: str, version_id: str) -> None:
        """The story's documents as they are now, kept for its version."""

    async def frozen(
        self, account_id: str, story_id: str, version_id: str
    ) -> list[StoredDocument] | None:
        """The documents a version froze; None when it froze none (a version made before
        documents were frozen, or whose freeze did not land)."""

    async def thaw(self, account_id: str, story_id: str, version_id: str) -> None:
        """The version is deleted: its documents' passages no longer kept for it."""

    async def characters(self, account_id: str) -> int:
        """The characters of all the account's documents."""

    async def put_vectors(
        self, document_id: str, revision: int, model: str, vectors: dict[str, Vectors]
    ) -> int:
        """Each passage's vector (by passage id) stored where it has none yet, and the
        document's `vectorsPending` lowered by as many; that count (0 for a revision
        replaced meanwhile)."""

    async def pending(self) -> list[PendingPassage]:
        """Every passage of a current revision without a vector, in document order."""

    async def delete_for_story(self, story_id: str) -> None: ...


class KnowledgeRepository:
    def __init__(self, database: Database) -> None:
        self.documents = database["knowledge_documents"]
        self.passage_records = database["knowledge_passages"]
        self.frozen_records = database["knowledge_frozen"]

    async def ensure_indexes(self) -> None:
        await self.documents.create_index("storyId")
        await self.documents.create_index("accountId")
        await self.passage_records.create_index("documentId")
        await self.passage_records.create_index("storyId")
        await self.frozen_records.create_index("storyId")

    async def insert_passages(
        self,
        account_id: str,
        story_id: str,
        revision: int,
        passages: Sequence[StoredPassage],
    ) -> None:
        records = [passage_record(account_id, story_id, revision, p) for p in passages]
        for document_id in {p.passage.document_id for p in passages}:
            await self.passage_records.delete_many(
                {"documentId": document_id, "storyId": story_id, "revision": revision}
            )
        for start in range(0, len(records), INSERT_BATCH):
            await self.passage_records.insert_many(records[start : start + INSERT_BATCH])

    async def put(self, account_id: str, story_id: str, document: StoredDocument) -> None:
        record = document_record(account_id, story_id, document)
        await self.documents.replace_one({"_id": document.id}, record, upsert=True)
        await self._prune(story_id, document.id, {document.revision})

    async def documents_of(self, account_id: str, story_id: str) -> list[StoredDocument]:
        found = self.documents.find({"storyId": story_id, "accountId": account_id})
        documents = [stored_document(d) async for d in found]
        return sorted(documents, key=lambda d: (d.created_at, d.id))

    async def get(self, account_id: str, story_id: str, document_id: str) -> StoredDocument | None:
        found = await self.documents.find_one(
            {"_id": document_id, "storyId": story_id, "accountId": account_id}
        )
        return None if found is None else stored_document(found)

    async def delete(self, account_id: str, story_id: str, document_id: str) -> bool:
        deleted = await self.documents.delete_one(
            {"_id": document_id, "storyId": story_id, "accountId": account_id}
        )
        if deleted.deleted_count == 1:
            await self._prune(story_id, document_id, set())
        return deleted.deleted_count == 1

    async def passages(
        self, account_id: str, story_id: str, version_id: str | None = None
    ) -> list[StoredPassage]:
        frozen = None if version_id is None else await self.frozen(account_id, story_id, version_id)
        documents = await self.documents_of(account_id, story_id) if frozen is None else frozen
        current = {d.id: d.revision for d in documents}
        order = {d.id: n for n, d in enumerate(documents)}
        found = self.passage_records.find({"storyId": story_id, "accountId": account_id})
        kept = [
            stored_passage(record)
            async for record in found
            if current.get(record["documentId"]) == record["revision"]
        ]
        return sorted(kept, key=lambda p: (order[p.passage.document_id], p.passage.start))

    async def document_passages(
        self, account_id: str, story_id: str, document: StoredDocument
    ) -> list[StoredPassage]:
        found = self.passage_records.find(
            {
                "documentId": document.id,
                "revision": document.revision,
                "storyId": story_id,
                "accountId": account_id,
            }
        )
        read = [stored_passage(record) async for record in found]
        return sorted(read, key=lambda p: p.passage.start)

    async def characters(self, account_id: str) -> int:
        found = await self.documents.aggregate(
            [
                {"$match": {"accountId": account_id}},
                {"$group": {"_id": None, "characters": {"$sum": "$characters"}}},
            ]
        )
        totals = [total async for total in found]
        return int(totals[0]["characters"]) if totals else 0

    async def freeze(self, account_id: str, story_id: str, version_id: str) -> None:
        documents = await self.documents_of(account_id, story_id)
        record = {
            "_id": version_id,
            "accountId": account_id,
            "storyId": story_id,
            "documents": [document_record(account_id, story_id, d) for d in documents],
        }
        await self.frozen_records.replace_one({"_id": version_id}, record, upsert=True)

    async def frozen(
        self, account_id: str, story_id: str, version_id: str
    ) -> list[StoredDocument] | None:
        found = await self.frozen_records.find_one(
            {"_id": version_id, "storyId": story_id, "accountId": account_id}
        )
        return None if found is None else [stored_document(d) for d in found["documents"]]

    async def thaw(self, account_id: str, story_id: str, version_id: str) -> None:
        documents = await self.frozen(account_id, story_id, version_id)
        await self.frozen_records.delete_one({"_id": version_id, "storyId": story_id})
        current = {d.id: d.revision for d in await self.documents_of(account_id, story_id)}
        for document in documents or ():
            kept = {current[document.id]} if document.id in current else set()
            await self._prune(story_id, document.id, kept)

    async def _prune(self, story_id: str, document_id: str, kept: set[int]) -> None:
        """Delete a document's passages but those of the revisions `kept` and of those a
        version of the story froze."""
        async for version in self.frozen_records.find({"storyId": story_id}, {"documents": 1}):
            kept |= {d["revision"] for d in version["documents"] if d["_id"] == document_id}
        await self.passage_records.delete_many(
            {"documentId": document_id, "storyId": story_id, "revision": {"$nin": sorted(kept)}}
        )

    async def put_vectors(
        self, document_id: str, revision: int, model: str, vectors: dict[str, Vectors]
    ) -> int:
        stored = 0
        for passage_id, vector in vectors.items():
            done = await self.passage_records.update_one(
                {"_id": f"{passage_id}.r{revision}", "vector": {"$exists": False}},
                {"$set": {"vector": vector.astype(np.float32).tobytes(), "model": model}},
            )
            stored += done.modified_count
        if stored:
            await self.documents.update_one(
                {"_id": document_id, "revision": revision}, {"$inc": {"vectorsPending": -stored}}
            )
        return stored

    async def pending(self) -> list[PendingPassage]:
        waiting = self.documents.find({"vectorsPending": {"$gt": 0}})
        documents = {d["_id"]: d async for d in waiting}
        found = self.passage_records.find(
            {"documentId": {"$in": list(documents)}, "vector": {"$exists": False}}
        )
        pending = [
            PendingPassage(
                account_id=record["accountId"],
                story_id=record["storyId"],
                revision=record["revision"],
                title=documents[record["documentId"]]["title"],
                passage=stored_passage(record).passage,
            )
            async for record in found
            if documents[record["documentId"]]["revision"] == record["revision"]
        ]
        return sorted(pending, key=lambda p: (p.passage.document_id, p.passage.start))

    async def delete_for_story(self, story_id: str) -> None:
        await self.documents.delete_many({"storyId": story_id})
        await self.passage_records.delete_many({"storyId": story_id})
        await self.frozen_records.delete_many({"storyId": story_id})
