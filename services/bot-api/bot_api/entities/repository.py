"""The `entities` collection; names are unique per account."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bson import ObjectId
from pymongo.errors import DuplicateKeyError

from bot_api.domain.entities import Entity, Entry
from bot_api.indexed import Indexed
from shared.errors import Conflict
from shared.ids import object_id
from shared.mongo import Database, paged
from shared.pages import EVERY_ITEM, Page
from shared.timeutil import utcnow


@dataclass(frozen=True)
class StoredEntity:
    """An entity of an account and its id."""

    id: str
    entity: Entity


def entity_document(entity: Entity) -> dict[str, Any]:
    return {
        "name": entity.name,
        "entries": entries_document(entity.entries),
        "translations": {
            language: entries_document(entries) for language, entries in entity.translations.items()
        },
        "entryCount": entity.entry_count,
    }


def entries_document(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """Entries as they are stored, and as the API and the story document show them."""
    return [
        {"value": entry.value, "synonyms": [{"value": s} for s in entry.synonyms]}
        for entry in entries
    ]


def entries_of(stored: Iterable[Mapping[str, Any]]) -> tuple[Entry, ...]:
    return tuple(
        Entry(entry["value"], tuple(s["value"] for s in entry["synonyms"])) for entry in stored
    )


def stored_entity(document: Mapping[str, Any]) -> StoredEntity:
    entity = Entity(
        document["name"],
        entries_of(document["entries"]),
        {language: entries_of(e) for language, e in document.get("translations", {}).items()},
    )
    return StoredEntity(str(document["_id"]), entity)


class EntityRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["entities"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("accountId", 1), ("name", 1)], unique=True)

    async def insert(self, account_id: str, entity: Entity, entity_id: str | None = None) -> str:
        now = utcnow()
        key = {} if entity_id is None else {"_id": ObjectId(entity_id)}
        document = {**key, "accountId": account_id, **entity_document(entity)}
        try:
            result = await self.collection.insert_one(
                {**document, "createdAt": now, "updatedAt": now}
            )
        except DuplicateKeyError:
            raise Conflict(f"an entity named {entity.name!r} already exists") from None
        return str(result.inserted_id)

    async def list(self, account_id: str, page: Page = EVERY_ITEM) -> list[StoredEntity]:
        cursor = self.collection.find({"accountId": account_id}).sort("createdAt", 1)
        return [stored_entity(document) async for document in paged(cursor, page)]

    async def count(self, account_id: str) -> int:
        return await self.collection.count_documents({"accountId": account_id})

    async def totals(self, account_id: str) -> tuple[int, int]:
        cursor = await self.collection.aggregate(
            [
                {"$match": {"accountId": account_id}},
                {
                    "$group": {
                        "_id": None,
                        "entities": {"$sum": 1},
                        "entries": {"$sum": {"$ifNull": ["$entryCount", {"$size": "$entries"}]}},
                    }
                },
            ]
        )
        totals = await cursor.to_list()
        return (int(totals[0]["entities"]), int(totals[0]["entries"])) if totals else (0, 0)

    async def get(self, account_id: str, entity_id: str) -> StoredEntity | None:
        key = object_id(entity_id)
        if key is None:
            return None
        document = await self.collection.find_one({"_id": key, "accountId": account_id})
        return None if document is None else stored_entity(document)

    async def replace(self, account_id: str, entity_id: str, entity: Entity) -> bool:
        try:
            result = await self.collection.update_one(
                {"_id": object_id(entity_id), "accountId": account_id},
                {"$set": {**entity_document(entity), "updatedAt": utcnow()}},
            )
        except DuplicateKeyError:
            raise Conflict(f"an entity named {entity.name!r} already exists") from None
        return result.matched_count == 1

    async def delete(self, account_id: str, entity_id: str) -> bool:
        key = object_id(entity_id)
        if key is None:
            return False
        result = await self.collection.delete_one({"_id": key, "accountId": account_id})
        return result.deleted_count == 1

    async def with_names(self, account_id: str, names: Iterable[str]) -> Sequence[StoredEntity]:
        cursor = self.collection.find({"accountId": account_id, "name": {"$in": list(names)}})
        return [stored_entity(document) async for document in cursor]

    async def existing_names(self, account_id: str, names: Iterable[str]) -> set[str]:
        cursor = self.collection.find(
            {"accountId": account_id, "name": {"$in": list(names)}}, projection={"name": 1}
        )
        return {document["name"] async for document in cursor}


class EntityStore(Indexed, Protocol):
    async def insert(self, account_id: str, entity: Entity, entity_id: str | None = None) -> str:
        """The new entity's id (`entity_id` when given); Conflict if the account has an
        entity of that name."""

    async def list(self, account_id: str, page: Page = EVERY_ITEM) -> list[StoredEntity]:
        """The account's entities (of `page`, or all), oldest first."""

    async def count(self, account_id: str) -> int: ...

    async def totals(self, account_id: str) -> tuple[int, int]:
        """How many entities the account has, and how many entries they hold."""

    async def get(self, account_id: str, entity_id: str) -> StoredEntity | None: ...

    async def replace(self, account_id: str, entity_id: str, entity: Entity) -> bool:
        """Conflict if another entity of the account has the new name."""

    async def delete(self, account_id: str, entity_id: str) -> bool: ...

    async def with_names(self, account_id: str, names: Iterable[str]) -> Sequence[StoredEntity]:
        """The account's entities of those names."""

    async def existing_names(self, account_id: str, names: Iterable[str]) -> set[str]: ...
