"""A recorded turn as its `turns` document (docs/history.md), written once here: the
history recorder and API, the inbox and the analytics all read and write this shape.
Field names are the record's in camelCase; `expiresAt` (the turn's time plus the story's
`historyDays`) drives a TTL index. A sentence vector is stored as float16 bytes: 768
bytes for MiniLM's 384 numbers, where a BSON array of doubles took about 4,900.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
from bson import Binary

from bot_api.domain.history import (
    AnsweredBy,
    KnowledgeSource,
    Person,
    Resolution,
    ScoredCandidate,
    TurnRecord,
)
from bot_api.domain.knowledge import Generation


def turn_to_document(turn: TurnRecord, expires_at: datetime) -> dict[str, Any]:
    answered = turn.interaction
    resolution = turn.resolution
    return {
        "accountId": turn.account_id,
        "storyId": turn.story_id,
        "sessionId": turn.session_id,
        "at": turn.at,
        "outcome": turn.outcome,
        "query": turn.query,
        "trigger": turn.trigger,
        "goto": turn.goto,
        "interaction": None
        if answered is None
        else {"id": answered.id, "name": answered.name, "type": answered.type},
        "score": turn.score,
        "threshold": turn.threshold,
        "candidates": [{"id": c.id, "name": c.name, "score": c.score} for c in turn.candidates],
        "parameters": dict(turn.parameters),
        "contexts": list(turn.contexts),
        "fulfillment": turn.fulfillment,
        "webhook": turn.webhook,
        "latencyMs": turn.latency_ms,
        "defaultSource": turn.default_source,
        "defaultLanguage": turn.default_language,
        **(
            {}
            if turn.language is None
            else {"language": turn.language, "answeredIn": turn.answered_in}
        ),
        "vector": None if turn.vector is None else vector_to_document(turn.vector),
        "vectorModel": turn.vector_model,
        "resolution": None if resolution is None else resolution_to_document(resolution),
        "expiresAt": expires_at,
        **({"truncated": True} if turn.truncated else {}),
        "channel": turn.channel,
        **({} if turn.knowledge is None else {"knowledge": _knowledge_document(turn.knowledge)}),
        "test": turn.test,
        **(
            {}
            if turn.generation is None
            else {"generation": generation_to_document(turn.generation)}
        ),
        **({} if turn.person is None else {"person": person_to_document(turn.person)}),
        **({"givenBack": True} if turn.given_back else {}),
        **({"takenOver": True} if turn.taken_over else {}),
    }


def person_to_document(person: Person) -> dict[str, Any]:
    return {"name": person.name, "role": person.role, "memberId": person.member_id}


def _person(document: Any) -> Person | None:
    if not isinstance(document, dict):
        return None
    return Person(document["name"], document["role"], document.get("memberId"))


def generation_to_document(generation: Generation) -> dict[str, Any]:
    return {
        "outcome": generation.outcome,
        "seconds": generation.seconds,
        "promptTokens": generation.prompt_tokens,
        "completionTokens": generation.completion_tokens,
    }


def _knowledge_document(source: KnowledgeSource) -> dict[str, Any]:
    return {
        "documentId": source.document_id,
        "title": source.title,
        "passageId": source.passage_id,
        "score": source.score,
    }


FIRST_VECTOR_MODEL = "all-MiniLM-L6-v2-int8"
"""The model of the vectors of turns recorded before turns named theirs: the only one
then."""


def vector_model(document: Mapping[str, Any]) -> str | None:
    """The model that made a turn document's vector (None: it has none)."""
    if document.get("vector") is None:
        return None
    model = document.get("vectorModel")
    return model if isinstance(model, str) else FIRST_VECTOR_MODEL


def vector_to_document(vector: Sequence[float]) -> Binary:
    return Binary(np.asarray(vector, dtype="<f2").tobytes())


def vector_from_document(stored: bytes) -> tuple[float, ...]:
    """`tolist` makes the same floats 3 times as fast as `float` on each (8 µs a vector, not
    26: the inbox reads up to 10,000)."""
    return tuple(np.frombuffer(stored, dtype="<f2").tolist())


def resolution_to_document(resolution: Resolution) -> dict[str, Any]:
    return {
        "by": resolution.by,
        "action": resolution.action,
        "at": resolution.at,
        "interactionId": resolution.interaction_id,
    }


def turn_from_document(document: Mapping[str, Any]) -> TurnRecord:
    answered = document.get("interaction")
    resolution = document.get("resolution")
    vector = document.get("vector")
    generation = document.get("generation")
    return TurnRecord(
        account_id=document["accountId"],
        story_id=document["storyId"],
        session_id=document["sessionId"],
        at=document["at"],
        outcome=document["outcome"],
        query=document.get("query"),
        trigger=document.get("trigger"),
        goto=document.get("goto"),
        interaction=None
        if answered is None
        else AnsweredBy(answered["id"], answered["name"], answered["type"]),
        score=document.get("score", 0.0),
        threshold=document.get("threshold", 0.0),
        candidates=tuple(
            ScoredCandidate(c["id"], c["name"], c["score"]) for c in document.get("candidates", [])
        ),
        parameters=dict(document.get("parameters") or {}),
        contexts=tuple(document.get("contexts") or ()),
        fulfillment=document.get("fulfillment", ""),
        webhook=document.get("webhook"),
        latency_ms=document.get("latencyMs", 0.0),
        default_source=document.get("defaultSource"),
        default_language=document.get("defaultLanguage"),
        language=document.get("language"),
        answered_in=document.get("answeredIn"),
        vector=None if vector is None else vector_from_document(vector),
        vector_model=vector_model(document),
        resolution=None
        if resolution is None
        else Resolution(
            resolution["by"],
            resolution["action"],
            resolution["at"],
            resolution.get("interactionId"),
        ),
        truncated=document.get("truncated", False),
        channel=document.get("channel"),
        knowledge=_knowledge_source(document.get("knowledge")),
        test=document.get("test") is True,
        generation=None
        if generation is None
        else Generation(
            generation["outcome"],
            generation["seconds"],
            generation["promptTokens"],
            generation["completionTokens"],
        ),
        person=_person(document.get("person")),
        given_back=document.get("givenBack") is True,
        taken_over=document.get("takenOver") is True,
    )


def _knowledge_source(document: Any) -> KnowledgeSource | None:
    if not isinstance(document, dict):
        return None
    return KnowledgeSource(
        document["documentId"], document["title"], document["passageId"], document["score"]
    )
