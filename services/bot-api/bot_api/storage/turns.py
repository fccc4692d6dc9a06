"""The `turns` collection: one document per recorded /query turn (docs/history.md).

The mapping between `TurnRecord` and its document is written once here: the history
recorder and API, the inbox and the analytics all read and write this shape. Field names
are the record's in camelCase; `expiresAt` (the turn's time plus the story's
`historyDays`) drives a TTL index.
"""

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot_api.domain.history import AnsweredBy, Resolution, ScoredCandidate, TurnRecord


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
        "vector": None if turn.vector is None else list(turn.vector),
        "resolution": None if resolution is None else resolution_to_document(resolution),
        "expiresAt": expires_at,
    }


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
        vector=None if vector is None else tuple(vector),
        resolution=None
        if resolution is None
        else Resolution(
            resolution["by"],
            resolution["action"],
            resolution["at"],
            resolution.get("interactionId"),
        ),
    )
