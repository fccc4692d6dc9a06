"""bot-api's view of webhook connections (url and credentials), fed by integrations-api's
events: an older revision never overwrites a newer one, and a deletion stays as a
tombstone so a late event cannot bring it back."""

import contextlib
from typing import Any

from pymongo.asynchronous.database import AsyncDatabase
from pymongo.errors import DuplicateKeyError

from shared.events import ConnectionChanged
from shared.ids import is_object_id


class ConnectionViewRepository:
    def __init__(self, database: AsyncDatabase) -> None:
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

    async def for_webhook(
        self, account_id: str, story_id: str, webhook: str
    ) -> dict[str, Any] | None:
        """The story's connection a webhook names: by id, or by a URL equal to its url."""
        by = {"_id": webhook} if is_object_id(webhook) else {"url": webhook}
        return await self.collection.find_one(
            {**by, "accountId": account_id, "storyId": story_id, "deleted": False}
        )
