"""The `sessions` collection: conversation state per (story, session).

Each document carries a `version`; a save is conditional on the version it read, so
two messages of one session at once never lose an update (the loser reads again).
`expiresAt` drives a TTL index, and an expired document is read as absent even before
MongoDB's TTL monitor (which runs once a minute) removes it.

A session holds at most `MAX_SESSION_PARAMETERS` parameters and `MAX_SESSION_BYTES` of
state, far below MongoDB's 16 MB document limit: parameters accumulate turn after turn,
so without a bound a client could grow one document until every write of it fails.

A session in handoff (engine/handoff.py) also carries `handoffStoryId`, which only such
sessions have: the sparse index on it lists a story's open handoffs without reading its
other sessions; and its handoff's start and last message as epoch milliseconds
(`handoffSinceMs`, `handoffLastMs`), which order and filter the list (nx-27017 compares
datetimes to the whole second: docs/mongodb-compatibility.md).

A session also keeps the answers of its last turns asked under a key (`replies`,
query/repeats.py), saved with the state they left: a turn asked again under its key, on
any replica, is answered from there and changes nothing.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

import bson
from pymongo.errors import DuplicateKeyError

from bot_api.domain.history import Person
from bot_api.engine.turn import ActiveContext, HandedOver, Pending, SessionState
from bot_api.indexed import Indexed
from shared.expiry import ensure_expiry
from shared.mongo import Database, paged
from shared.pages import Page
from shared.timeutil import epoch_ms, utcnow

MAX_SESSION_PARAMETERS = 100
MAX_SESSION_BYTES = 64 * 1024


@dataclass(frozen=True)
class OpenHandoff:
    session_id: str
    handoff: HandedOver


@dataclass(frozen=True)
class TurnReply:
    """A turn answered under a key, and its answer (query/repeats.py)."""

    key: str
    asked: str
    """What the turn asked, hashed: the same key asking something else is a new turn."""
    body: str
    """/query's answer, in JSON."""


@dataclass(frozen=True)
class StoredSession:
    state: SessionState
    """An empty state for a session never seen or expired."""
    version: int
    replies: tuple[TurnReply, ...] = ()
    """The last turns answered under a key, oldest first (none once expired)."""


def state_to_document(state: SessionState) -> dict[str, Any]:
    pending = state.pending
    document: dict[str, Any] = {
        "contexts": [{"id": c.id, "lifespan": c.lifespan} for c in state.contexts],
        "parameters": dict(state.parameters),
        "pending": None
        if pending is None
        else {
            "interactionId": pending.interaction_id,
            "alias": pending.alias,
            "failures": pending.failures,
        },
        "collectedBy": dict(state.collected_by),
    }
    handoff = state.handoff
    if handoff is not None:
        document["handoff"] = {
            "connection": handoff.connection,
            "since": handoff.since,
            "lastMessageAt": handoff.last_message_at,
            "userName": handoff.user_name,
            "source": handoff.source,
            "takenBy": None
            if handoff.taken_by is None
            else {
                "name": handoff.taken_by.name,
                "role": handoff.taken_by.role,
                "memberId": handoff.taken_by.member_id,
            },
        }
    return document


def state_from_document(document: Mapping[str, Any]) -> SessionState:
    pending = document.get("pending")
    return SessionState(
        contexts=tuple(ActiveContext(c["id"], c["lifespan"]) for c in document["contexts"]),
        parameters=dict(document["parameters"]),
        pending=None
        if pending is None
        else Pending(pending["interactionId"], pending["alias"], pending["failures"]),
        collected_by=dict(document.get("collectedBy", {})),
        handoff=None if document.get("handoff") is None else _handoff(document["handoff"]),
    )


def _handoff(stored: Mapping[str, Any]) -> HandedOver:
    """A handoff stored before the desk (issue 33) has no name, source nor person."""
    since, last = _aware(stored["since"]), _aware(stored["lastMessageAt"])
    taken = stored.get("takenBy")
    return HandedOver(
        stored["connection"],
        since,
        last,
        user_name=stored.get("userName"),
        source=stored.get("source"),
        taken_by=None if taken is None else Person(taken["name"], taken["role"], taken["memberId"]),
    )


def over_bounds(state: SessionState) -> str | None:
    """Why a session may not hold `state`, or None when it may."""
    count = len(state.parameters)
    if count > MAX_SESSION_PARAMETERS:
        return (
            f"the session would hold {count} parameters, more than {MAX_SESSION_PARAMETERS}; "
            "send fewer or start over with reset: true"
        )
    size = len(bson.encode(state_to_document(state)))
    if size > MAX_SESSION_BYTES:
        return (
            f"the session would hold {size} bytes, more than {MAX_SESSION_BYTES}; "
            "send shorter parameters or start over with reset: true"
        )
    return None


def session_key(story_id: str, session_id: str) -> str:
    return f"{story_id}:{session_id}"


class SessionRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["sessions"]

    async def ensure_indexes(self) -> None:
        await ensure_expiry(self.collection)
        await self.collection.create_index("handoffStoryId", sparse=True)

    async def load(self, story_id: str, session_id: str) -> StoredSession:
        document = await self.collection.find_one({"_id": session_key(story_id, session_id)})
        if document is None:
            return StoredSession(SessionState(), 0)
        if _aware(document["expiresAt"]) <= utcnow():
            return StoredSession(SessionState(), document["version"])
        replies = tuple(
            TurnReply(r["key"], r["asked"], r["body"]) for r in document.get("replies", ())
        )
        return StoredSession(state_from_document(document["state"]), document["version"], replies)

    async def save(
        self,
        story_id: str,
        session_id: str,
        read_version: int,
        state: SessionState,
        idle_timeout: timedelta,
        replies: tuple[TurnReply, ...] = (),
    ) -> bool:
        """Store the state and `replies` unless someone saved this session since
        `read_version`."""
        key = session_key(story_id, session_id)
        document: dict[str, Any] = {
            "_id": key,
            "version": read_version + 1,
            "expiresAt": utcnow() + idle_timeout,
            "state": state_to_document(state),
        }
        if replies:
            document["replies"] = [
                {"key": r.key, "asked": r.asked, "body": r.body} for r in replies
            ]
        if state.handoff is not None:
            document["handoffStoryId"] = story_id
            document["handoffSinceMs"] = epoch_ms(state.handoff.since)
            document["handoffLastMs"] = epoch_ms(state.handoff.last_message_at)
        if read_version == 0:
            try:
                await self.collection.insert_one(document)
            except DuplicateKeyError:
                return False
            return True
        result = await self.collection.replace_one({"_id": key, "version": read_version}, document)
        return result.matched_count == 1

    async def open_handoffs(
        self, story_id: str, active_since: datetime, page: Page
    ) -> tuple[list[OpenHandoff], int]:
        """A page of the story's sessions in a handoff with a message after `active_since`
        and not expired, oldest handoff first, and how many there are in all."""
        found = {
            "handoffStoryId": story_id,
            "expiresAt": {"$gt": utcnow()},
            "handoffLastMs": {"$gt": epoch_ms(active_since)},
        }
        cursor = self.collection.find(found, projection=["state"])
        prefix = len(session_key(story_id, ""))
        items = [
            OpenHandoff(document["_id"][prefix:], _handoff(document["state"]["handoff"]))
            async for document in paged(cursor.sort([("handoffSinceMs", 1), ("_id", 1)]), page)
        ]
        return items, await self.collection.count_documents(found)

    async def delete(self, story_id: str, session_id: str) -> bool:
        """Forget the session's state (an erasure, docs/history.md); False when there was
        none. A turn of it in flight loses its save (the version it read is gone) and is
        taken again from an empty state."""
        result = await self.collection.delete_one({"_id": session_key(story_id, session_id)})
        return result.deleted_count == 1

    async def delete_for_story(self, story_id: str) -> None:
        """By the `_id` prefix, which the `_id` index serves: no other index to maintain on
        every message."""
        await self.collection.delete_many({"_id": {"$regex": f"^{re.escape(story_id)}:"}})


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=utcnow().tzinfo)


class SessionStore(Indexed, Protocol):
    async def load(self, story_id: str, session_id: str) -> StoredSession: ...

    async def save(
        self,
        story_id: str,
        session_id: str,
        read_version: int,
        state: SessionState,
        idle_timeout: timedelta,
        replies: tuple[TurnReply, ...] = (),
    ) -> bool:
        """Store the state and `replies`; False when someone saved the session since
        `read_version`."""

    async def open_handoffs(
        self, story_id: str, active_since: datetime, page: Page
    ) -> tuple[list[OpenHandoff], int]:
        """A page of the story's sessions in a handoff with a message after `active_since`
        and not expired, oldest handoff first, and how many there are in all."""

    async def delete(self, story_id: str, session_id: str) -> bool:
        """Forget the session's state; False when there was none."""

    async def delete_for_story(self, story_id: str) -> None: ...
