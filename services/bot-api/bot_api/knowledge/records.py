"""The typed values of a story's documents and passages, and how each is written as a
record of `knowledge_documents` and `knowledge_passages` and read back
(knowledge/repository.py)."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from bot_api.engine.semantic import Vectors
from bot_api.knowledge.index import FaqPair
from bot_api.knowledge.passages import Passage


@dataclass(frozen=True)
class StoredDocument:
    """`kind`: `text` (a file or text, read into passages) or `faq` (pairs only);
    `characters`: the length of its text (what the account's quota counts)."""

    id: str
    title: str
    kind: str
    media_type: str
    revision: int
    sha256: str
    characters: int
    passages: int
    created_at: datetime
    updated_at: datetime
    url: str | None = None
    language: str | None = None
    faq: tuple[FaqPair, ...] = ()
    vectors_pending: int = 0
    """Passages whose meaning (their vectors) has not landed yet."""


@dataclass(frozen=True)
class StoredPassage:
    passage: Passage
    terms: tuple[str, ...]
    vector: Vectors | None = None
    model: str | None = None
    """The model `vector` is of."""


@dataclass(frozen=True)
class PendingPassage:
    """A passage of a document's current revision whose vector is not in yet."""

    account_id: str
    story_id: str
    revision: int
    title: str
    passage: Passage


def document_record(account_id: str, story_id: str, document: StoredDocument) -> dict[str, Any]:
    record: dict[str, Any] = {
        "_id": document.id,
        "accountId": account_id,
        "storyId": story_id,
        "title": document.title,
        "kind": document.kind,
        "mediaType": document.media_type,
        "revision": document.revision,
        "sha256": document.sha256,
        "characters": document.characters,
        "passages": document.passages,
        "createdAt": document.created_at,
        "updatedAt": document.updated_at,
        "faq": [faq_record(pair) for pair in document.faq],
        "vectorsPending": document.vectors_pending,
    }
    if document.url is not None:
        record["url"] = document.url
    if document.language is not None:
        record["language"] = document.language
    return record


def faq_record(pair: FaqPair) -> dict[str, Any]:
    return {
        "id": pair.id,
        "question": pair.question,
        "alternatives": list(pair.alternatives),
        "answer": pair.answer,
    }


def stored_document(record: dict[str, Any]) -> StoredDocument:
    return StoredDocument(
        id=record["_id"],
        title=record["title"],
        kind=record["kind"],
        media_type=record["mediaType"],
        revision=record["revision"],
        sha256=record["sha256"],
        characters=record["characters"],
        passages=record["passages"],
        created_at=record["createdAt"],
        updated_at=record["updatedAt"],
        url=record.get("url"),
        language=record.get("language"),
        faq=tuple(faq_pairs(record.get("faq", ()))),
        vectors_pending=record.get("vectorsPending", 0),
    )


def faq_pairs(records: Iterable[dict[str, Any]]) -> Iterable[FaqPair]:
    for pair in records:
        yield FaqPair(
            id=pair["id"],
            question=pair["question"],
            answer=pair["answer"],
            alternatives=tuple(pair.get("alternatives", ())),
        )


def passage_record(
    account_id: str, story_id: str, revision: int, stored: StoredPassage
) -> dict[str, Any]:
    passage = stored.passage
    record: dict[str, Any] = {
        "_id": f"{passage.id}.r{revision}",
        "accountId": account_id,
        "storyId": story_id,
        "documentId": passage.document_id,
        "revision": revision,
        "passageId": passage.id,
        "text": passage.text,
        "heading": list(passage.heading),
        "start": passage.start,
        "end": passage.end,
        "terms": list(stored.terms),
    }
    if passage.page is not None:
        record["page"] = passage.page
    return record


def stored_passage(record: dict[str, Any]) -> StoredPassage:
    vector = record.get("vector")
    return StoredPassage(
        Passage(
            id=record["passageId"],
            document_id=record["documentId"],
            text=record["text"],
            heading=tuple(record["heading"]),
            page=record.get("page"),
            start=record["start"],
            end=record["end"],
        ),
        tuple(record["terms"]),
        None if vector is None else np.frombuffer(vector, dtype=np.float32),
        record.get("model"),
    )
