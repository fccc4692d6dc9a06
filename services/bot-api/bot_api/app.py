from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.api import entities, interactions, query, stories
from bot_api.api.common import CHANGES, DELIVERIES, MANAGEMENT_STATUS_FIELD, STORES, STORY_CACHE
from bot_api.changes import Changes
from bot_api.conversations.cache import StoryCache
from bot_api.deliveries import Deliveries
from bot_api.messaging import connection_events, delivery_reporter, story_events, story_lookups
from bot_api.storage import Stores
from bot_api.webhooks import WebhookCaller
from shared.config import Config
from shared.keys import CONFIG, DATABASE
from shared.service import (
    add_meta_routes,
    mongo_context,
    nats_context,
    new_app,
    outbox_context,
)


async def webhook_deliveries(app: web.Application) -> AsyncIterator[None]:
    caller = WebhookCaller(app[CONFIG].webhook_allow)
    await caller.start()
    app[DELIVERIES] = Deliveries(caller, app[STORES].connections, delivery_reporter(app))
    yield
    await caller.close()


async def open_stores(app: web.Application) -> AsyncIterator[None]:
    app[STORES] = Stores.open(app[DATABASE])
    await app[STORES].ensure_indexes()
    app[STORY_CACHE] = StoryCache(app[STORES])
    app[CHANGES].listen(app[STORY_CACHE])
    yield


def create_app(config: Config) -> web.Application:
    app = new_app(config, status_field=MANAGEMENT_STATUS_FIELD)
    app[CHANGES] = Changes()
    app.cleanup_ctx.extend(
        [
            mongo_context(config.bot_database),
            open_stores,
            nats_context("bot-api"),
            outbox_context(),
            webhook_deliveries,
            story_lookups,
            story_events,
            connection_events,
        ]
    )
    add_meta_routes(app, "Parley bot-api")
    app.router.add_routes(stories.routes)
    app.router.add_routes(entities.routes)
    app.router.add_routes(interactions.routes)
    app.router.add_routes(query.routes)
    return app
