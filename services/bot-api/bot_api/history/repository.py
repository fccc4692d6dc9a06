"""The `turns` collection: one document per recorded /query turn (history/documents.py
maps a turn to its document and back), and a summary per conversation in
`conversations` (docs/history.md)."""

import base64
import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from bson import ObjectId
from pymongo import UpdateOne

from bot_api.domain.history import OutcomeKind, TurnRecord
from bot_api.history.documents import turn_from_document, turn_to_document
from bot_api.indexed import Indexed
from shared.expiry import ensure_expiry
from shared.mongo import Database, insert_new
from shared.timeutil import epoch_ms

MAX_TRANSCRIPT_TURNS = 1000
"""Turns of one conversation a transcript shows (the oldest): a visitor chatting for a
day sends a few hundred."""
MAX_TEXT_MATCHES = 5000
"""Turns the `text` filter reads: it is the one filter the summaries cannot answer, so it
scans the story's turns (newest first) up to this many matches."""


@dataclass(frozen=True)
class ConversationSummary:
    """One conversation (a story's session), as the listing shows it."""

    session_id: str
    started: datetime
    last_at: datetime
    turns: int
    fallbacks: int


@dataclass(frozen=True)
class ConversationFilter:
    since: datetime | None = None
    until: datetime | None = None
    """A conversation is listed when it had a turn in [since, until)."""
    outcome: OutcomeKind | None = None
    interaction: str | None = None
    text: str | None = None
    source: str | None = None
    """Conversations with a turn of this `default_source`."""
    channel: str | None = None
    """Conversations with a turn this channel (its id) carried."""
    language: str | None = None
    """Conversations with a turn read in this language (an ISO 639-1 code): turns of a
    story of one language record none (docs/languages.md)."""
    test: bool | None = None
    """True: the test chat's conversations only; False: the others; None: both."""


@dataclass(frozen=True)
class ConversationPage:
    items: tuple[ConversationSummary, ...]
    next_cursor: str | None


@dataclass(frozen=True)
class StoredTurn:
    """A turn as the recorder queues it: its id is chosen once, so a batch tried again
    after a failure does not store a turn twice."""

    id: str
    turn: TurnRecord
    expires_at: datetime
    """The turn's time plus the story's `historyDays`."""


def summary_key(story_id: str, session_id: str) -> str:
    return f"{story_id}:{session_id}"


def encode_cursor(summary: ConversationSummary) -> str:
    position = [epoch_ms(summary.last_at), summary.session_id]
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode()


def decode_cursor(cursor: str) -> tuple[int, str]:
    """The position after which the next page starts; ValueError if it is not a cursor
    this service wrote."""
    try:
        last_ms, session_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (ValueError, TypeError) as error:
        raise ValueError("not a cursor of this listing") from error
    if not isinstance(last_ms, int) or not isinstance(session_id, str):
        raise ValueError("not a cursor of this listing")
    return last_ms, session_id


def summary_changes(turns: Sequence[StoredTurn]) -> dict[tuple[str, str], dict[str, Any]]:
    """What a batch adds to each conversation's summary, by (story, session)."""
    changes: dict[tuple[str, str], dict[str, Any]] = {}
    for stored in turns:
        turn, expires_at = stored.turn, stored.expires_at
        at = epoch_ms(turn.at)
        change = changes.setdefault(
            (turn.story_id, turn.session_id),
            {
                "accountId": turn.account_id,
                "startedMs": at,
                "lastAtMs": at,
                "turns": 0,
                "fallbacks": 0,
                "outcomes": [],
                "interactions": [],
                "sources": [],
                "channels": [],
                "languages": [],
                "test": False,
                "expiresAt": expires_at,
            },
        )
        change["startedMs"] = min(change["startedMs"], at)
        change["lastAtMs"] = max(change["lastAtMs"], at)
        change["expiresAt"] = max(change["expiresAt"], expires_at)
        change["turns"] += 1
        change["fallbacks"] += turn.outcome == "fallback"
        if turn.outcome not in change["outcomes"]:
            change["outcomes"].append(turn.outcome)
        if turn.interaction is not None and turn.interaction.id not in change["interactions"]:
            change["interactions"].append(turn.interaction.id)
        for field, value in (
            ("sources", turn.default_source),
            ("channels", turn.channel),
            ("languages", turn.language),
        ):
            if value is not None and value not in change[field]:
                change[field].append(value)
        change["test"] = change["test"] or turn.test
    return changes


class TurnRepository:
    """The `turns` collection, and `conversations`: one summary per (story, session),
    updated with each batch, so that listing conversations reads summaries, not turns
    (docs/history.md). Both expire by `expiresAt` (TTL)."""

    def __init__(self, database: Database) -> None:
        self.turns = database["turns"]
        self.conversations = database["conversations"]

    async def ensure_indexes(self) -> None:
        await self.turns.create_index([("storyId", 1), ("sessionId", 1), ("at", 1)])
        await ensure_expiry(self.turns)
        await self.conversations.create_index([("storyId", 1), ("lastAtMs", -1)])
        await ensure_expiry(self.conversations)

    async def insert_many(self, turns: Sequence[StoredTurn]) -> None:
        """The turns, then their summaries: three round trips whatever the batch holds
        (nx-27017 runs a bulk of upserts slowly: docs/mongodb-compatibility.md)."""
        if not turns:
            return
        documents = [
            {"_id": ObjectId(t.id), **turn_to_document(t.turn, t.expires_at)} for t in turns
        ]
        await insert_new(self.turns, documents)
        changes = summary_changes(turns)
        keys = [summary_key(story, session) for story, session in changes]
        existing = {
            d["_id"]: d
            async for d in self.conversations.find(
                {"_id": {"$in": keys}},
                {
                    "startedMs": 1,
                    "outcomes": 1,
                    "interactions": 1,
                    "sources": 1,
                    "channels": 1,
                    "languages": 1,
                    "test": 1,
                },
            )
        }
        fresh = [
            _summary_document(story, session, change)
            for (story, session), change in changes.items()
            if summary_key(story, session) not in existing
        ]
        if fresh:
            for index in await insert_new(self.conversations, fresh):
                existing[fresh[index]["_id"]] = {}
        updates = [
            UpdateOne({"_id": key}, _summary_update(change, existing[key]))
            for key, change in zip(keys, changes.values(), strict=True)
            if key in existing
        ]
        if updates:
            await self.conversations.bulk_write(updates, ordered=False)

    async def conversations_page(
        self, story_id: str, found: ConversationFilter, cursor: str | None, limit: int
    ) -> ConversationPage:
        """Newest first (by last turn); `cursor` from the previous page."""
        conditions: list[dict[str, Any]] = [{"storyId": story_id}]
        if found.since is not None:
            conditions.append({"lastAtMs": {"$gte": epoch_ms(found.since)}})
        if found.until is not None:
            conditions.append({"startedMs": {"$lt": epoch_ms(found.until)}})
        if found.outcome is not None:
            conditions.append({"outcomes": {"$in": [found.outcome]}})
        if found.interaction is not None:
            conditions.append({"interactions": {"$in": [found.interaction]}})
        for field, value in (
            ("sources", found.source),
            ("channels", found.channel),
            ("languages", found.language),
        ):
            if value is not None:
                conditions.append({field: {"$in": [value]}})
        if found.test is not None:
            conditions.append({"test": True} if found.test else {"test": {"$ne": True}})
        if found.text is not None:
            sessions = await self._sessions_saying(story_id, found.text)
            conditions.append({"sessionId": {"$in": sorted(sessions)}})
        if cursor is not None:
            last_ms, session_id = decode_cursor(cursor)
            after = summary_key(story_id, session_id)
            conditions.append(
                {
                    "$or": [
                        {"lastAtMs": {"$lt": last_ms}},
                        {"lastAtMs": last_ms, "_id": {"$lt": after}},
                    ]
                }
            )
        documents = self.conversations.find({"$and": conditions}).sort(
            [("lastAtMs", -1), ("_id", -1)]
        )
        items = tuple([_summary(d) async for d in documents.limit(limit + 1)])
        more = len(items) > limit
        return ConversationPage(items[:limit], encode_cursor(items[limit - 1]) if more else None)

    async def _sessions_saying(self, story_id: str, text: str) -> set[str]:
        pattern = {"$regex": re.escape(text), "$options": "i"}
        found = self.turns.find({"storyId": story_id, "query": pattern}, {"sessionId": 1})
        return {d["sessionId"] async for d in found.limit(MAX_TEXT_MATCHES)}

    async def transcript(self, story_id: str, session_id: str) -> list[TurnRecord]:
        """Oldest first, at most `MAX_TRANSCRIPT_TURNS`."""
        return [stored.turn for stored in await self.stored_transcript(story_id, session_id)]

    async def stored_transcript(self, story_id: str, session_id: str) -> list[StoredTurn]:
        """The transcript's turns with their ids (the agent desk names its lines by them)."""
        found = self.turns.find({"storyId": story_id, "sessionId": session_id}).sort("at", 1)
        return [
            StoredTurn(str(d["_id"]), turn_from_document(d), d["expiresAt"])
            async for d in found.limit(MAX_TRANSCRIPT_TURNS)
        ]

    async def export(
        self, story_id: str, since: datetime | None, until: datetime | None, limit: int
    ) -> AsyncIterator[TurnRecord]:
        """The story's turns in [since, until) (None: unbounded), oldest first, at most
        `limit`."""
        at: dict[str, datetime] = {}
        if since is not None:
            at["$gte"] = since
        if until is not None:
            at["$lt"] = until
        query: dict[str, Any] = {"storyId": story_id, **({"at": at} if at else {})}
        async for document in self.turns.find(query).sort("at", 1).limit(limit):
            yield turn_from_document(document)

    async def delete_conversation(self, story_id: str, session_id: str) -> bool:
        """False when the story has no such conversation."""
        await self.turns.delete_many({"storyId": story_id, "sessionId": session_id})
        result = await self.conversations.delete_one({"_id": summary_key(story_id, session_id)})
        return result.deleted_count == 1

    async def delete_for_story(self, story_id: str) -> None:
        await self.turns.delete_many({"storyId": story_id})
        await self.conversations.delete_many({"storyId": story_id})


def _summary_document(story_id: str, session_id: str, change: dict[str, Any]) -> dict[str, Any]:
    return {
        "_id": summary_key(story_id, session_id),
        "storyId": story_id,
        "sessionId": session_id,
        **change,
    }


def _summary_update(change: dict[str, Any], stored: Mapping[str, Any]) -> dict[str, Any]:
    """What a batch changes in a stored summary, as read before the write (empty when it
    was not read): only the operators with something to change, as each one costs the
    embedded server (0.135 ms an update with all of them, 0.10 ms with `$inc` and `$max`
    only: nx-27017, measured). What another process adds meanwhile stays correct: the
    sets only grow, and `$addToSet` of a value it added is a no-op. A set the stored
    summary lacks (it was stored before the set was kept: `languages`, `sources`,
    `channels`) is made by `$push`, as nx-27017's `$addToSet` makes none
    (docs/mongodb-compatibility.md); a value another process pushes meanwhile may then
    be listed twice, which no filter minds."""
    update: dict[str, Any] = {
        "$max": {"lastAtMs": change["lastAtMs"], "expiresAt": change["expiresAt"]},
        "$inc": {"turns": change["turns"]},
    }
    if change["fallbacks"]:
        update["$inc"]["fallbacks"] = change["fallbacks"]
    if change["startedMs"] < stored.get("startedMs", change["startedMs"] + 1):
        update["$min"] = {"startedMs": change["startedMs"]}
    if change["test"] and stored.get("test") is not True:
        update["$set"] = {"test": True}
    added: dict[str, dict[str, Any]] = {"$addToSet": {}, "$push": {}}
    for field in ("outcomes", "interactions", "sources", "channels", "languages"):
        new = [v for v in change[field] if v not in stored.get(field, ())]
        if new:
            lacking = bool(stored) and field not in stored
            added["$push" if lacking else "$addToSet"][field] = {"$each": new}
    update |= {operator: fields for operator, fields in added.items() if fields}
    return update


def _summary(document: Mapping[str, Any]) -> ConversationSummary:
    return ConversationSummary(
        session_id=document["sessionId"],
        started=_moment(document["startedMs"]),
        last_at=_moment(document["lastAtMs"]),
        turns=document["turns"],
        fallbacks=document["fallbacks"],
    )


def _moment(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


class TurnStore(Indexed, Protocol):
    async def insert_many(self, turns: Sequence[StoredTurn]) -> None:
        """The turns and their conversations' summaries; a turn already stored (a batch
        tried again) is not stored twice."""

    async def conversations_page(
        self, story_id: str, found: ConversationFilter, cursor: str | None, limit: int
    ) -> ConversationPage:
        """Newest first (by last turn); ValueError for a cursor it did not write."""

    async def transcript(self, story_id: str, session_id: str) -> list[TurnRecord]:
        """Oldest first, at most `storage.turns.MAX_TRANSCRIPT_TURNS`."""

    async def stored_transcript(self, story_id: str, session_id: str) -> list[StoredTurn]:
        """The same turns, with the ids they are stored under."""

    def export(
        self, story_id: str, since: datetime | None, until: datetime | None, limit: int
    ) -> AsyncIterator[TurnRecord]:
        """The story's turns in [since, until) (None: unbounded), oldest first."""

    async def delete_conversation(self, story_id: str, session_id: str) -> bool: ...

    async def delete_for_story(self, story_id: str) -> None: ...
