"""integrations-api's side of NATS (the contract: shared/events.py): connections follow
their story. A deleted story takes its connections with it; any other change refreshes
the story name they show, asked from bot-api (the source of truth), so handling an
event twice or out of order leaves the same result. An event is acknowledged only
once handled; a failure is retried."""

import logging
from collections.abc import AsyncIterator

from aiohttp import web
from nats.aio.client import Client
from nats.aio.msg import Msg

from integrations_api.api import CONNECTIONS
from integrations_api.connections import ConnectionRepository
from integrations_api.stories import story_name
from shared.errors import ValidationFailed
from shared.events import StoryChanged, Subjects
from shared.messaging import ensure_stream
from shared.service import CONFIG, NATS

log = logging.getLogger(__name__)
CONSUMER = "integrations-stories"
RETRY_DELAY_SECONDS = 1.0


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


async def story_events(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: a durable queue consumer, so one replica handles each event."""
    subjects = app[CONFIG].subjects
    await ensure_stream(app[NATS], subjects)

    async def on_story(message: Msg) -> None:
        try:
            await apply_story_change(
                app[CONNECTIONS], app[NATS], subjects, StoryChanged.decode(message.data)
            )
        except Exception as error:
            log.warning("story event not applied, retrying: %s", error)
            await message.nak(delay=RETRY_DELAY_SECONDS)
            return
        await message.ack()

    consumer = subjects.consumer(CONSUMER)
    subscription = (
        await app[NATS]
        .jetstream()
        .subscribe(
            subjects.story_changed, queue=consumer, durable=consumer, cb=on_story, manual_ack=True
        )
    )
    yield
    await subscription.unsubscribe()
