"""The `webhook_connections` collection of integrations-api's own database, and the
Protocol the use cases take it by (so their unit tests run on tests/support/integrations.py)."""

from typing import Any, Protocol

from bson import ObjectId

from integrations_api.stories.service import StoryFollowers
from shared.ids import object_id as _key
from shared.mongo import Database, of_account, paged
from shared.pages import Page
from shared.timeutil import utcnow

OPTIONAL_FIELDS = ("token", "headers", "auth")


def new_connection(account_id: str, story_name: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A connection's first document; `revision` grows with each write (ordering of
    events)."""
    now = utcnow()
    return {
        "accountId": account_id,
        "storyId": fields["storyId"],
        "storyName": story_name,
        "name": fields["name"],
        "url": fields["url"],
        **{name: fields[name] for name in OPTIONAL_FIELDS if fields.get(name) is not None},
        "error": None,
        "revision": 1,
        "createdAt": now,
        "updatedAt": now,
    }


def replaced_connection(current: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """`current` with the fields sent (an optional field left out keeps its value, one
    sent as null goes) and the next revision."""
    document = {
        **current,
        "name": fields["name"],
        "url": fields["url"],
        "revision": current.get("revision", 0) + 1,
        "updatedAt": utcnow(),
    }
    for name in OPTIONAL_FIELDS:
        if name in fields and fields[name] is None:
            document.pop(name, None)
        elif name in fields:
            document[name] = fields[name]
    return document


class ConnectionStore(StoryFollowers, Protocol):
    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[dict[str, Any]]:
        """A page of the account's connections (of the stories in `only`, if given)."""

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int: ...

    async def get(self, account_id: str, connection_id: str) -> dict[str, Any] | None: ...

    async def insert(
        self,
        account_id: str,
        story_name: str,
        fields: dict[str, Any],
        connection_id: str | None = None,
    ) -> dict[str, Any]: ...

    async def replace(
        self, account_id: str, connection_id: str, fields: dict[str, Any]
    ) -> dict[str, Any] | None: ...

    async def delete(self, account_id: str, connection_id: str) -> dict[str, Any] | None: ...

    async def record_delivery(
        self, account_id: str, connection_id: str, error: str | None, at_ms: int
    ) -> None: ...


class ConnectionRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["webhook_connections"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("accountId", 1), ("createdAt", 1)])
        await self.collection.create_index([("accountId", 1), ("storyId", 1)])

    async def insert(
        self,
        account_id: str,
        story_name: str,
        fields: dict[str, Any],
        connection_id: str | None = None,
    ) -> dict[str, Any]:
        """The stored document (under `connection_id` when given)."""
        document = new_connection(account_id, story_name, fields)
        if connection_id is not None:
            document["_id"] = ObjectId(connection_id)
        await self.collection.insert_one(document)
        return document

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[dict[str, Any]]:
        cursor = self.collection.find(of_account(account_id, only)).sort("createdAt", 1)
        return [document async for document in paged(cursor, page)]

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int:
        return await self.collection.count_documents(of_account(account_id, only))

    async def get(self, account_id: str, connection_id: str) -> dict[str, Any] | None:
        key = _key(connection_id)
        if key is None:
            return None
        return await self.collection.find_one({"_id": key, "accountId": account_id})

    async def replace(
        self, account_id: str, connection_id: str, fields: dict[str, Any]
    ) -> dict[str, Any] | None:
        """Write the whole configuration (an optional field left out goes); the stored
        document, or None if there is no such connection."""
        current = await self.get(account_id, connection_id)
        if current is None:
            return None
        document = replaced_connection(current, fields)
        result = await self.collection.replace_one(
            {"_id": current["_id"], "accountId": account_id, "revision": current.get("revision")},
            document,
        )
        return document if result.matched_count == 1 else None

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

    async def delete(self, account_id: str, connection_id: str) -> dict[str, Any] | None:
        """The deleted document, or None if there was no such connection."""
        current = await self.get(account_id, connection_id)
        if current is None:
            return None
        result = await self.collection.delete_one({"_id": current["_id"], "accountId": account_id})
        return current if result.deleted_count == 1 else None

    async def record_delivery(
        self, account_id: str, connection_id: str, error: str | None, at_ms: int
    ) -> None:
        """Set or clear `error`, unless a later delivery was recorded already. Times are
        epoch milliseconds: nx-27017 compares neither datetimes set by `$set` nor ISO
        strings exactly. The `$or` sits inside `$and`: next to other fields at the top
        level, nx-27017's update drops the other fields and changes another document
        (docs/mongodb-compatibility.md)."""
        key = _key(connection_id)
        if key is None:
            return
        await self.collection.update_one(
            {
                "$and": [
                    {"_id": key, "accountId": account_id},
                    {
                        "$or": [
                            {"lastDeliveryAtMs": {"$exists": False}},
                            {"lastDeliveryAtMs": {"$lt": at_ms}},
                        ]
                    },
                ]
            },
            {"$set": {"error": error, "lastDeliveryAtMs": at_ms}},
        )
