"""The webhook connections' use cases, called alike by the HTTP handlers (views.py) and
the NATS side (integrations_api/messaging.py).

Each write is published afterwards through the outbox, with the connection's revision,
for bot-api's view of connections (docs/events.md). The reactions to events are
idempotent: connections follow their story (a deleted story takes them with it; any
other change refreshes the story name they show, asked from bot-api, the source of
truth), and a delivery result never takes a connection's `error` back in time.
"""

from dataclasses import dataclass
from typing import Any, Protocol

from integrations_api.connections.repository import ConnectionStore
from integrations_api.stories.directory import StoryDirectory
from integrations_api.stories.service import follow_story, followed_story_name
from shared.errors import Conflict, NotFound
from shared.events import ConnectionChanged, DeliveryResult, StoryChanged, Subjects, encode
from shared.pages import Page


class EventOutbox(Protocol):
    async def put(self, subject: str, data: bytes) -> None: ...


@dataclass(frozen=True)
class ConnectionBackends:
    """What the use cases read, write and ask."""

    connections: ConnectionStore
    stories: StoryDirectory
    outbox: EventOutbox
    subjects: Subjects
    quota: int
    """Connections per account (`QUOTA_CONNECTIONS`): a plain list answers every one."""


async def list_connections(
    backends: ConnectionBackends,
    *,
    account_id: str,
    page: Page,
    only: frozenset[str] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """A page of the account's connections (of the stories in `only`, a member's) and
    their total."""
    connections = backends.connections
    return await connections.list(account_id, page, only), await connections.count(account_id, only)


async def read_connection(
    backends: ConnectionBackends, *, account_id: str, connection_id: str
) -> dict[str, Any]:
    document = await backends.connections.get(account_id, connection_id)
    if document is None:
        raise NotFound(f"no webhook connection {connection_id}")
    return document


async def is_story_connection(
    backends: ConnectionBackends, *, account_id: str, story_id: str, connection_id: str
) -> bool:
    """Whether the account's connection `connection_id` belongs to the story (asked by
    bot-api when an interaction names it as its webhook)."""
    document = await backends.connections.get(account_id, connection_id)
    return document is not None and document["storyId"] == story_id


async def create_connection(
    backends: ConnectionBackends,
    *,
    account_id: str,
    fields: dict[str, Any],
    new_id: str | None = None,
) -> str:
    """The new connection's id; a 400 naming `storyId` if the account has no such story.
    Under `new_id` when given (a retried create), which may exist already."""
    if new_id is not None and await backends.connections.get(account_id, new_id):
        return new_id
    story_name = await followed_story_name(backends.stories, account_id, fields["storyId"])
    if await backends.connections.count(account_id) >= backends.quota:
        raise Conflict(
            f"quota reached: webhook connections per account (at most {backends.quota})",
            {"quota": "connections", "limit": backends.quota},
        )
    document = await backends.connections.insert(account_id, story_name, fields, new_id)
    await _publish(backends, document)
    return str(document["_id"])


async def update_connection(
    backends: ConnectionBackends, *, account_id: str, connection_id: str, fields: dict[str, Any]
) -> str:
    """The id of the connection's story."""
    document = await backends.connections.replace(account_id, connection_id, fields)
    if document is None:
        raise NotFound(f"no webhook connection {connection_id}")
    await _publish(backends, document)
    return str(document["storyId"])


async def delete_connection(
    backends: ConnectionBackends, *, account_id: str, connection_id: str
) -> str:
    """The id of the deleted connection's story."""
    document = await backends.connections.delete(account_id, connection_id)
    if document is None:
        raise NotFound(f"no webhook connection {connection_id}")
    await _publish(backends, document, deleted=True)
    return str(document["storyId"])


async def story_changed(backends: ConnectionBackends, *, event: StoryChanged) -> None:
    await follow_story(backends.connections, backends.stories, event)


async def delivery_reported(backends: ConnectionBackends, *, result: DeliveryResult) -> None:
    await backends.connections.record_delivery(
        result.account_id, result.connection_id, result.error, result.at_ms
    )


async def _publish(
    backends: ConnectionBackends, document: dict[str, Any], deleted: bool = False
) -> None:
    """Tell bot-api; a deletion is one more revision, so it wins over the last write."""
    event = ConnectionChanged(
        connection_id=str(document["_id"]),
        account_id=document["accountId"],
        story_id=document["storyId"],
        name=document["name"],
        url=document["url"],
        revision=document["revision"] + (1 if deleted else 0),
        token=document.get("token"),
        headers=document.get("headers"),
        auth=document.get("auth"),
        deleted=deleted,
    )
    await backends.outbox.put(backends.subjects.connection_changed, encode(event))
