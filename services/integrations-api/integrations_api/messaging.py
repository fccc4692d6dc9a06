"""integrations-api's side of NATS (the contract: shared/events.py).

- Connections follow their story: a deleted story takes its connections with it; any
  other change refreshes the story name they show, asked from bot-api (the source of
  truth), so handling an event twice or out of order leaves the same result.
- Delivery results set or clear a connection's `error`, never going back in time.
- Each connection write is published, with its revision, for bot-api's view.

An event is acknowledged only once handled; a failure is retried."""

import logging
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web
from nats.aio.client import Client

from integrations_api.connections import CONNECTIONS, ConnectionRepository
from integrations_api.stories import story_name
from shared.errors import ValidationFailed
from shared.events import ConnectionChanged, DeliveryResult, StoryChanged, Subjects
from shared.messaging import acknowledging
from shared.outbox import OUTBOX
from shared.service import CONFIG, NATS

log = logging.getLogger(__name__)
CONSUMER = "integrations-stories"
DELIVERIES = "integrations-deliveries"


async def apply_story_change(
    connections: ConnectionRepository, nats: Client, subjects: Subjects, event: StoryChanged
) -> None:
    if event.deleted:
        await connections.delete_for_story(event.account_id, event.story_id)
        return
    if not await connections.used_by_story(event.account_id, event.story_id):
        return
    try:
        name = await story_name(nats, subjects, event.account_id, event.story_id)
    except ValidationFailed:
        return  # deleted since: its own event removes the connections
    await connections.rename_story(event.account_id, event.story_id, name)


async def publish_connection(
    app: web.Application, document: dict[str, Any], deleted: bool = False
) -> None:
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
    await app[OUTBOX].put(app[CONFIG].subjects.connection_changed, event.encode())


async def consumers(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: durable queue consumers, so one replica handles each event."""
    subjects = app[CONFIG].subjects

    async def on_story(data: bytes) -> None:
        event = StoryChanged.decode(data)
        await apply_story_change(app[CONNECTIONS], app[NATS], subjects, event)

    async def on_delivery(data: bytes) -> None:
        result = DeliveryResult.decode(data)
        await app[CONNECTIONS].record_delivery(
            result.account_id, result.connection_id, result.error, result.at_ms
        )

    jetstream = app[NATS].jetstream()
    subscriptions = []
    for subject, name, apply in (
        (subjects.story_changed, CONSUMER, on_story),
        (subjects.delivery_result, DELIVERIES, on_delivery),
    ):
        consumer = subjects.consumer(name)
        subscriptions.append(
            await jetstream.subscribe(
                subject,
                queue=consumer,
                durable=consumer,
                cb=acknowledging(apply, name),
                manual_ack=True,
            )
        )
    yield
    for subscription in subscriptions:
        await subscription.unsubscribe()
