"""The `webhook_connections` collection of integrations-api's own database."""

from typing import Any

from bson import ObjectId
from bson.errors import InvalidId
from pymongo.asynchronous.database import AsyncDatabase

from shared.timeutil import iso, utcnow

OPTIONAL_FIELDS = ("token", "headers", "auth")


def _key(connection_id: str) -> ObjectId | None:
    try:
        return ObjectId(connection_id)
    except (InvalidId, TypeError):
        return None


def to_api(document: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(document["_id"]),
        "story": {"id": document["storyId"], "name": document["storyName"]},
        "name": document["name"],
        "url": document["url"],
        "error": document.get("error"),
        "createdAt": iso(document["createdAt"]),
        "updatedAt": iso(document["updatedAt"]),
        **{name: document.get(name) for name in OPTIONAL_FIELDS},
    }


class ConnectionRepository:
    def __init__(self, database: AsyncDatabase) -> None:
        self.collection = database["webhook_connections"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("accountId", 1), ("createdAt", 1)])
        await self.collection.create_index([("accountId", 1), ("storyId", 1)])

    async def insert(self, account_id: str, story_name: str, fields: dict[str, Any]) -> str:
        now = utcnow()
        document = {
            "accountId": account_id,
            "storyId": fields["storyId"],
            "storyName": story_name,
            "name": fields["name"],
            "url": fields["url"],
            **{name: fields[name] for name in OPTIONAL_FIELDS if name in fields},
            "error": None,
            "createdAt": now,
            "updatedAt": now,
        }
        result = await self.collection.insert_one(document)
        return str(result.inserted_id)

    async def list(self, account_id: str) -> list[dict[str, Any]]:
        cursor = self.collection.find({"accountId": account_id}).sort("createdAt", 1)
        return [document async for document in cursor]

    async def get(self, account_id: str, connection_id: str) -> dict[str, Any] | None:
        key = _key(connection_id)
        if key is None:
            return None
        return await self.collection.find_one({"_id": key, "accountId": account_id})

    async def replace(self, account_id: str, connection_id: str, fields: dict[str, Any]) -> bool:
        """Write the whole configuration; whatever optional field is left out goes."""
        current = await self.get(account_id, connection_id)
        if current is None:
            return False
        document = {
            **{k: v for k, v in current.items() if k not in OPTIONAL_FIELDS},
            "name": fields["name"],
            "url": fields["url"],
            **{name: fields[name] for name in OPTIONAL_FIELDS if name in fields},
            "updatedAt": utcnow(),
        }
        result = await self.collection.replace_one(
            {"_id": current["_id"], "accountId": account_id}, document
        )
        return result.matched_count == 1

    async def used_by_story(self, account_id: str, story_id: str) -> bool:
        found = await self.collection.find_one(
            {"accountId": account_id, "storyId": story_id}, projection={"_id": 1}
        )
        return found is not None

    async def rename_story(self, account_id: str, story_id: str, name: str) -> None:
        await self.collection.update_many(
            {"accountId": account_id, "storyId": story_id, "storyName": {"$ne": name}},
            {"$set": {"storyName": name}},
        )

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        await self.collection.delete_many({"accountId": account_id, "storyId": story_id})

    async def delete(self, account_id: str, connection_id: str) -> bool:
        key = _key(connection_id)
        if key is None:
            return False
        result = await self.collection.delete_one({"_id": key, "accountId": account_id})
        return result.deleted_count == 1
