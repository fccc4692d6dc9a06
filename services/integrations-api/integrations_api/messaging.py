"""integrations-api's side of NATS (the contract: shared/events.py): each event or
look-up goes to the same use case as an HTTP request would (connections/service.py,
channels/service.py); a story's change goes to both features, the connections first.

Durable pull consumers shared by every replica, so one replica handles each event;
an event is acknowledged once handled, retried on a failure, and dropped (logged)
when it cannot be read (shared/messaging.py)."""

import logging
from collections.abc import AsyncIterator

from aiohttp import web
from nats.aio.msg import Msg

from integrations_api.channels import service as channels
from integrations_api.channels.keys import CHANNEL_BACKENDS
from integrations_api.connections import service as connections
from integrations_api.connections.keys import CONNECTION_BACKENDS
from shared.events import (
    ConnectionLookup,
    ConnectionLookupReply,
    DeliveryResult,
    HandoffMessage,
    StoryChanged,
    UndecodableEvent,
    decode,
    encode,
)
from shared.keys import CONFIG, NATS
from shared.messaging import pulling

log = logging.getLogger(__name__)
RESPONDERS = "integrations-api"

STORIES_CONSUMER = "integrations-stories-pull"
DELIVERIES_CONSUMER = "integrations-deliveries-pull"
HANDOFF_CONSUMER = "integrations-handoff-pull"


async def consumers(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: story changes, delivery results and a person's messages during a
    handoff, while the app runs."""
    subjects = app[CONFIG].subjects
    connection_backends = app[CONNECTION_BACKENDS]
    channel_backends = app[CHANNEL_BACKENDS]

    async def on_story(data: bytes) -> None:
        event = decode(StoryChanged, data)
        await connections.story_changed(connection_backends, event=event)
        await channels.story_changed(channel_backends, event=event)

    async def on_handoff(data: bytes) -> None:
        message = decode(HandoffMessage, data)
        await channels.handoff_message(channel_backends, message=message)

    async def on_delivery(data: bytes) -> None:
        await connections.delivery_reported(
            connection_backends, result=decode(DeliveryResult, data)
        )

    stories = subjects.consumer(STORIES_CONSUMER)
    deliveries = subjects.consumer(DELIVERIES_CONSUMER)
    handoffs = subjects.consumer(HANDOFF_CONSUMER)
    async with (
        pulling(app[NATS], subjects.story_changed, stories, on_story),
        pulling(app[NATS], subjects.delivery_result, deliveries, on_delivery),
        pulling(app[NATS], subjects.handoff_message, handoffs, on_handoff),
    ):
        yield


async def connection_lookups(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: answer bot-api's connection look-ups (a queue group, so each is
    answered by one replica)."""
    backends = app[CONNECTION_BACKENDS]

    async def answer(message: Msg) -> None:
        try:
            lookup = decode(ConnectionLookup, message.data)
        except UndecodableEvent as error:
            log.warning("unreadable connection look-up: %s", error)
            return
        found = await connections.is_story_connection(
            backends,
            account_id=lookup.account_id,
            story_id=lookup.story_id,
            connection_id=lookup.connection_id,
        )
        await message.respond(encode(ConnectionLookupReply(found)))

    subjects = app[CONFIG].subjects
    subscription = await app[NATS].subscribe(
        subjects.connection_lookup, queue=subjects.consumer(RESPONDERS), cb=answer
    )
    yield
    await subscription.unsubscribe()
