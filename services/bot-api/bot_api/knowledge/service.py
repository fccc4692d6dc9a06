"""The knowledge use cases: a story's documents and FAQ pairs written, read and deleted
(docs/knowledge.md). A write reads the file (off the event loop: PDF, DOCX and HTML in a
child process with limits, knowledge/reading), cuts it into passages and reads their
terms (in the knowledge work's threads, fairly between accounts), checks the quotas,
stores it whole (knowledge/repository.py) and announces `KnowledgeEdited`: the next
question of the story reads it. With the semantic stage (`vectors`) its passages are
then queued for their vectors (knowledge/vectors.py), and its `vectorsPending` counts
those not in yet."""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from bot_api.changes import ChangeFeed, KnowledgeEdited
from bot_api.knowledge.blocks import DocumentRefused, Extracted
from bot_api.knowledge.fetching import PageFetcher
from bot_api.knowledge.index import FaqPair, passage_terms
from bot_api.knowledge.passages import document_text, passages_of
from bot_api.knowledge.reading import read_document
from bot_api.knowledge.records import StoredDocument, StoredPassage
from bot_api.knowledge.repository import KnowledgeStore
from bot_api.knowledge.vectors import PassageVectors
from bot_api.quotas import AccountQuotas
from bot_api.stories.repository import StoryStore
from bot_api.stories.service import load_story
from shared.errors import NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationFailed
from shared.fair_work import FairWork
from shared.ids import new_object_id

FAQ_TYPE = "application/x-parley-faq"
"""The media type a document of FAQ pairs is listed with."""


@dataclass(frozen=True)
class Question:
    """An FAQ pair as written, before it has an id."""

    question: str
    answer: str
    alternatives: tuple[str, ...] = ()


@dataclass(frozen=True)
class Source:
    """What a write sends: a file's bytes and media type, or FAQ pairs (`faq`)."""

    title: str
    media_type: str
    content: bytes = b""
    faq: tuple[Question, ...] = ()
    language: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class Read:
    passages: tuple[StoredPassage, ...]
    characters: int
    title: str | None


class KnowledgeService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        knowledge: KnowledgeStore,
        changes: ChangeFeed,
        quotas: AccountQuotas,
        work: FairWork,
        fetcher: PageFetcher,
        vectors: PassageVectors | None = None,
    ) -> None:
        self._stories = stories
        self._knowledge = knowledge
        self._changes = changes
        self._quotas = quotas
        self._work = work
        self._fetcher = fetcher
        self._vectors = vectors

    async def documents_of(self, account_id: str, story_id: str) -> list[StoredDocument]:
        await load_story(self._stories, account_id, story_id)
        return await self._knowledge.documents_of(account_id, story_id)

    async def get(self, account_id: str, story_id: str, document_id: str) -> StoredDocument:
        await load_story(self._stories, account_id, story_id)
        found = await self._knowledge.get(account_id, story_id, document_id)
        if found is None:
            raise NotFound(f"no document {document_id} in story {story_id}")
        return found

    async def passages(
        self, account_id: str, story_id: str, document_id: str
    ) -> list[StoredPassage]:
        document = await self.get(account_id, story_id, document_id)
        return await self._knowledge.document_passages(account_id, story_id, document)

    async def add(
        self, account_id: str, story_id: str, source: Source, new_id: str | None = None
    ) -> str:
        document_id = new_id or new_object_id()
        await self._write(account_id, story_id, document_id, source, None)
        return document_id

    async def replace(
        self, account_id: str, story_id: str, document_id: str, source: Source
    ) -> None:
        earlier = await self.get(account_id, story_id, document_id)
        await self._write(account_id, story_id, document_id, source, earlier)

    async def fetch_again(self, account_id: str, story_id: str, document_id: str) -> bool:
        """Fetch a document's URL again; False when its content is unchanged (nothing is
        written: its passages and vectors stay)."""
        earlier = await self.get(account_id, story_id, document_id)
        if earlier.url is None:
            raise ValidationFailed.at(("url",), "the document was not fetched from a URL")
        fetched = await self._fetcher.fetch(earlier.url)
        if hashlib.sha256(fetched.content).hexdigest() == earlier.sha256:
            return False
        source = Source(
            earlier.title,
            fetched.media_type,
            fetched.content,
            language=earlier.language,
            url=earlier.url,
        )
        await self._write(account_id, story_id, document_id, source, earlier)
        return True

    async def delete(self, account_id: str, story_id: str, document_id: str) -> None:
        await load_story(self._stories, account_id, story_id)
        if not await self._knowledge.delete(account_id, story_id, document_id):
            raise NotFound(f"no document {document_id} in story {story_id}")
        if self._vectors is not None:
            self._vectors.forget_document(document_id)
        await self._changes.announce(KnowledgeEdited(account_id, story_id))

    async def _write(
        self,
        account_id: str,
        story_id: str,
        document_id: str,
        source: Source,
        earlier: StoredDocument | None,
    ) -> None:
        story = await load_story(self._stories, account_id, story_id)
        language = story.settings.language
        if source.url is not None and not source.content:
            fetched = await self._fetcher.fetch(source.url)
            source = replace(source, media_type=fetched.media_type, content=fetched.content)
        documents = await self._knowledge.documents_of(account_id, story_id)
        others = [d for d in documents if d.id != document_id]
        read = await self._read(account_id, document_id, source, language)
        quotas = await self._quotas.of(account_id)
        held = await self._knowledge.characters(account_id)
        quotas.check_knowledge(
            documents=len(others) + 1,
            passages=sum(d.passages for d in others) + len(read.passages),
            characters=held - (earlier.characters if earlier else 0) + read.characters,
        )
        now = datetime.now(UTC)
        revision = 1 if earlier is None else earlier.revision + 1
        title = source.title or read.title or "Untitled"
        await self._knowledge.insert_passages(account_id, story_id, revision, read.passages)
        await self._knowledge.put(
            account_id,
            story_id,
            StoredDocument(
                id=document_id,
                title=title,
                kind="faq" if source.faq else "text",
                media_type=FAQ_TYPE if source.faq else source.media_type,
                revision=revision,
                sha256=_digest(source),
                characters=read.characters,
                passages=len(read.passages),
                created_at=now if earlier is None else earlier.created_at,
                updated_at=now,
                url=source.url,
                language=source.language,
                faq=_pairs(document_id, source.faq),
                vectors_pending=len(read.passages) if self._vectors is not None else 0,
            ),
        )
        await self._changes.announce(KnowledgeEdited(account_id, story_id))
        if self._vectors is not None:
            passages = [p.passage for p in read.passages]
            self._vectors.enqueue(account_id, story_id, document_id, revision, title, passages)

    async def _read(self, account_id: str, document_id: str, source: Source, language: str) -> Read:
        if source.faq:
            characters = sum(len(q.question) + len(q.answer) for q in source.faq)
            return Read((), characters, None)
        try:
            extracted = await read_document(source.content, source.media_type)
        except DocumentRefused as refused:
            raise _refusal(refused) from None
        if not any(block.text.strip() for block in extracted.blocks):
            raise ValidationFailed.at(("body",), "the document holds no text to answer from")
        return await self._work.run(
            account_id, lambda: _passages(extracted, document_id, language, source.title)
        )


def _passages(extracted: Extracted, document_id: str, language: str, title: str) -> Read:
    title = title or extracted.title or ""
    passages = passages_of(extracted, document_id, language)
    stored = tuple(StoredPassage(p, passage_terms(language, p, title)) for p in passages)
    return Read(stored, len(document_text(extracted)), extracted.title)


def faq_document(
    document_id: str, title: str, questions: Sequence[Question], now: datetime
) -> StoredDocument:
    """A new document of FAQ pairs, as a write or an imported story document makes it."""
    return StoredDocument(
        id=document_id,
        title=title,
        kind="faq",
        media_type=FAQ_TYPE,
        revision=1,
        sha256=_digest(Source(title, "", faq=tuple(questions))),
        characters=sum(len(q.question) + len(q.answer) for q in questions),
        passages=0,
        created_at=now,
        updated_at=now,
        faq=_pairs(document_id, questions),
    )


def _pairs(document_id: str, questions: Sequence[Question]) -> tuple[FaqPair, ...]:
    return tuple(
        FaqPair(f"{document_id}.q{n}", q.question, q.answer, q.alternatives)
        for n, q in enumerate(questions)
    )


def _digest(source: Source) -> str:
    digest = hashlib.sha256(source.content)
    for question in source.faq:
        digest.update(
            "\0".join((question.question, *question.alternatives, question.answer)).encode()
        )
    return digest.hexdigest()


def _refusal(refused: DocumentRefused) -> Exception:
    if refused.kind == "unsupported":
        return UnsupportedMediaType(refused.message)
    if refused.kind == "too_large":
        return PayloadTooLarge(refused.message)
    return ValidationFailed.at(("body",), refused.message)
