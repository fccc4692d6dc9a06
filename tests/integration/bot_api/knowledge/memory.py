"""KnowledgeInMemory, a story's documents and passages in memory, held to
KnowledgeRepository's contract by test_knowledge_repository.py beside it."""

from collections.abc import Sequence
from dataclasses import dataclass

from bot_api.knowledge.repository import StoredDocument, StoredPassage


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

    async def characters(self, account_id: str) -> int:
        return sum(d.characters for o, d in self.documents.values() if o.account_id == account_id)

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
