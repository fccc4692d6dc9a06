"""bot-api's view of webhook connections (url and credentials), fed by integrations-api's
events: an older revision never overwrites a newer one, and a deletion stays as a
tombstone so a late event cannot bring it back."""

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pymongo.errors import DuplicateKeyError

from bot_api.indexed import Indexed
from shared.events import ConnectionChanged
from shared.ids import is_object_id
from shared.mongo import Database


@dataclass(frozen=True)
class Connection:
    """What a delivery through a webhook connection needs of it."""

    id: str
    name: str
    url: str
    token: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    auth: tuple[str, str] | None = None
    """HTTP Basic username and password."""


def connection_from_document(document: Mapping[str, Any]) -> Connection:
    auth = document.get("auth")
    return Connection(
        id=document["_id"],
        name=document["name"],
        url=document["url"],
        token=document.get("token"),
        headers=document.get("headers") or {},
        auth=None if not auth else (auth["username"], auth["password"]),
    )


class ConnectionViewRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["connections"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("accountId", 1), ("storyId", 1), ("url", 1)])

    async def apply(self, event: ConnectionChanged) -> None:
        fields = {
            "accountId": event.account_id,
            "storyId": event.story_id,
            "name": event.name,
            "url": event.url,
            "token": event.token,
            "headers": event.headers,
            "auth": event.auth,
            "deleted": event.deleted,
            "revision": event.revision,
        }
        # A DuplicateKeyError means the view holds this revision or a newer one already.
        with contextlib.suppress(DuplicateKeyError):
            await self.collection.update_one(
                {"_id": event.connection_id, "revision": {"$lt": event.revision}},
                {"$set": fields},
                upsert=True,
            )

    async def names(self, account_id: str, story_id: str, ids: Iterable[str]) -> dict[str, str]:
        """The name of each of the story's connections among `ids`, by id."""
        cursor = self.collection.find(
            {
                "_id": {"$in": list(ids)},
                "accountId": account_id,
                "storyId": story_id,
                "deleted": False,
            },
            projection=["name"],
        )
        return {document["_id"]: document["name"] async for document in cursor}

    async def for_webhook(self, account_id: str, story_id: str, webhook: str) -> Connection | None:
        """The story's connection a webhook names: by id, or by a URL equal to its url."""
        by = {"_id": webhook} if is_object_id(webhook) else {"url": webhook}
        document = await self.collection.find_one(
            {**by, "accountId": account_id, "storyId": story_id, "deleted": False}
        )
        return None if document is None else connection_from_document(document)

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        """A deleted story's connections, tombstones included: a story id is never used
        again, so an event of one of them arriving later is harmless (it is never read)."""
        await self.collection.delete_many({"accountId": account_id, "storyId": story_id})


class ConnectionView(Indexed, Protocol):
    async def apply(self, event: ConnectionChanged) -> None:
        """Keep the event unless the view holds the same or a newer revision."""

    async def names(self, account_id: str, story_id: str, ids: Iterable[str]) -> dict[str, str]:
        """The name of each of the story's connections among `ids`, by id."""

    async def for_webhook(
        self, account_id: str, story_id: str, webhook: str
    ) -> Connection | None: ...

    async def delete_for_story(self, account_id: str, story_id: str) -> None: ...
