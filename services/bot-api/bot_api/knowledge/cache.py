"""Each story's knowledge index, as this process last read it, and the answer a turn no
interaction answered gets from it.

An index is read from the database and built (off the event loop, fairly between
accounts) on the story's first question after a change (`KnowledgeEdited` from this
process's feed or another replica's event): an upload answers on the next message.
A story without documents costs its first question one read, then nothing. A build
under way when the story changes again is not kept. At most `MAX_CACHED_PASSAGES`
passages are held; the story asked least recently is let go first.

With the semantic stage (`vectors`), a story whose passages' vectors are all in is
answered by meaning too: the question is encoded in the executor's thread with the rest
of the answer, never on the event loop. A story without documents, or whose vectors are
not in, never loads the model.
"""

import asyncio
from collections import OrderedDict
from dataclasses import replace

import numpy as np

from bot_api.changes import Change, KnowledgeEdited, StoryDeleted
from bot_api.domain.knowledge import Citation
from bot_api.domain.responses import Text
from bot_api.engine.semantic import Vectors
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import Outcome, Turn, outcome_kind
from bot_api.knowledge.index import IndexedDocument, KnowledgeIndex
from bot_api.knowledge.records import StoredDocument, StoredPassage
from bot_api.knowledge.repository import KnowledgeStore
from bot_api.knowledge.vectors import PassageVectors
from shared.fair_work import FairWork

IndexKey = tuple[str, str, str | None]
"""(story id, its language, the version answering: None for the draft)"""
MAX_CACHED_PASSAGES = 250_000
"""About 1.5 KB a passage (text, terms, the BM25 matrix's share) and 1.5 KB of its
vector (384 float32): some 750 MB at most."""


class KnowledgeCache:
    def __init__(
        self, store: KnowledgeStore, work: FairWork, vectors: PassageVectors | None = None
    ) -> None:
        self._store = store
        self._work = work
        self._vectors = vectors
        self._indexes: OrderedDict[IndexKey, KnowledgeIndex] = OrderedDict()
        self._generation: dict[str, int] = {}
        self._builds: dict[IndexKey, asyncio.Task[KnowledgeIndex]] = {}

    async def changed(self, change: Change) -> None:
        if isinstance(change, KnowledgeEdited | StoryDeleted):
            self.forget(change.story_id)
        if isinstance(change, StoryDeleted) and self._vectors is not None:
            self._vectors.forget_story(change.story_id)

    def forget(self, story_id: str) -> None:
        self._generation[story_id] = self._generation.get(story_id, 0) + 1
        for key in [k for k in self._indexes if k[0] == story_id]:
            del self._indexes[key]

    async def index(
        self, account_id: str, story_id: str, language: str, version_id: str | None = None
    ) -> KnowledgeIndex:
        """The story's index (of the documents a version froze, with `version_id`)."""
        key = (story_id, language, version_id)
        index = self._indexes.get(key)
        if index is not None:
            self._indexes.move_to_end(key)
            return index
        build = self._builds.get(key)
        if build is None:
            build = asyncio.create_task(self._build(account_id, key))
            self._builds[key] = build
            build.add_done_callback(lambda _: self._builds.pop(key, None))
        return await asyncio.shield(build)

    async def answered(
        self,
        account_id: str,
        story: CompiledStory,
        turn: Turn,
        outcome: Outcome,
        version_id: str | None = None,
    ) -> Outcome:
        """The outcome with the documents' answer, when the turn fell back and they have
        one (the story's interactions always win); as it was otherwise. `version_id`:
        the version answering, whose documents answer as it froze them."""
        if not asks_documents(turn, outcome):
            return outcome
        index = await self.index(account_id, story.id, story.settings.language, version_id)
        if index.empty:
            return outcome
        question = turn.query or ""
        encoder = None if self._vectors is None else self._vectors.encoder
        # The passages weighed are kept whether or not the turn asked for `debug`: a
        # generated answer is written from them (generation.py); /query shows them only
        # to `debug`.
        known = await asyncio.get_running_loop().run_in_executor(
            None,
            index.answer,
            question,
            outcome.threshold,
            True,
            encoder,
            story.settings.answer_any_language,
        )
        if known.answer is None:
            return replace(outcome, knowledge=known)
        return replace(
            outcome,
            knowledge=known,
            fulfillment=(Text(known.answer.answer),),
            silence=(),
        )

    async def _build(self, account_id: str, key: "IndexKey") -> KnowledgeIndex:
        story_id, language, version_id = key
        generation = self._generation.get(story_id, 0)
        frozen = None
        if version_id is not None:
            frozen = await self._store.frozen(account_id, story_id, version_id)
        documents = (
            await self._store.documents_of(account_id, story_id) if frozen is None else frozen
        )
        passages = await self._store.passages(account_id, story_id, version_id) if documents else []
        model = None if self._vectors is None else self._vectors.encoder.model_id
        index = await self._work.run(
            account_id,
            lambda: KnowledgeIndex.build(language, indexed(documents, passages, model)),
        )
        if self._generation.get(story_id, 0) == generation:
            self._indexes[key] = index
            self._evict()
        return index

    def _evict(self) -> None:
        held = sum(len(i.passages) for i in self._indexes.values())
        while held > MAX_CACHED_PASSAGES and len(self._indexes) > 1:
            _, oldest = self._indexes.popitem(last=False)
            held -= len(oldest.passages)


def asks_documents(turn: Turn, outcome: Outcome) -> bool:
    """A message no interaction answered (its story's fallback did) is asked of the
    story's documents."""
    return turn.query is not None and outcome_kind(turn, outcome) == "fallback"


def indexed(
    documents: list[StoredDocument], passages: list[StoredPassage], model: str | None = None
) -> list[IndexedDocument]:
    """The documents as the index reads them; with `model`, each one's passage vectors by
    that model where they are all in."""
    by_document: dict[str, list[StoredPassage]] = {}
    for stored in passages:
        by_document.setdefault(stored.passage.document_id, []).append(stored)
    return [
        IndexedDocument(
            citation=Citation(document_id=d.id, title=d.title, url=d.url),
            passages=tuple(p.passage for p in by_document.get(d.id, ())),
            terms=tuple(p.terms for p in by_document.get(d.id, ())),
            faq=d.faq,
            vectors=_vectors(by_document.get(d.id, []), model),
        )
        for d in documents
    ]


def _vectors(passages: list[StoredPassage], model: str | None) -> Vectors | None:
    if model is None or not passages:
        return None
    rows = [p.vector for p in passages if p.model == model]
    if len(rows) < len(passages):
        return None
    return np.stack([r for r in rows if r is not None])
