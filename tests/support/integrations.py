"""In-memory stand-ins for what the webhook connections' use cases talk to (the Protocols
of integrations_api/connections/service.py and repository.py, stories/directory.py), for
unit tests of the use cases."""

from dataclasses import dataclass, field
from typing import Any

from bson import ObjectId

from integrations_api.connections.repository import new_connection, replaced_connection
from integrations_api.connections.service import ConnectionBackends
from integrations_api.stories.directory import StoryNotFound
from shared.events import ConnectionChanged, Subjects, decode
from shared.pages import Page

SUBJECTS = Subjects("test")


class MemoryConnections:
    def __init__(self) -> None:
        self.documents: dict[ObjectId, dict[str, Any]] = {}

    def _of_story(self, account_id: str, story_id: str) -> list[dict[str, Any]]:
        return [
            d
            for d in self.documents.values()
            if d["accountId"] == account_id and d["storyId"] == story_id
        ]

    def _of(self, account_id: str, only: frozenset[str] | None) -> list[dict[str, Any]]:
        return [
            d
            for d in self.documents.values()
            if d["accountId"] == account_id and (only is None or d["storyId"] in only)
        ]

    async def list(
        self, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> list[dict[str, Any]]:
        return page.of(self._of(account_id, only))

    async def count(self, account_id: str, only: frozenset[str] | None = None) -> int:
        return len(self._of(account_id, only))

    async def get(self, account_id: str, connection_id: str) -> dict[str, Any] | None:
        for key, document in self.documents.items():
            if str(key) == connection_id and document["accountId"] == account_id:
                return dict(document)
        return None

    async def insert(
        self,
        account_id: str,
        story_name: str,
        fields: dict[str, Any],
        connection_id: str | None = None,
    ) -> dict[str, Any]:
        document = {
            "_id": ObjectId(connection_id),
            **new_connection(account_id, story_name, fields),
        }
        self.documents[document["_id"]] = document
        return document

    async def replace(
        self, account_id: str, connection_id: str, fields: dict[str, Any]
    ) -> dict[str, Any] | None:
        current = await self.get(account_id, connection_id)
        if current is None:
            return None
        document = replaced_connection(current, fields)
        self.documents[current["_id"]] = document
        return document

    async def delete(self, account_id: str, connection_id: str) -> dict[str, Any] | None:
        current = await self.get(account_id, connection_id)
        if current is not None:
            del self.documents[current["_id"]]
        return current

    async def used_by_story(self, account_id: str, story_id: str) -> bool:
        return any(self._of_story(account_id, story_id))

    async def rename_story(self, account_id: str, story_id: str, name: str) -> None:
        for document in self._of_story(account_id, story_id):
            document["storyName"] = name

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        for document in list(self._of_story(account_id, story_id)):
            del self.documents[document["_id"]]

    async def record_delivery(
        self, account_id: str, connection_id: str, error: str | None, at_ms: int
    ) -> None:
        current = await self.get(account_id, connection_id)
        if current is not None and current.get("lastDeliveryAtMs", -1) < at_ms:
            self.documents[current["_id"]].update(error=error, lastDeliveryAtMs=at_ms)


class MemoryStoryDirectory:
    """bot-api's stories, as (account, story id) -> name."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, str], str] = {}

    async def name(self, account_id: str, story_id: str) -> str:
        try:
            return self.names[(account_id, story_id)]
        except KeyError:
            raise StoryNotFound(story_id) from None


class MemoryOutbox:
    def __init__(self) -> None:
        self.events: list[tuple[str, bytes]] = []

    async def put(self, subject: str, data: bytes) -> None:
        self.events.append((subject, data))


@dataclass
class MemoryBackends:
    connections: MemoryConnections = field(default_factory=MemoryConnections)
    stories: MemoryStoryDirectory = field(default_factory=MemoryStoryDirectory)
    outbox: MemoryOutbox = field(default_factory=MemoryOutbox)
    subjects: Subjects = SUBJECTS
    quota: int = 1000

    @property
    def backends(self) -> ConnectionBackends:
        return ConnectionBackends(
            self.connections, self.stories, self.outbox, self.subjects, self.quota
        )

    def published(self) -> list[ConnectionChanged]:
        """The connection events put in the outbox, oldest first."""
        return [
            decode(ConnectionChanged, data)
            for subject, data in self.outbox.events
            if subject == self.subjects.connection_changed
        ]
