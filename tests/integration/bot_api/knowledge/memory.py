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

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert_passages(
        self, account_id: str, story_id: str, revision: int, passages: Sequence[StoredPassage]
    ) -> None:
        owner = _Owned(account_id, story_id)
        self.passage_records.extend((owner, revision, p) for p in passages)

    async def put(self, account_id: str, story_id: str, document: StoredDocument) -> None:
        self.documents[document.id] = (_Owned(account_id, story_id), document)
        self.passage_records = [
            record
            for record in self.passage_records
            if record[2].passage.document_id != document.id or record[1] == document.revision
        ]

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
        self.passage_records = [
            r for r in self.passage_records if r[2].passage.document_id != document_id
        ]
        return True

    async def passages(self, account_id: str, story_id: str) -> list[StoredPassage]:
        documents = await self.documents_of(account_id, story_id)
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

    async def delete_for_story(self, story_id: str) -> None:
        self.documents = {i: h for i, h in self.documents.items() if h[0].story_id != story_id}
        self.passage_records = [r for r in self.passage_records if r[0].story_id != story_id]
