from collections.abc import AsyncIterator

from aiohttp import web
from pymongo.asynchronous.database import AsyncDatabase

from bot_api.api import entities, interactions, query, stories
from bot_api.api.common import CHANGES, DELIVERIES, MANAGEMENT_STATUS_FIELD, STORES, STORY_CACHE
from bot_api.changes import Changes
from bot_api.conversations.cache import StoryCache
from bot_api.deliveries import Deliveries
from bot_api.messaging import connection_events, delivery_reporter, story_events, story_lookups
from bot_api.storage import Stores
from bot_api.webhooks import WebhookCaller
from shared.config import Config
from shared.service import CONFIG, base_application


async def webhook_deliveries(app: web.Application) -> AsyncIterator[None]:
    caller = WebhookCaller(app[CONFIG].webhook_allow)
    await caller.start()
    app[DELIVERIES] = Deliveries(caller, app[STORES].connections, delivery_reporter(app))
    yield
    await caller.close()


def create_app(config: Config) -> web.Application:
    async def open_stores(app: web.Application, database: AsyncDatabase) -> None:
        app[STORES] = Stores.open(database)
        await app[STORES].ensure_indexes()
        app[STORY_CACHE] = StoryCache(app[STORES])
        app[CHANGES].listen(app[STORY_CACHE])

    app = base_application(
        config, "bot-api", MANAGEMENT_STATUS_FIELD, config.bot_database, open_stores
    )
    app[CHANGES] = Changes()
    app.router.add_routes(stories.routes)
    app.router.add_routes(entities.routes)
    app.router.add_routes(interactions.routes)
    app.router.add_routes(query.routes)
    app.cleanup_ctx.append(webhook_deliveries)
    app.cleanup_ctx.append(story_lookups)
    app.cleanup_ctx.append(story_events)
    app.cleanup_ctx.append(connection_events)
    return app
