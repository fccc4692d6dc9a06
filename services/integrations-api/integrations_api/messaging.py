"""integrations-api's JetStream consumers (the contract: shared/events.py): each event
goes to the same use case as an HTTP request would (integrations_api/service.py).

Durable pull consumers shared by every replica, so one replica handles each event;
an event is acknowledged once handled, retried on a failure, and dropped (logged)
when it cannot be read (shared/messaging.py)."""

from collections.abc import AsyncIterator

from aiohttp import web

from integrations_api import service
from integrations_api.keys import BACKENDS, CONFIG, NATS
from shared.events import DeliveryResult, StoryChanged, decode
from shared.messaging import pulling

STORIES_CONSUMER = "integrations-stories-pull"
DELIVERIES_CONSUMER = "integrations-deliveries-pull"


async def consumers(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: story changes and delivery results, while the app runs."""
    subjects = app[CONFIG].subjects
    backends = app[BACKENDS]

    async def on_story(data: bytes) -> None:
        await service.story_changed(backends, event=decode(StoryChanged, data))

    async def on_delivery(data: bytes) -> None:
        await service.delivery_reported(backends, result=decode(DeliveryResult, data))

    stories = subjects.consumer(STORIES_CONSUMER)
    deliveries = subjects.consumer(DELIVERIES_CONSUMER)
    async with (
        pulling(app[NATS], subjects.story_changed, stories, on_story),
        pulling(app[NATS], subjects.delivery_result, deliveries, on_delivery),
    ):
        yield
