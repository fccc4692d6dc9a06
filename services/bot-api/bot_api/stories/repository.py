"""The `stories` collection: a story's fields, settings and its whole structure.

Keeping `order` and every interaction's contexts in the story document makes each
structural change one atomic, conditional write (on `revision`), on any MongoDB. An
added interaction is written as a change of the document (`$push`, a dotted `$set`),
not as the whole structure again.

`phrases` counts the user-says phrases of the interactions the structure lists, so the
phrase quota needs no count over the story's interactions; a story stored before the
counter existed has none (`StoryRecord.phrases` is None) until it is counted once.
"""

from dataclasses import asdict, dataclass
from typing import Any, Protocol

from bson import ObjectId

from bot_api.domain.settings import Settings
from bot_api.domain.structure import Context, Structure
from bot_api.indexed import Indexed
from shared.ids import object_id
from shared.mongo import Database, paged
from shared.pages import Page
from shared.timeutil import utcnow


@dataclass(frozen=True)
class StoryRecord:
    id: str
    account_id: str
    name: str
    description: str
    settings: Settings
    structure: Structure
    revision: int
    phrases: int | None = None
    published: str | None = None
    """The version the public key's /query answers from (None: the draft answers)."""


@dataclass(frozen=True)
class StoryFields:
    """What an edit of a story's own fields writes."""

    name: str
    description: str
    settings: Settings
    published: str | None
    """Given by every edit, so none can forget the story's published version."""


def structure_to_document(structure: Structure) -> dict[str, Any]:
    return {
        "order": list(structure.order),
        "contexts": {
            interaction_id: {
                "root": context.root,
                "contextOut": list(context.context_out),
                "references": list(context.references),
            }
            for interaction_id, context in structure.contexts.items()
        },
        "permanent": sorted(structure.permanent),
    }


def structure_from_document(document: dict[str, Any]) -> Structure:
    return Structure(
        order=tuple(document["order"]),
        contexts={
            interaction_id: Context(
                root=context["root"],
                context_out=tuple(context["contextOut"]),
                references=tuple(context["references"]),
            )
            for interaction_id, context in document["contexts"].items()
        },
        permanent=frozenset(document["permanent"]),
    )


def _record(document: dict[str, Any]) -> StoryRecord:
    return StoryRecord(
        id=str(document["_id"]),
        account_id=document["accountId"],
        name=document["name"],
        description=document["description"],
        settings=Settings(**document.get("settings", {})),
        structure=structure_from_document(document),
        revision=document["revision"],
        phrases=document.get("phrases"),
        published=document.get("published"),
    )


def _of_account(account_id: str, only: frozenset[str] | None) -> dict[str, Any]:
    """The account's stories, or those of them in `only` (a member's stories)."""
    if only is None:
        return {"accountId": account_id}
    return {"accountId": account_id, "_id": {"$in": [ObjectId(i) for i in sorted(only)]}}


class StoryRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["stories"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("accountId", 1), ("createdAt", 1)])

    async def insert(
        self,
        story_id: str,
        account_id: str,
        name: str,
        description: str,
        settings: Settings,
        structure: Structure,
        phrases: int,
    ) -> None:
        now = utcnow()
        document = {
            "_id": ObjectId(story_id),
            "accountId": account_id,
            "name": name,
            "description": description,
            "settings": asdict(settings),
            "revision": 1,
            "phrases": phrases,
            "createdAt": now,
            "updatedAt": now,
            **structure_to_document(structure),
        }
        await self.collection.insert_one(document)

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[dict[str, Any]]:
        cursor = self.collection.find(
            _of_account(account_id, only), projection={"name": 1, "description": 1}
        ).sort("createdAt", 1)
        return [document async for document in paged(cursor, page)]

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int:
        return await self.collection.count_documents(_of_account(account_id, only))

    async def get(self, account_id: str, story_id: str) -> StoryRecord | None:
        key = object_id(story_id)
        if key is None:
            return None
        document = await self.collection.find_one({"_id": key, "accountId": account_id})
        return None if document is None else _record(document)

    async def update(
        self,
        story: StoryRecord,
        changes: StoryFields | None = None,
        structure: Structure | None = None,
        added_phrases: int = 0,
    ) -> bool:
        """Write `changes` (and a new structure, and `added_phrases` to a story that counts
        them) only if nobody changed the story meanwhile."""
        fields: dict[str, Any] = {"updatedAt": utcnow()}
        if changes is not None:
            fields.update(asdict(changes))
        if structure is not None:
            fields.update(structure_to_document(structure))
        return await self._write(story, {"$set": fields}, added_phrases)

    async def add_interaction(
        self, story: StoryRecord, interaction_id: str, parent_id: str | None, phrases: int
    ) -> bool:
        """List a new interaction (a root, or owned by `parent_id`) holding `phrases`, only
        if nobody changed the story meanwhile. Only the new entry is written: the cost
        does not grow with the story. Ids are UUIDs, so they are valid field names."""
        if parent_id is None:
            listed = {"order": interaction_id}
        else:
            listed = {f"contexts.{parent_id}.contextOut": interaction_id}
        context = {"root": parent_id is None, "contextOut": [], "references": []}
        change = {
            "$push": listed,
            "$set": {f"contexts.{interaction_id}": context, "updatedAt": utcnow()},
        }
        return await self._write(story, change, phrases)

    async def add_phrases(self, story: StoryRecord, added: int) -> None:
        """Count `added` more phrases (fewer if negative) for a content change, which is
        not a change of the structure: neither conditional on nor changing `revision`."""
        await self.collection.update_one(
            {
                "_id": ObjectId(story.id),
                "accountId": story.account_id,
                "phrases": {"$exists": True},
            },
            {"$inc": {"phrases": added}},
        )

    async def set_phrases(self, story: StoryRecord, phrases: int) -> bool:
        """Store a phrase count made from the interactions, only if neither the structure
        nor the counter changed since `story` was read."""
        counted = {"$exists": False} if story.phrases is None else story.phrases
        result = await self.collection.update_one(
            {
                "_id": ObjectId(story.id),
                "accountId": story.account_id,
                "revision": story.revision,
                "phrases": counted,
            },
            {"$set": {"phrases": phrases}, "$inc": {"revision": 1}},
        )
        return result.matched_count == 1

    async def _write(self, story: StoryRecord, change: dict[str, Any], added_phrases: int) -> bool:
        increments = {"revision": 1}
        if added_phrases and story.phrases is not None:
            increments["phrases"] = added_phrases
        result = await self.collection.update_one(
            {"_id": ObjectId(story.id), "accountId": story.account_id, "revision": story.revision},
            {**change, "$inc": increments},
        )
        return result.matched_count == 1

    async def delete(self, account_id: str, story_id: str) -> bool:
        key = object_id(story_id)
        if key is None:
            return False
        result = await self.collection.delete_one({"_id": key, "accountId": account_id})
        return result.deleted_count == 1


class StoryStore(Indexed, Protocol):
    async def insert(
        self,
        story_id: str,
        account_id: str,
        name: str,
        description: str,
        settings: Settings,
        structure: Structure,
        phrases: int,
    ) -> None:
        """`phrases`: how many user-says phrases the structure's interactions hold."""

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[dict[str, Any]]:
        """`_id`, `name` and `description` of a page of the account's stories, oldest
        first; of those in `only` alone, when given."""

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int: ...

    async def get(self, account_id: str, story_id: str) -> StoryRecord | None: ...

    async def update(
        self,
        story: StoryRecord,
        changes: StoryFields | None = None,
        structure: Structure | None = None,
        added_phrases: int = 0,
    ) -> bool:
        """False when the story's revision is no longer `story.revision`. The phrase
        counter changes by `added_phrases` only if the story has one."""

    async def add_interaction(
        self, story: StoryRecord, interaction_id: str, parent_id: str | None, phrases: int
    ) -> bool:
        """`update` with the structure `story.structure` plus a new root (`parent_id`
        None) or a new child of `parent_id`, holding `phrases`."""

    async def add_phrases(self, story: StoryRecord, added: int) -> None:
        """The phrase counter, if the story has one, changes by `added`; the revision
        stays."""

    async def set_phrases(self, story: StoryRecord, phrases: int) -> bool:
        """The phrase counter becomes `phrases` (and the revision goes up), unless the
        revision or the counter (or its absence) is no longer what `story` holds."""

    async def delete(self, account_id: str, story_id: str) -> bool: ...
