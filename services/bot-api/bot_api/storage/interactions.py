"""The `interactions` collection: the content of each interaction.

A document is part of its story only while the story's structure lists it; a document
the structure does not list (a create cut short) is never shown.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from bot_api.domain.interactions import Interaction, interaction_from_content
from shared.mongo import Database
from shared.timeutil import utcnow

CONTENT_FIELDS = (
    "type",
    "name",
    "action",
    "triggers",
    "userSays",
    "parameters",
    "responses",
    "webhook",
)


def interaction_from_document(document: Mapping[str, Any]) -> Interaction:
    return interaction_from_content(document["_id"], document["type"], document)


class InteractionRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["interactions"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index("storyId")
        await self.collection.create_index([("storyId", 1), ("triggerKeys", 1)])
        await self.collection.create_index([("accountId", 1), ("parameters.entity", 1)])

    async def insert_many(
        self, account_id: str, story_id: str, interactions: list[dict[str, Any]]
    ) -> None:
        now = utcnow()
        await self.collection.insert_many(
            [
                {
                    "_id": interaction["id"],
                    "accountId": account_id,
                    "storyId": story_id,
                    **{name: interaction[name] for name in CONTENT_FIELDS},
                    "triggerKeys": _trigger_keys(interaction["triggers"]),
                    "createdAt": now,
                    "updatedAt": now,
                }
                for interaction in interactions
            ]
        )

    async def find(
        self, story_id: str, ids: Iterable[str], projection: list[str] | None = None
    ) -> dict[str, dict[str, Any]]:
        cursor = self.collection.find(
            {"storyId": story_id, "_id": {"$in": list(ids)}}, projection=projection
        )
        return {document["_id"]: document async for document in cursor}

    async def with_triggers(self, story_id: str, triggers: list[str]) -> dict[str, list[str]]:
        """The triggers of the story's interactions that may have any of `triggers` in any
        case: those whose `triggerKeys` (the triggers in lower case) share one, and those
        written before `triggerKeys` existed."""
        keys = [trigger.lower() for trigger in triggers]
        found: dict[str, list[str]] = {}
        # Two finds, not one `$or`: nx-27017 runs that `$or` over the whole collection
        # (docs/mongodb-compatibility.md).
        for condition in ({"$in": keys}, {"$exists": False}):
            cursor = self.collection.find(
                {"storyId": story_id, "triggerKeys": condition}, projection=["triggers"]
            )
            found.update({document["_id"]: document["triggers"] async for document in cursor})
        return found

    async def count_phrases(self, story_id: str, ids: Iterable[str]) -> int:
        # A find and a sum here, not an aggregate: nx-27017 runs `$match` on `_id` `$in`
        # over the whole collection (docs/mongodb-compatibility.md).
        cursor = self.collection.find(
            {"storyId": story_id, "_id": {"$in": list(ids)}}, projection=["userSays"]
        )
        return sum([len(document["userSays"]) async for document in cursor])

    async def get(self, story_id: str, interaction_id: str) -> dict[str, Any] | None:
        return await self.collection.find_one({"_id": interaction_id, "storyId": story_id})

    async def replace_content(
        self, story_id: str, interaction_id: str, content: dict[str, Any]
    ) -> None:
        await self.collection.update_one(
            {"_id": interaction_id, "storyId": story_id},
            {
                "$set": {
                    **{name: content[name] for name in CONTENT_FIELDS},
                    "triggerKeys": _trigger_keys(content["triggers"]),
                    "updatedAt": utcnow(),
                }
            },
        )

    async def await_connections(self, story_id: str, names: Mapping[str, str]) -> None:
        """Each interaction (by id) is to call the connection of that name once the story
        has one (an imported story: docs/import-export.md)."""
        for interaction_id, name in names.items():
            await self.collection.update_one(
                {"_id": interaction_id, "storyId": story_id},
                {"$set": {"awaitedConnection": name}},
            )

    async def connect_awaiting(self, story_id: str, name: str, connection_id: str) -> list[str]:
        """The interactions awaiting the connection `name` call it now, unless given a
        webhook meanwhile; the ids of those that changed."""
        cursor = self.collection.find(
            {"storyId": story_id, "awaitedConnection": name}, projection=["webhook"]
        )
        awaiting = {document["_id"]: document["webhook"] async for document in cursor}
        connected = [i for i, webhook in awaiting.items() if webhook == ""]
        if connected:
            await self.collection.update_many(
                {"storyId": story_id, "_id": {"$in": connected}},
                {"$set": {"webhook": connection_id, "updatedAt": utcnow()}},
            )
        if awaiting:
            await self.collection.update_many(
                {"storyId": story_id, "_id": {"$in": list(awaiting)}},
                {"$unset": {"awaitedConnection": ""}},
            )
        return connected

    async def delete_many(self, story_id: str, ids: Iterable[str]) -> None:
        await self.collection.delete_many({"storyId": story_id, "_id": {"$in": list(ids)}})

    async def delete_for_story(self, story_id: str) -> None:
        await self.collection.delete_many({"storyId": story_id})

    async def using_entity(self, account_id: str, entity: str) -> list[dict[str, Any]]:
        # $elemMatch, not "parameters.entity": nx-27017 finds nothing through a dotted path
        # into an indexed array (docs/mongodb-compatibility.md); on MongoDB both are the same.
        cursor = self.collection.find(
            {"accountId": account_id, "parameters": {"$elemMatch": {"entity": entity}}},
            projection={"storyId": 1},
        )
        return [document async for document in cursor]


def _trigger_keys(triggers: list[str]) -> list[str]:
    return sorted({trigger.lower() for trigger in triggers})
