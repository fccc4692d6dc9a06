"""The `story_versions` collection: a story frozen as its document, never changed after
(but for who published it last, `mark_published`).

A version holds the story's document (docs/import-export.md) and, for each of its keys,
the id the interaction had in the draft when it was frozen, the webhook it called and the
connection it handed over to: a published version is compiled with the draft's ids, so
a conversation's contexts carry over when the public key moves from the draft to a
version or from one version to the next, and its interactions call the same connections
as the draft did.

Versions are numbered 1, 2, ... per story; the unique index on the number makes two
concurrent freezes take different numbers (the loser tries the next).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from bot_api.indexed import Indexed
from shared.audit import Actor
from shared.ids import new_object_id, object_id
from shared.mongo import Database, paged
from shared.pages import Page
from shared.timeutil import utcnow

MAX_NUMBER_RACES = 20
"""Freezes of one story that may take a number before this one's: more means something
is looping, and the caller hears a Conflict."""


@dataclass(frozen=True)
class FrozenInteraction:
    """What the document leaves out of an interaction that answering needs."""

    key: str
    id: str
    webhook: str = ""
    """The webhook the draft's interaction called (a URL or a connection's id)."""
    handoff: str = ""
    """The id of the connection the draft's interaction handed over to, if it did (the
    document names it: the block is given back its id, last among the responses)."""


@dataclass(frozen=True)
class VersionSummary:
    id: str
    number: int
    note: str
    created_at: datetime
    frozen_by: Actor | None = None
    """Who froze it (None: frozen before versions named anyone)."""
    published_by: Actor | None = None
    """Who last published it, if anyone did since versions name them."""


@dataclass(frozen=True)
class StoryVersion:
    id: str
    account_id: str
    story_id: str
    number: int
    note: str
    created_at: datetime
    document: Mapping[str, Any]
    """The story's document as export wrote it when the version was made."""
    interactions: Sequence[FrozenInteraction]
    """One per interaction of the document, in its order."""
    frozen_by: Actor | None = None
    published_by: Actor | None = None

    def summary(self) -> VersionSummary:
        return VersionSummary(
            self.id, self.number, self.note, self.created_at, self.frozen_by, self.published_by
        )

    def ids(self) -> dict[str, str]:
        """The draft's interaction id of each key."""
        return {frozen.key: frozen.id for frozen in self.interactions}

    def webhooks(self) -> dict[str, str]:
        """The webhook each interaction called, by id (those that called one)."""
        return {frozen.id: frozen.webhook for frozen in self.interactions if frozen.webhook}

    def handoffs(self) -> dict[str, str]:
        """The connection each interaction handed over to, by id (those that did)."""
        return {frozen.id: frozen.handoff for frozen in self.interactions if frozen.handoff}


class NumberTaken(Exception):
    """Another freeze of the story took the number meanwhile."""


def version_to_document(version: StoryVersion) -> dict[str, Any]:
    """Keys may hold `.`, which MongoDB field names should not: the key map is a list."""
    return {
        "_id": ObjectId(version.id),
        "accountId": version.account_id,
        "storyId": version.story_id,
        "number": version.number,
        "note": version.note,
        "createdAt": version.created_at,
        "document": dict(version.document),
        "interactions": [
            {"key": f.key, "id": f.id, "webhook": f.webhook, "handoff": f.handoff}
            for f in version.interactions
        ],
        "frozenBy": None if version.frozen_by is None else version.frozen_by.as_json(),
    }


def _actor(stored: Mapping[str, Any] | None) -> Actor | None:
    return None if stored is None else Actor.of_json(stored)


def version_from_document(document: Mapping[str, Any]) -> StoryVersion:
    return StoryVersion(
        id=str(document["_id"]),
        account_id=document["accountId"],
        story_id=document["storyId"],
        number=document["number"],
        note=document["note"],
        created_at=document["createdAt"],
        document=document["document"],
        interactions=tuple(
            FrozenInteraction(f["key"], f["id"], f["webhook"], f.get("handoff", ""))
            for f in document["interactions"]
        ),
        frozen_by=_actor(document.get("frozenBy")),
        published_by=_actor(document.get("publishedBy")),
    )


def _summary(document: Mapping[str, Any]) -> VersionSummary:
    return VersionSummary(
        str(document["_id"]),
        document["number"],
        document["note"],
        document["createdAt"],
        _actor(document.get("frozenBy")),
        _actor(document.get("publishedBy")),
    )


def new_version(
    account_id: str,
    story_id: str,
    note: str,
    document: Mapping[str, Any],
    interactions: Sequence[FrozenInteraction],
    frozen_by: Actor,
) -> StoryVersion:
    """A version not yet stored: `VersionStore.add` gives it its number."""
    now = utcnow()
    created_at = now.replace(microsecond=now.microsecond // 1000 * 1000)  # as MongoDB keeps it
    return StoryVersion(
        new_object_id(),
        account_id,
        story_id,
        0,
        note,
        created_at,
        document,
        tuple(interactions),
        frozen_by,
    )


class VersionRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["story_versions"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index(
            [("accountId", 1), ("storyId", 1), ("number", -1)], unique=True
        )

    async def add(self, version: StoryVersion) -> StoryVersion:
        """Stored under the story's next number; the version as stored."""
        for _ in range(MAX_NUMBER_RACES):
            last = await self.collection.find_one(
                {"accountId": version.account_id, "storyId": version.story_id},
                projection={"number": 1},
                sort=[("number", -1)],
            )
            numbered = replace(version, number=1 if last is None else last["number"] + 1)
            try:
                await self.collection.insert_one(version_to_document(numbered))
            except DuplicateKeyError:
                continue
            return numbered
        raise NumberTaken(version.story_id)

    async def list(self, account_id: str, story_id: str, page: Page) -> list[VersionSummary]:
        """Newest first, without their documents."""
        cursor = self.collection.find(
            {"accountId": account_id, "storyId": story_id},
            projection={"number": 1, "note": 1, "createdAt": 1, "frozenBy": 1, "publishedBy": 1},
        ).sort("number", -1)
        return [_summary(document) async for document in paged(cursor, page)]

    async def count(self, account_id: str, story_id: str) -> int:
        return await self.collection.count_documents({"accountId": account_id, "storyId": story_id})

    async def get(self, account_id: str, story_id: str, version_id: str) -> StoryVersion | None:
        key = object_id(version_id)
        if key is None:
            return None
        document = await self.collection.find_one(
            {"_id": key, "accountId": account_id, "storyId": story_id}
        )
        return None if document is None else version_from_document(document)

    async def mark_published(
        self, account_id: str, story_id: str, version_id: str, by: Actor
    ) -> None:
        """`by` published the version (the one field a version changes after it is made)."""
        key = object_id(version_id)
        if key is not None:
            await self.collection.update_one(
                {"_id": key, "accountId": account_id, "storyId": story_id},
                {"$set": {"publishedBy": by.as_json()}},
            )

    async def delete(self, account_id: str, story_id: str, version_id: str) -> bool:
        key = object_id(version_id)
        if key is None:
            return False
        result = await self.collection.delete_one(
            {"_id": key, "accountId": account_id, "storyId": story_id}
        )
        return result.deleted_count == 1

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        await self.collection.delete_many({"accountId": account_id, "storyId": story_id})


class VersionStore(Indexed, Protocol):
    async def add(self, version: StoryVersion) -> StoryVersion:
        """Stored under the story's next number (1 for its first): the version as stored.
        `storage.versions.NumberTaken` if other freezes keep taking the number."""

    async def list(self, account_id: str, story_id: str, page: Page) -> list[VersionSummary]:
        """A page of the story's versions, newest first."""

    async def count(self, account_id: str, story_id: str) -> int: ...

    async def get(self, account_id: str, story_id: str, version_id: str) -> StoryVersion | None: ...

    async def mark_published(
        self, account_id: str, story_id: str, version_id: str, by: Actor
    ) -> None: ...

    async def delete(self, account_id: str, story_id: str, version_id: str) -> bool: ...

    async def delete_for_story(self, account_id: str, story_id: str) -> None: ...
