"""The analytics collections (docs/analytics.md).

`analytics_hours`: one document per story and UTC hour with that hour's counters, added
to with `$inc` upserts; a report reads one story's hours in a range through the
(`storyId`, `hour`) index. `analytics_conversations`: one small document per story and
session, the hour of its first turn and whether it ever fell back, so a turn knows
whether it starts a conversation; it changes only by a conditional write on what was
read, so two processes counting turns of one session cannot both count it.

Hours are integers (hours since the epoch) and so is every counter: nx-27017 stores a
datetime `$set` on an existing document as a string (docs/mongodb-compatibility.md).
"""

import json
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from pymongo import UpdateOne

from bot_api.domain.analytics import (
    ANY,
    EVERYWHERE,
    BucketKey,
    Conversation,
    Segment,
    SessionKey,
    Tally,
)
from shared.expiry import ensure_expiry
from shared.mongo import Database, insert_new
from shared.timeutil import utcnow

CONVERSATION_DAYS = 400
"""A conversation's mark is kept a little longer than the longest report (366 days),
then its TTL index removes it."""


HOUR_KEYS = [("storyId", 1), ("hour", 1)]

EMPTY_HOUR = {
    "conversations": 0,
    "fellBack": 0,
    "messages": 0,
    "fallbacks": 0,
    "webhookFailures": 0,
    "interactions": {},
    "latency": {},
}


def _conversation_id(key: SessionKey) -> str:
    return f"{key[0]}:{key[1]}"


def _hour_id(key: BucketKey) -> str:
    """`<story>:<hour>` for turns of no source and no channel (as every hour was stored
    before hours were counted per segment), else with the segment after it."""
    story, hour, segment = key
    if segment == EVERYWHERE:
        return f"{story}:{hour}"
    return f"{story}:{hour}:{json.dumps(segment)}"


def tally_to_increments(tally: Tally) -> dict[str, int]:
    increments = {
        "conversations": tally.conversations,
        "fellBack": tally.fell_back,
        "messages": tally.messages,
        "fallbacks": tally.fallbacks,
        "webhookFailures": tally.webhook_failures,
        **{f"interactions.{k}": v for k, v in tally.interactions.items()},
        **{f"latency.{k}": v for k, v in tally.latency.items()},
    }
    return {field: count for field, count in increments.items() if count}


def tally_from_document(document: Mapping[str, Any]) -> Tally:
    return Tally(
        conversations=document.get("conversations", 0),
        fell_back=document.get("fellBack", 0),
        messages=document.get("messages", 0),
        fallbacks=document.get("fallbacks", 0),
        webhook_failures=document.get("webhookFailures", 0),
        interactions=dict(document.get("interactions") or {}),
        latency=dict(document.get("latency") or {}),
    )


class AnalyticsRepository:
    def __init__(self, database: Database) -> None:
        self.hours = database["analytics_hours"]
        self.conversations = database["analytics_conversations"]

    async def ensure_indexes(self) -> None:
        """The (`storyId`, `hour`) index was unique while an hour had one document; with
        one per segment it is not, and the unique one is dropped where it is found (by
        its keys: nx-27017 names indexes its own way, docs/mongodb-compatibility.md)."""
        for name, index in (await self.hours.index_information()).items():
            if list(index["key"]) == HOUR_KEYS and index.get("unique"):
                await self.hours.drop_index(name)
        await self.hours.create_index(HOUR_KEYS)
        await self.conversations.create_index("storyId")
        await ensure_expiry(self.conversations)

    async def conversations_of(self, keys: Iterable[SessionKey]) -> dict[SessionKey, Conversation]:
        ids = {_conversation_id(key): key for key in keys}
        found: dict[SessionKey, Conversation] = {}
        async for document in self.conversations.find({"_id": {"$in": list(ids)}}):
            found[ids[document["_id"]]] = Conversation(
                document["start"],
                document["fellBack"],
                (document.get("source"), document.get("channel")),
            )
        return found

    async def insert_conversations(
        self, conversations: Mapping[SessionKey, Conversation]
    ) -> set[SessionKey]:
        """Store these new conversations; those another writer stored first (left as
        they are)."""
        if not conversations:
            return set()
        keys = list(conversations)
        expires_at = utcnow() + timedelta(days=CONVERSATION_DAYS)
        documents = [
            {
                "_id": _conversation_id(key),
                "storyId": key[0],
                "start": conversations[key].start,
                "fellBack": conversations[key].fell_back,
                "source": conversations[key].segment[0],
                "channel": conversations[key].segment[1],
                "expiresAt": expires_at,
            }
            for key in keys
        ]
        return {keys[i] for i in await insert_new(self.conversations, documents)}

    async def replace_conversation(
        self, key: SessionKey, before: Conversation, after: Conversation
    ) -> bool:
        """Set the conversation to `after` unless it is no longer `before`."""
        result = await self.conversations.update_one(
            {"_id": _conversation_id(key), "start": before.start, "fellBack": before.fell_back},
            {
                "$set": {
                    "start": after.start,
                    "fellBack": after.fell_back,
                    "source": after.segment[0],
                    "channel": after.segment[1],
                }
            },
        )
        return result.matched_count == 1

    async def add(self, tallies: Mapping[BucketKey, Tally]) -> None:
        """Add each tally to its story's hour: the hours not stored yet are inserted
        empty first, then one unordered bulk of `$inc`s (an upsert's `$inc` of
        `latency.<bucket>` would store a field named with the dot on nx-27017)."""
        increments = {key: i for key, tally in tallies.items() if (i := tally_to_increments(tally))}
        if not increments:
            return
        await insert_new(
            self.hours,
            [
                {
                    "_id": _hour_id(key),
                    "storyId": key[0],
                    "hour": key[1],
                    "source": key[2][0],
                    "channel": key[2][1],
                    **EMPTY_HOUR,
                }
                for key in increments
            ],
        )
        await self.hours.bulk_write(
            [UpdateOne({"_id": _hour_id(key)}, {"$inc": i}) for key, i in increments.items()],
            ordered=False,
        )

    async def hours_of(
        self, story_id: str, first: int, end: int, only: Segment = ANY
    ) -> dict[int, Tally]:
        """The story's counted hours from `first` up to, not including, `end`, summed
        over the segments `only` matches (None: any; an hour stored before segments has
        neither a source nor a channel)."""
        query: dict[str, Any] = {"storyId": story_id, "hour": {"$gte": first, "$lt": end}}
        for name, value in zip(("source", "channel"), only, strict=True):
            if value is not None:
                query[name] = value
        found: dict[int, Tally] = {}
        async for document in self.hours.find(query, {"_id": 0, "storyId": 0}):
            hour = document["hour"]
            found[hour] = found.get(hour, Tally()) + tally_from_document(document)
        return found

    async def first_hour(self, story_id: str) -> int | None:
        """The story's earliest counted hour, through the (`storyId`, `hour`) index."""
        cursor = self.hours.find({"storyId": story_id}, {"hour": 1}).sort("hour", 1).limit(1)
        found = await cursor.to_list()
        return int(found[0]["hour"]) if found else None

    async def delete_for_story(self, story_id: str) -> None:
        await self.hours.delete_many({"storyId": story_id})
        await self.conversations.delete_many({"storyId": story_id})
