"""KnowledgeInMemory, a story's documents and passages in memory, held to
KnowledgeRepository's contract by test_knowledge_repository.py beside it."""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot_api.engine.semantic import Vectors
from bot_api.knowledge.records import PendingPassage, StoredDocument, StoredPassage


@dataclass(frozen=True)
class _Owned:
    account_id: str
    story_id: str


class KnowledgeInMemory:
    def __init__(self) -> None:
        self.documents: dict[str, tuple[_Owned, StoredDocument]] = {}
        self.passage_records: list[tuple[_Owned, int, StoredPassage]] = []
        self.frozen_records: dict[str, tuple[_Owned, list[StoredDocument]]] = {}

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert_passages(
        self, account_id: str, story_id: str, revision: int, passages: Sequence[StoredPassage]
    ) -> None:
        owner = _Owned(account_id, story_id)
        documents = {p.passage.document_id for p in passages}
        self.passage_records = [
            r
            for r in self.passage_records
            if not (r[0] == owner and r[1] == revision and r[2].passage.document_id in documents)
        ]
        self.passage_records.extend((owner, revision, p) for p in passages)

    async def put(self, account_id: str, story_id: str, document: StoredDocument) -> None:
        self.documents[document.id] = (_Owned(account_id, story_id), document)
        self._prune(story_id, document.id, {document.revision})

    async def documents_of(self, account_id: str, story_id: str) -> list[StoredDocument]:
        owner = _Owned(account_id, story_id)
        found = [d for o, d in self.documents.values() if o == owner]
        return sorted(found, key=lambda d: (d.created_at, d.id))

    async def get(self, account_id: str, story_id: str, document_id: str) -> StoredDocument | None:
        held = self.documents.get(document_id)
        return held[1] if held is not None and held[0] == _Owned(account_id, story_id) else None

    async def delete(self, account_id: str, story_id: str, document_id: str) -> bool:
        held = self.documents.get(document_id)
        if held is None or held[0] != _Owned(account_id, story_id):
            return False
        del self.documents[document_id]
        self._prune(story_id, document_id, set())
        return True

    async def passages(
        self, account_id: str, story_id: str, version_id: str | None = None
    ) -> list[StoredPassage]:
        frozen = None if version_id is None else await self.frozen(account_id, story_id, version_id)
        documents = await self.documents_of(account_id, story_id) if frozen is None else frozen
        current = {d.id: d.revision for d in documents}
        order = {d.id: n for n, d in enumerate(documents)}
        kept = [
            p
            for owner, revision, p in self.passage_records
            if owner == _Owned(account_id, story_id)
            and current.get(p.passage.document_id) == revision
        ]
        return sorted(kept, key=lambda p: (order[p.passage.document_id], p.passage.start))

    async def document_passages(
        self, account_id: str, story_id: str, document: StoredDocument
    ) -> list[StoredPassage]:
        owner = _Owned(account_id, story_id)
        read = [
            p
            for o, revision, p in self.passage_records
            if o == owner and revision == document.revision and p.passage.document_id == document.id
        ]
        return sorted(read, key=lambda p: p.passage.start)

    async def characters(self, account_id: str) -> int:
        return sum(d.characters for o, d in self.documents.values() if o.account_id == account_id)

    async def put_vectors(
        self, document_id: str, revision: int, model: str, vectors: dict[str, Vectors]
    ) -> int:
        stored = 0
        for n, (owner, held, p) in enumerate(self.passage_records):
            vector = vectors.get(p.passage.id)
            mine = held == revision and p.passage.document_id == document_id
            if mine and p.vector is None and vector is not None:
                self.passage_records[n] = (owner, held, replace(p, vector=vector, model=model))
                stored += 1
        document = self.documents.get(document_id)
        if stored and document is not None and document[1].revision == revision:
            left = document[1].vectors_pending - stored
            self.documents[document_id] = (document[0], replace(document[1], vectors_pending=left))
        return stored

    async def pending(self) -> list[PendingPassage]:
        current = {i: (o, d) for i, (o, d) in self.documents.items() if d.vectors_pending > 0}
        found = [
            PendingPassage(o.account_id, o.story_id, revision, current[i][1].title, p.passage)
            for o, revision, p in self.passage_records
            if (i := p.passage.document_id) in current
            and current[i][1].revision == revision
            and p.vector is None
        ]
        return sorted(found, key=lambda p: (p.passage.document_id, p.passage.start))

    async def freeze(self, account_id: str, story_id: str, version_id: str) -> None:
        documents = await self.documents_of(account_id, story_id)
        self.frozen_records[version_id] = (_Owned(account_id, story_id), documents)

    async def frozen(
        self, account_id: str, story_id: str, version_id: str
    ) -> list[StoredDocument] | None:
        held = self.frozen_records.get(version_id)
        return None if held is None or held[0] != _Owned(account_id, story_id) else held[1]

    async def thaw(self, account_id: str, story_id: str, version_id: str) -> None:
        held = self.frozen_records.pop(version_id, None)
        current = {d.id: d.revision for d in await self.documents_of(account_id, story_id)}
        for document in [] if held is None else held[1]:
            self._prune(
                story_id, document.id, {current[document.id]} if document.id in current else set()
            )

    def _prune(self, story_id: str, document_id: str, kept: set[int]) -> None:
        for owner, documents in self.frozen_records.values():
            if owner.story_id == story_id:
                kept |= {d.revision for d in documents if d.id == document_id}
        self.passage_records = [
            r
            for r in self.passage_records
            if r[0].story_id != story_id or r[2].passage.document_id != document_id or r[1] in kept
        ]

    async def delete_for_story(self, story_id: str) -> None:
        self.frozen_records = {
            v: held for v, held in self.frozen_records.items() if held[0].story_id != story_id
        }
        self.documents = {i: h for i, h in self.documents.items() if h[0].story_id != story_id}
        self.passage_records = [r for r in self.passage_records if r[0].story_id != story_id]
