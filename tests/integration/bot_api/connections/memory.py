"""ConnectionsInMemory, bot-api's view of the connections in memory, held to
ConnectionViewRepository's contract by test_connection_view_repository.py beside it:
the view keeps each connection's newest revision. ConnectionDirectory stands for
integrations-api's answer over NATS (bot_api.messaging.NatsConnectionDirectory), which
no contract test holds it to.
"""

from collections.abc import Iterable

from bot_api.connections.repository import Connection
from shared.events import ConnectionChanged
from shared.ids import is_object_id
from support.journal import InMemory, Journal


class ConnectionsInMemory(InMemory):
    def __init__(self, database: Journal) -> None:
        super().__init__(database)
        self.events: dict[str, ConnectionChanged] = {}
        """The newest event of each connection, a deletion included."""

    async def apply(self, event: ConnectionChanged) -> None:
        await self._database.record("connections.apply", event.connection_id)
        kept = self.events.get(event.connection_id)
        if kept is None or kept.revision < event.revision:
            self.events[event.connection_id] = event

    async def names(self, account_id: str, story_id: str, ids: Iterable[str]) -> dict[str, str]:
        await self._database.record("connections.names", story_id)
        wanted = set(ids)
        return {
            event.connection_id: event.name
            for event in self.events.values()
            if event.connection_id in wanted
            and (event.account_id, event.story_id) == (account_id, story_id)
            and not event.deleted
        }

    async def for_webhook(self, account_id: str, story_id: str, webhook: str) -> Connection | None:
        await self._database.record("connections.for_webhook", webhook)
        by_id = is_object_id(webhook)
        for event in self.events.values():
            named = event.connection_id == webhook if by_id else event.url == webhook
            if (
                named
                and (event.account_id, event.story_id) == (account_id, story_id)
                and not event.deleted
            ):
                auth = event.auth
                return Connection(
                    id=event.connection_id,
                    name=event.name,
                    url=event.url,
                    token=event.token,
                    headers=event.headers or {},
                    auth=None if not auth else (auth["username"], auth["password"]),
                )
        return None

    async def delete_for_story(self, account_id: str, story_id: str) -> None:
        await self._database.record("connections.delete_for_story", story_id)
        for connection_id, event in list(self.events.items()):
            if (event.account_id, event.story_id) == (account_id, story_id):
                del self.events[connection_id]


class ConnectionDirectory:
    """integrations-api's answer to "is this connection the story's?", from a set of
    (account, story, connection) it was told about."""

    def __init__(self) -> None:
        self.known: set[tuple[str, str, str]] = set()

    async def is_story_connection(self, account_id: str, story_id: str, connection_id: str) -> bool:
        return (account_id, story_id, connection_id) in self.known
