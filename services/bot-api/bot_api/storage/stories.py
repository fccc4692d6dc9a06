"""The `stories` collection: a story's fields, settings and its whole structure.

Keeping `order` and every interaction's contexts in the story document makes each
structural change one atomic, conditional write (on `revision`), on any MongoDB.
"""

from dataclasses import asdict, dataclass
from typing import Any

from bson import ObjectId

from bot_api.domain.settings import Settings
from bot_api.domain.structure import Context, Structure
from shared.ids import object_id
from shared.mongo import Database
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
    )


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
    ) -> None:
        now = utcnow()
        document = {
            "_id": ObjectId(story_id),
            "accountId": account_id,
            "name": name,
            "description": description,
            "settings": asdict(settings),
            "revision": 1,
            "createdAt": now,
            "updatedAt": now,
            **structure_to_document(structure),
        }
        await self.collection.insert_one(document)

    async def list(self, account_id: str, page: Page | None = None) -> list[dict[str, Any]]:
        cursor = self.collection.find(
            {"accountId": account_id}, projection={"name": 1, "description": 1}
        ).sort("createdAt", 1)
        if page is not None:
            cursor = cursor.skip(page.offset).limit(page.limit)
        return [document async for document in cursor]

    async def count(self, account_id: str) -> int:
        return await self.collection.count_documents({"accountId": account_id})

    async def get(self, account_id: str, story_id: str) -> StoryRecord | None:
        key = object_id(story_id)
        if key is None:
            return None
        document = await self.collection.find_one({"_id": key, "accountId": account_id})
        return None if document is None else _record(document)

    async def update(
        self, story: StoryRecord, changes: dict[str, Any], structure: Structure | None = None
    ) -> bool:
        """Write `changes` (and a new structure) only if nobody changed the story meanwhile."""
        fields = {**changes, "revision": story.revision + 1, "updatedAt": utcnow()}
        if structure is not None:
            fields.update(structure_to_document(structure))
        result = await self.collection.update_one(
            {"_id": ObjectId(story.id), "accountId": story.account_id, "revision": story.revision},
            {"$set": fields},
        )
        return result.matched_count == 1

    async def delete(self, account_id: str, story_id: str) -> bool:
        key = object_id(story_id)
        if key is None:
            return False
        result = await self.collection.delete_one({"_id": key, "accountId": account_id})
        return result.deleted_count == 1
