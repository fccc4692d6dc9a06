from collections.abc import AsyncIterator
from datetime import timedelta

from aiohttp import web
from pymongo.asynchronous.database import AsyncDatabase

from bot_api.api import entities, interactions, query, stories
from bot_api.api.common import MANAGEMENT_STATUS_FIELD
from bot_api.changes import ChangeFeed
from bot_api.conversations.answering import ConversationService
from bot_api.conversations.cache import StoryCache
from bot_api.keys import (
    CHANGES,
    CONVERSATIONS,
    ENTITIES,
    INTERACTIONS,
    STORES,
    STORIES,
    STORY_CACHE,
)
from bot_api.management.entities import EntityService
from bot_api.management.interactions import InteractionService
from bot_api.management.stories import StoryService
from bot_api.messaging import connection_events, delivery_reporter, story_events, story_lookups
from bot_api.storage import Stores
from bot_api.webhooks.caller import WebhookCaller
from bot_api.webhooks.delivery import Deliveries
from shared.config import Config
from shared.service import CONFIG, base_application


async def conversations(app: web.Application) -> AsyncIterator[None]:
    caller = WebhookCaller(app[CONFIG].webhook_allow)
    await caller.start()
    deliveries = Deliveries(
        caller=caller, connections=app[STORES].connections, report=delivery_reporter(app)
    )
    app[CONVERSATIONS] = ConversationService(
        stories=app[STORY_CACHE],
        sessions=app[STORES].sessions,
        deliveries=deliveries,
        idle_timeout=timedelta(seconds=app[CONFIG].session_idle_seconds),
    )
    yield
    await caller.close()


def create_app(config: Config) -> web.Application:
    async def open_stores(app: web.Application, database: AsyncDatabase) -> None:
        stores = Stores.open(database)
        await stores.ensure_indexes()
        app[STORES] = stores
        app[STORY_CACHE] = StoryCache(stores)
        app[CHANGES].listen(app[STORY_CACHE])
        app[STORIES] = StoryService(stores=stores, changes=app[CHANGES])
        app[INTERACTIONS] = InteractionService(stores=stores, changes=app[CHANGES])
        app[ENTITIES] = EntityService(stores=stores, changes=app[CHANGES])

    app = base_application(
        config, "bot-api", MANAGEMENT_STATUS_FIELD, config.bot_database, open_stores
    )
    app[CHANGES] = ChangeFeed()
    app.router.add_routes(stories.routes)
    app.router.add_routes(entities.routes)
    app.router.add_routes(interactions.routes)
    app.router.add_routes(query.routes)
    app.cleanup_ctx.append(conversations)
    app.cleanup_ctx.append(story_lookups)
    app.cleanup_ctx.append(story_events)
    app.cleanup_ctx.append(connection_events)
    return app
