"""The `channels` collection of integrations-api's database (the deliveries accepted
are `deliveries.py`'s).

A channel's credentials are stored with it (the platforms' APIs need them in clear) and
leave this module only inside a `Channel`, whose repr hides them, so a log line never
shows them; the API never reads them back (docs/channels.md). The use cases take it by
its Protocol (`ChannelStore`), which tests/support/channels.py meets in memory.
"""

import secrets
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from bson import ObjectId

from integrations_api.stories.service import StoryFollowers
from shared.ids import is_channel_id, is_object_id, new_channel_id
from shared.mongo import Database, of_account, paged
from shared.pages import Page
from shared.timeutil import utcnow

ACTIVE = "active"
ERROR = "error"
"""`status`: the platform refused to register the channel's webhook (the `error` says
why); a PUT tries again."""

WEBHOOK_SECRET = "webhookSecret"


@dataclass(frozen=True)
class Channel:
    id: str
    account_id: str
    story_id: str
    story_name: str
    type: str
    name: str
    credentials: Mapping[str, str] = field(repr=False)
    """The type's credentials and the `webhookSecret` Parley made: never shown."""
    status: str
    error: str | None
    created_at: datetime
    updated_at: datetime
    webhook_url: str | None = None
    """Where Parley last registered the platform's webhook (Telegram): none yet, or
    refused."""


@dataclass(frozen=True)
class ChannelFields:
    """What a create or an update writes: the type and story are a channel's for life."""

    name: str
    credentials: Mapping[str, str] | None = field(default=None, repr=False)
    """None on an update keeps the stored ones."""


def _key(channel_id: str) -> ObjectId | str | None:
    """The `_id` a channel id names: 32 hex digits (random: every channel made since
    issue 29), or an ObjectId (a channel made before); None for anything else."""
    if not is_channel_id(channel_id):
        return None
    lowered = channel_id.lower()
    return ObjectId(lowered) if is_object_id(lowered) else lowered


def channel_id_from(digest: bytes) -> str:
    """The id of a channel created under an `Idempotency-Key` (shared/idempotency.py):
    128 bits of the digest of the account, the path and the key, which only whoever
    knows both can make."""
    return digest[:16].hex()


def new_webhook_secret() -> str:
    """Telegram's secret_token allows 1-256 characters of A-Z, a-z, 0-9, _ and -."""
    return secrets.token_urlsafe(32)


def channel_of(document: Mapping[str, Any]) -> Channel:
    return Channel(
        id=str(document["_id"]),
        account_id=document["accountId"],
        story_id=document["storyId"],
        story_name=document["storyName"],
        type=document["type"],
        name=document["name"],
        credentials=dict(document["credentials"]),
        status=document["status"],
        error=document.get("error"),
        created_at=document["createdAt"],
        updated_at=document["updatedAt"],
        webhook_url=document.get("webhookUrl"),
    )


def new_document(
    account_id: str, story_id: str, story_name: str, channel_type: str, fields: ChannelFields
) -> dict[str, Any]:
    now = utcnow()
    return {
        "accountId": account_id,
        "storyId": story_id,
        "storyName": story_name,
        "type": channel_type,
        "name": fields.name,
        "credentials": {**(fields.credentials or {}), WEBHOOK_SECRET: new_webhook_secret()},
        "status": ACTIVE,
        "error": None,
        "createdAt": now,
        "updatedAt": now,
    }


def updated_values(current: Channel, fields: ChannelFields) -> dict[str, Any]:
    """The `$set` of an update: new credentials keep the channel's webhook secret."""
    values: dict[str, Any] = {"name": fields.name, "updatedAt": utcnow()}
    if fields.credentials is not None:
        secret = current.credentials[WEBHOOK_SECRET]
        values["credentials"] = {**fields.credentials, WEBHOOK_SECRET: secret}
    return values


class ChannelStore(StoryFollowers, Protocol):
    async def insert(
        self,
        account_id: str,
        story_id: str,
        story_name: str,
        channel_type: str,
        fields: ChannelFields,
        channel_id: str | None = None,
    ) -> Channel: ...

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[Channel]:
        """A page of the account's channels (of the stories in `only`, if given)."""

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int: ...

    async def get(self, account_id: str, channel_id: str) -> Channel | None: ...

    async def find(self, channel_id: str) -> Channel | None: ...

    async def update(
        self, account_id: str, channel_id: str, fields: ChannelFields
    ) -> Channel | None: ...

    async def set_status(
        self,
        account_id: str,
        channel_id: str,
        status: str,
        error: str | None,
        webhook_url: str | None = None,
    ) -> None: ...

    def of_type(self, channel_type: str) -> AsyncIterator[Channel]: ...

    async def record_delivery(
        self, account_id: str, channel_id: str, error: str | None
    ) -> None: ...

    async def delete(self, account_id: str, channel_id: str) -> Channel | None: ...


class ChannelRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["channels"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("accountId", 1), ("createdAt", 1)])
        await self.collection.create_index([("accountId", 1), ("storyId", 1)])

    async def insert(
        self,
        account_id: str,
        story_id: str,
        story_name: str,
        channel_type: str,
        fields: ChannelFields,
        channel_id: str | None = None,
    ) -> Channel:
        document = new_document(account_id, story_id, story_name, channel_type, fields)
        document["_id"] = _key(channel_id) if channel_id is not None else new_channel_id()
        await self.collection.insert_one(document)
        return channel_of(document)

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[Channel]:
        cursor = self.collection.find(of_account(account_id, only)).sort("createdAt", 1)
        return [channel_of(document) async for document in paged(cursor, page)]

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int:
        return await self.collection.count_documents(of_account(account_id, only))

    async def get(self, account_id: str, channel_id: str) -> Channel | None:
        key = _key(channel_id)
        if key is None:
            return None
        document = await self.collection.find_one({"_id": key, "accountId": account_id})
        return None if document is None else channel_of(document)

    async def find(self, channel_id: str) -> Channel | None:
        """Any account's channel: a platform's call names the channel alone."""
        key = _key(channel_id)
        if key is None:
            return None
        document = await self.collection.find_one({"_id": key})
        return None if document is None else channel_of(document)

    async def update(
        self, account_id: str, channel_id: str, fields: ChannelFields
    ) -> Channel | None:
        """The whole document is written again: nx-27017 stores a datetime `$set` on an
        existing document as a string (docs/mongodb-compatibility.md)."""
        key = _key(channel_id)
        current = (
            None
            if key is None
            else await self.collection.find_one({"_id": key, "accountId": account_id})
        )
        if current is None:
            return None
        document = {**current, **updated_values(channel_of(current), fields)}
        result = await self.collection.replace_one({"_id": key, "accountId": account_id}, document)
        return await self.get(account_id, channel_id) if result.matched_count == 1 else None

    async def set_status(
        self,
        account_id: str,
        channel_id: str,
        status: str,
        error: str | None,
        webhook_url: str | None = None,
    ) -> None:
        """After a webhook registration: `error` is why the platform refused it,
        `webhook_url` where it took it."""
        values = {"status": status, "error": error}
        await self._set(account_id, channel_id, values | {"webhookUrl": webhook_url})

    async def of_type(self, channel_type: str) -> AsyncIterator[Channel]:
        """Every account's channels of a type (at start-up: Telegram's, to register
        again where INTEGRATIONS_PUBLIC_URL moved)."""
        async for document in self.collection.find({"type": channel_type}):
            yield channel_of(document)

    async def record_delivery(self, account_id: str, channel_id: str, error: str | None) -> None:
        """After an answer was sent (error None) or given up on. A success clears what is
        stored, not what the platform's call read (another message may have failed
        since), and writes only when there is an error to clear."""
        key = _key(channel_id)
        if key is None:
            return
        match: dict[str, Any] = {"_id": key, "accountId": account_id}
        if error is None:
            match["error"] = {"$ne": None}
        await self.collection.update_one(match, {"$set": {"error": error}})

    async def _set(self, account_id: str, channel_id: str, values: dict[str, Any]) -> None:
        key = _key(channel_id)
        if key is not None:
            await self.collection.update_one(
                {"_id": key, "accountId": account_id}, {"$set": values}
            )

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

    async def delete(self, account_id: str, channel_id: str) -> Channel | None:
        """The deleted channel, or None if there was no such channel."""
        current = await self.get(account_id, channel_id)
        if current is None:
            return None
        result = await self.collection.delete_one(
            {"_id": _key(current.id), "accountId": account_id}
        )
        return current if result.deleted_count == 1 else None
